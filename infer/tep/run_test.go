package tep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
)

// TestSchedulesSameFixedPoint: sequential, random, parallel and damped
// schedules reach the same posterior (to 1e-8) on a 200-point BPM with
// labeling noise.
func TestSchedulesSameFixedPoint(t *testing.T) {
	p := mixtureBPM(100, 6, 3)
	for i := range p.Sites {
		p.Sites[i].Lik = factor.Step{Eps: 0.05}
	}
	ref, err := Run(context.Background(), p, infer.Settings{Tol: 1e-12}, nil)
	if err != nil || ref.Status != infer.Converged {
		t.Fatalf("%v %v", err, ref.Status)
	}
	for _, s := range []infer.Settings{
		{Schedule: infer.Random, Seed: 3},
		{Schedule: infer.Parallel, Damping: 0.5},
		{Schedule: infer.Sequential, Damping: 0.5},
	} {
		s.Tol, s.MaxIter = 1e-12, 3000
		s.Divergence = infer.T{Nu: 6}
		r, err := Run(context.Background(), p, s, nil)
		name := fmt.Sprintf("%v damping %g", s.Schedule, s.Damping)
		if err != nil || r.Status != infer.Converged {
			t.Fatalf("%s: %v %v", name, err, r.Status)
		}
		for i := range ref.Mean {
			check(t, name+" mean", r.Mean[i], ref.Mean[i], 1e-8)
			check(t, name+" scale", r.Scale.At(i, i), ref.Scale.At(i, i), 1e-8)
		}
		check(t, name+" logZ", r.LogZ, ref.LogZ, 1e-8)
	}
}

// TestFixedPointIsMomentMatch: at convergence every site satisfies the EP
// condition — the escort-tilted moments of its cavity (by quadrature) are
// the posterior's (μ, Σ). ν = 4, labeling noise ε = 0.1, two outliers.
func TestFixedPointIsMomentMatch(t *testing.T) {
	p := mixtureBPM(40, 4, 8)
	for i := range p.Sites {
		p.Sites[i].Lik = factor.Step{Eps: 0.1}
		if i%20 == 0 {
			p.Sites[i].Y = -p.Sites[i].Y // outliers
		}
	}
	r, err := Run(context.Background(), p, infer.Settings{Tol: 1e-13}, nil)
	if err != nil || r.Status != infer.Converged {
		t.Fatalf("%v %v", err, r.Status)
	}
	for _, j := range []int{0, 5, 17} {
		c, ok := r.st.cavityOf(j)
		if !ok {
			t.Fatal("cavity not PD")
		}
		cav := cavityInW(t, r.st, c)
		mu, cov := escortTilted2(cav, p.Sites[j], p.Sites[j].Proj, r.T)
		compareSt(t, fmt.Sprintf("site %d", j), r, mu, cov)
	}
}

// TestCanceledAndInvalid: a canceled context gives Status Canceled with the
// context error; invalid problems are errors, not panics.
func TestCanceledAndInvalid(t *testing.T) {
	p := mixtureBPM(20, 4, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, p, infer.Settings{}, nil)
	if !errors.Is(err, context.Canceled) || r == nil || r.Status != infer.Canceled {
		t.Errorf("canceled: %v %v", err, r)
	}
	bad := []*Problem{
		{Nu: 0, Scale: p.Scale, Sites: p.Sites},
		{Nu: 3, Scale: mat.NewSymDense(2, []float64{1, 2, 2, 1}), Sites: p.Sites},
		{Nu: 3, Scale: p.Scale, Sites: []Site{{Lik: factor.Step{}, Y: 2, Proj: []float64{1, 1}}}},
		{Nu: 3, Scale: p.Scale, Sites: []Site{{Lik: factor.Step{Eps: 0.5}, Y: 1, Proj: []float64{1, 1}}}},
		{Nu: 3, Scale: p.Scale, Sites: []Site{{Lik: factor.Probit{}, Y: 1, Index: 5}}},
	}
	for i, b := range bad {
		if _, err := Run(context.Background(), b, infer.Settings{}, nil); err == nil {
			t.Errorf("bad problem %d accepted", i)
		}
	}
	if _, err := Run(context.Background(), p, infer.Settings{Divergence: infer.KL{}}, nil); err == nil {
		t.Error("KL divergence accepted")
	}
	if _, err := Run(context.Background(), p, infer.Settings{}, &Options{Order: []int{0, 0}}); err == nil {
		t.Error("bad order accepted")
	}
}

// TestNoNaNHardProblem: heavy label noise (a third of the labels flipped)
// and a small ν. With ε = 0 the labels are contradictory (the likelihood
// vanishes everywhere); with ε = 0.01 EP may not settle. Either way every
// reported number is finite: trouble shows as a status and skipped updates,
// never as NaN (a Diverged run reports no posterior).
func TestNoNaNHardProblem(t *testing.T) {
	for _, eps := range []float64{0.01, 0} {
		p := mixtureBPM(100, 1.5, 4)
		for i := range p.Sites {
			p.Sites[i].Lik = factor.Step{Eps: eps}
			if i%3 == 0 {
				p.Sites[i].Y = -p.Sites[i].Y
			}
		}
		for _, sch := range []infer.Schedule{infer.Sequential, infer.Parallel} {
			r, err := Run(context.Background(), p, infer.Settings{Schedule: sch, MaxIter: 50}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("eps %g %v: %v after %d sweeps, %d skipped, %d updates", eps, sch, r.Status, r.Iterations, r.Skipped, r.Updates)
			if eps == 0 && r.Status == infer.Converged {
				t.Errorf("contradictory labels reported as converged")
			}
			if r.Status != infer.Converged && r.HasLogZ {
				t.Errorf("log Z reported for a run that did not converge")
			}
			vals := append([]float64{}, r.Trace...)
			if r.Status == infer.Diverged {
				if r.Mean != nil || r.HasLogZ || r.Message == "" {
					t.Errorf("diverged run reports a posterior or no message")
				}
			} else {
				vals = append(append(vals, r.Mean...), r.LogZ, r.Scale.At(0, 0), r.Scale.At(0, 1))
			}
			for _, x := range vals {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("eps %g %v: non-finite output, status %v", eps, sch, r.Status)
				}
			}
		}
	}
}

func TestNilProblem(t *testing.T) {
	if _, err := Run(context.Background(), nil, infer.Settings{}, nil); err == nil {
		t.Error("nil problem accepted")
	}
	if _, err := Run(context.Background(), &Problem{Nu: 3}, infer.Settings{}, nil); err == nil {
		t.Error("problem without scale accepted")
	}
}
