package infer

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// geometric is a sweep whose undamped change halves every sweep, starting
// at 1, damped by step: the change made is step · 2^(1−it).
func geometric(step float64, skipped func(it int) int) SweepFunc {
	return func(_ context.Context, it int, _ float64) (Sweep, error) {
		k := 0
		if skipped != nil {
			k = skipped(it)
		}
		return Sweep{Change: step * math.Pow(2, float64(1-it)), Updates: 3 - k, Skipped: k}, nil
	}
}

// TestIterateStatus: every status of the driver from a sweep whose change
// is known. R halves every sweep from 1, so R < 1e-3 first at sweep 11
// (2⁻¹⁰ ≈ 9.8e-4).
func TestIterateStatus(t *testing.T) {
	bg := context.Background()
	canceled, cancel := context.WithCancel(bg)
	cancel()
	none := func(int) int { return 0 }
	for _, c := range []struct {
		name  string
		ctx   context.Context
		loop  Loop
		sweep SweepFunc
		want  Status
		iters int
		msg   string
	}{
		{"converged", bg, Loop{Tol: 1e-3, MaxIter: 50}, geometric(1, none), Converged, 11, ""},
		{"damped: judged undamped", bg, Loop{Tol: 1e-3, MaxIter: 50, Damping: 1e-3}, geometric(1e-3, none), Converged, 11, ""},
		{"limit", bg, Loop{Tol: 1e-3, MaxIter: 5}, geometric(1, none), IterationLimit, 5, "≥ tol"},
		{"done", bg, Loop{Converger: Never{}, MaxIter: 1, Limit: Done}, geometric(1, none), Done, 1, ""},
		{"stalled", bg, Loop{Tol: 1e-3, MaxIter: 50, Unit: "site"}, geometric(1, func(it int) int { return it / 11 }), Stalled, 11, "1 of 3 site updates"},
		{"failed", bg, Loop{Tol: 1e-3, MaxIter: 50}, geometric(1, func(int) int { return 3 }), Failed, 11, "every update was skipped (33 factor updates)"},
		{"failed at the limit", bg, Loop{Tol: 1e-3, MaxIter: 2}, geometric(1, func(int) int { return 3 }), Failed, 2, "skipped"},
		{"not finite", bg, Loop{Tol: 1e-3, MaxIter: 50}, func(context.Context, int, float64) (Sweep, error) { return Sweep{Change: math.NaN()}, nil }, Diverged, 1, "not finite"},
		{"pending", bg, Loop{Tol: 1e-3, MaxIter: 3}, func(context.Context, int, float64) (Sweep, error) { return Sweep{Change: math.Inf(1)}, nil }, IterationLimit, 3, ""},
		{"error", bg, Loop{Tol: 1e-3, MaxIter: 50}, func(context.Context, int, float64) (Sweep, error) { return Sweep{}, errors.New("improper") }, Diverged, 1, "sweep 1: improper"},
		{"halt", bg, Loop{Tol: 1e-3, MaxIter: 50}, func(context.Context, int, float64) (Sweep, error) { return Sweep{}, &Halt{Failed, "worker"} }, Failed, 1, "worker"},
		{"canceled", canceled, Loop{Tol: 1e-3, MaxIter: 50}, geometric(1, none), Canceled, 0, "canceled"},
		{"damping below the floor", bg, Loop{Tol: 1e-3, MaxIter: 50, Damping: 1e-200}, geometric(1e-200, none), Failed, 0, "below"},
	} {
		o := Iterate(c.ctx, c.loop, c.sweep)
		if o.Status != c.want || o.Iterations != c.iters || !strings.Contains(o.Message, c.msg) || len(o.Trace) > o.Iterations {
			t.Errorf("%s: %v after %d sweeps (%q, trace %d), want %v after %d (%q)", c.name, o.Status, o.Iterations, o.Message, len(o.Trace), c.want, c.iters, c.msg)
		}
	}
}

// TestIterateTrace: the trace is R = change / damping, the progress sees
// the same numbers with the sweep numbers after Start.
func TestIterateTrace(t *testing.T) {
	var seen []int
	o := Iterate(context.Background(), Loop{Tol: 0.2, MaxIter: 10, Damping: 0.5, Start: 4,
		Progress: func(it int, r float64) { seen = append(seen, it) }}, func(ctx context.Context, it int, d float64) (Sweep, error) {
		return geometric(0.5, nil)(ctx, it-4, d)
	})
	want := []float64{1, 0.5, 0.25, 0.125}
	if o.Status != Converged || len(o.Trace) != len(want) {
		t.Fatalf("%v, trace %v", o.Status, o.Trace)
	}
	for i, r := range want {
		if o.Trace[i] != r || seen[i] != 5+i {
			t.Errorf("sweep %d: R %g, progress %d; want %g, %d", i, o.Trace[i], seen[i], r, 5+i)
		}
	}
	if o.Updates != 12 || o.Skipped != 0 {
		t.Errorf("updates %d, skipped %d", o.Updates, o.Skipped)
	}
}

// TestCheckDamping: the floor is part of the documented range.
func TestCheckDamping(t *testing.T) {
	for d, ok := range map[float64]bool{1: true, 0.5: true, MinDamping: true, MinDamping / 2: false, 1e-200: false, 0: false, 1.5: false, math.NaN(): false} {
		if err := CheckDamping(d); (err == nil) != ok {
			t.Errorf("CheckDamping(%g) = %v", d, err)
		}
	}
}
