package infer

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// tanhCycle is the fixed-point iteration x ← x + δ(f(x) − x) with
// f(x) = −2 tanh(x): the fixed point 0 has f'(0) = −2, so the full step
// leaves it for the period-2 cycle ±x* (x* = 2 tanh x* ≈ 1.915) and the
// residual stays at 2x* for ever; at δ the Jacobian is 1 − 3δ, inside
// (−1, 1) for δ < 2/3, and h(x) = x + δ(f(x) − x) has no other cycle at
// δ = 1/2 (h(x) = −x would need (2 − δ)x = 2δ tanh x, i.e. 1.5x = tanh x).
func tanhCycle(x *float64) SweepFunc {
	return func(_ context.Context, _ int, d float64) (Sweep, error) {
		next := *x + d*(-2*math.Tanh(*x)-*x)
		change := math.Abs(next - *x)
		*x = next
		return Sweep{Change: change, Updates: 1}, nil
	}
}

// TestAdaptDampingCycle: with a fixed step the cycle ends at the sweep
// budget; with adaptation the step is halved after a window of
// AdaptWindow sweeps that does not lower the residual's envelope, and the
// run converges to the fixed
// point, judged on the undamped residual: |f(x) − x| < tol, computed here
// from x itself.
func TestAdaptDampingCycle(t *testing.T) {
	x := 0.3
	o := Iterate(context.Background(), Loop{Tol: 1e-8, MaxIter: 200, FixedDamping: true}, tanhCycle(&x))
	if o.Status != IterationLimit || len(o.Adapted) != 0 || math.Abs(math.Abs(x)-1.915) > 1e-3 {
		t.Fatalf("fixed step: %v, x = %g, adapted %v", o.Status, x, o.Adapted)
	}
	x = 0.3
	o = Iterate(context.Background(), Loop{Tol: 1e-8, MaxIter: 200}, tanhCycle(&x))
	if o.Status != Converged {
		t.Fatalf("adapted: %v %s, x = %g, adapted %v", o.Status, o.Message, x, o.Adapted)
	}
	if r := math.Abs(-2*math.Tanh(x) - x); !(r < 1e-8) {
		t.Errorf("converged with undamped residual %g", r)
	}
	if len(o.Adapted) == 0 || o.Adapted[0].From != 1 || o.Adapted[0].To != 0.5 || o.Damping >= 2.0/3 {
		t.Errorf("adaptations %v, last step %g", o.Adapted, o.Damping)
	}
	t.Logf("converged after %d sweeps, %v", o.Iterations, o.Adapted)
}

// TestAdaptNeverFakes: a sweep whose undamped change never falls (R = 1
// at every step) drives the step down to MinDamping and ends at the sweep
// budget — a tiny step does not read as convergence.
func TestAdaptNeverFakes(t *testing.T) {
	o := Iterate(context.Background(), Loop{Tol: 1e-3, MaxIter: 1000}, func(_ context.Context, _ int, d float64) (Sweep, error) {
		return Sweep{Change: d, Updates: 1}, nil
	})
	if o.Status != IterationLimit || o.Damping != MinDamping {
		t.Errorf("%v, last step %g, %d adaptations", o.Status, o.Damping, len(o.Adapted))
	}
}

// TestAdaptMonotone: a residual that falls at every sweep, even slowly
// (R = 0.999^it), is never touched.
func TestAdaptMonotone(t *testing.T) {
	o := Iterate(context.Background(), Loop{Tol: 0.5, MaxIter: 1000}, func(_ context.Context, it int, d float64) (Sweep, error) {
		return Sweep{Change: d * math.Pow(0.999, float64(it)), Updates: 1}, nil
	})
	if o.Status != Converged || len(o.Adapted) != 0 {
		t.Errorf("%v after %d, adapted %v", o.Status, o.Iterations, o.Adapted)
	}
}

// TestAdaptRecovers: a transient plateau (R = 1 for 45 sweeps) halves the
// step at the end of the second window; the decrease that follows doubles
// it back to the line's damping after the two windows that follow the
// first one at the new step, since a level that failed only once may be
// tried again.
func TestAdaptRecovers(t *testing.T) {
	o := Iterate(context.Background(), Loop{Tol: 1e-9, MaxIter: 200}, func(_ context.Context, it int, d float64) (Sweep, error) {
		r := 1.0
		if it > 45 {
			r = math.Pow(0.8, float64(it-45))
		}
		return Sweep{Change: d * r, Updates: 1}, nil
	})
	if o.Status != Converged || len(o.Adapted) != 2 || o.Adapted[1].To != 1 || o.Damping != 1 {
		t.Errorf("%v, adapted %v, last step %g", o.Status, o.Adapted, o.Damping)
	}
	if s := AdaptationSummary(o.Adapted); !strings.Contains(s, "(1 → 0.5 after sweep 40, 0.5 → 1 after sweep 100); the run ended at the line's step") {
		t.Errorf("summary %q", s)
	}
}

// TestAdaptCapped: a step that fails twice is not tried again, so the
// schedule cannot cycle between two steps.
func TestAdaptCapped(t *testing.T) {
	x := 0.3
	o := Iterate(context.Background(), Loop{Tol: 1e-14, MaxIter: 2000}, tanhCycle(&x))
	ups := 0
	for _, a := range o.Adapted {
		if a.To > a.From {
			ups++
		}
	}
	if o.Status != Converged || ups > 1 {
		t.Errorf("%v, adapted %v", o.Status, o.Adapted)
	}
}

// TestRejectedSweepRetried: a sweep that reports *Rejected (its step would
// leave the region where the state is proper, here x ≥ −1 for the update
// x ← x + δ(−3 − x) from x = 0 — at δ ≥ 1/3) changes nothing; Iterate
// repeats it with the same number at half the step until it is accepted,
// logs each halving as a rejection, and neither the trace nor the sweep
// budget counts the rejected attempts. With a fixed step the first
// rejection ends the run as diverged with the sweep's message. (Once the
// residual falls for two windows the step is doubled back, as after any
// other halving.)
func TestRejectedSweepRetried(t *testing.T) {
	var x float64
	var calls []int
	sweep := func(_ context.Context, it int, d float64) (Sweep, error) {
		calls = append(calls, it)
		next := x + d*(-0.9-x)
		if x+d*(-3-x) < -1 && it == 1 {
			return Sweep{Updates: 1}, &Rejected{Err: errors.New("improper")}
		}
		change := math.Abs(next - x)
		x = next
		return Sweep{Change: change, Updates: 1}, nil
	}
	o := Iterate(context.Background(), Loop{Tol: 1e-10, MaxIter: 100}, sweep)
	want := []Adaptation{{Sweep: 1, From: 1, To: 0.5, Rejected: true}, {Sweep: 1, From: 0.5, To: 0.25, Rejected: true}}
	if o.Status != Converged || len(o.Adapted) < 2 || o.Adapted[0] != want[0] || o.Adapted[1] != want[1] {
		t.Fatalf("%v (%s), adapted %v", o.Status, o.Message, o.Adapted)
	}
	if calls[0] != 1 || calls[1] != 1 || calls[2] != 1 || calls[3] != 2 || len(o.Trace) != o.Iterations || o.Iterations != len(calls)-2 {
		t.Errorf("sweeps called %v, %d iterations, trace %d", calls, o.Iterations, len(o.Trace))
	}
	if s := AdaptationSummary(o.Adapted[:2]); !strings.Contains(s, "sweep 1 at damping 1 made the state improper, so it was undone and the step was adapted (1 → 0.5 retrying sweep 1, 0.5 → 0.25 retrying sweep 1)") {
		t.Errorf("summary %q", s)
	}

	x, calls = 0, nil
	o = Iterate(context.Background(), Loop{Tol: 1e-10, MaxIter: 100, FixedDamping: true}, sweep)
	if o.Status != Diverged || o.Message != "sweep 1: improper" || len(calls) != 1 || len(o.Adapted) != 0 {
		t.Errorf("fixed step: %v %q after %d calls, adapted %v", o.Status, o.Message, len(calls), o.Adapted)
	}
}

// TestRejectedAtFloor: a sweep rejected at every step halves it down to
// MinDamping and then ends the run as diverged — a bounded number of
// attempts, each logged.
func TestRejectedAtFloor(t *testing.T) {
	calls := 0
	o := Iterate(context.Background(), Loop{Tol: 1e-10, MaxIter: 100}, func(context.Context, int, float64) (Sweep, error) {
		calls++
		return Sweep{}, &Rejected{Err: errors.New("improper")}
	})
	levels := int(math.Ceil(math.Log2(1 / MinDamping))) // 1 → MinDamping in halvings
	if o.Status != Diverged || o.Damping != MinDamping || len(o.Adapted) != levels || calls != levels+1 {
		t.Errorf("%v %q at step %g after %d calls, %d adaptations", o.Status, o.Message, o.Damping, calls, len(o.Adapted))
	}
}
