package learn

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
)

// affineSites are 3 sites whose natural parameters are affine in x ∈ ℝ².
func affineSites(x []float64) [][]families.Gaussian {
	s := make([]families.Gaussian, 3)
	for i := range s {
		f := float64(i + 1)
		s[i] = families.Gaussian{Prec: 2 + f*x[0] - 0.5*x[1], Shift: f - x[0] + 3*f*x[1]}
	}
	return [][]families.Gaussian{s}
}

// TestWarmStartAffine: sites that are affine in x are extrapolated exactly,
// from three points in general position (any new x) and from collinear
// points (a line search: new x on their line); the coefficients come from
// the most recent independent differences.
func TestWarmStartAffine(t *testing.T) {
	cases := []struct {
		name string
		hist [][]float64
		x    []float64
	}{
		{"general", [][]float64{{0, 0}, {1, 0.2}, {0.3, 1}}, []float64{2, -1}},
		{"line search", [][]float64{{0, 0}, {1, 1}, {0.5, 0.5}}, []float64{0.7, 0.7}},
		{"repeated point", [][]float64{{1, 1}, {0, 0}, {1, 1}, {0.2, 0.1}}, []float64{-0.4, 0.3}},
	}
	for _, c := range cases {
		var w warmStart
		for _, x := range c.hist {
			w.add(x, affineSites(x))
		}
		w.at(c.x)
		got, want := w.predict(0, 3), affineSites(c.x)[0]
		if got == nil {
			t.Fatalf("%s: no prediction", c.name)
		}
		for i := range want {
			if !(math.Abs(got[i].Prec-want[i].Prec) <= 1e-12) || !(math.Abs(got[i].Shift-want[i].Shift) <= 1e-12) {
				t.Errorf("%s: site %d predicted %+v, affine %+v", c.name, i, got[i], want[i])
			}
		}
	}
}

// TestWarmStartFallbacks: no prediction before two evaluations or for a
// block of another size; a predicted precision that changes sign keeps the
// last evaluation's site.
func TestWarmStartFallbacks(t *testing.T) {
	var w warmStart
	w.at([]float64{1, 1})
	if w.predict(0, 3) != nil || w.last(0, 3) != nil {
		t.Error("prediction without any evaluation")
	}
	w.add([]float64{0, 0}, affineSites([]float64{0, 0}))
	w.at([]float64{1, 1})
	if w.predict(0, 3) != nil {
		t.Error("prediction from one evaluation")
	}
	if w.last(0, 3) == nil || w.last(0, 4) != nil || w.last(1, 3) != nil {
		t.Error("last sites: wrong block or size accepted")
	}
	w.add([]float64{1, 0}, affineSites([]float64{1, 0}))
	w.at([]float64{-10, 0}) // τ_i = 2 − 10 i < 0 for every site
	got, last := w.predict(0, 3), w.last(0, 3)
	for i := range got {
		if got[i] != last[i] {
			t.Errorf("site %d: precision changes sign, predicted %+v, want the last %+v", i, got[i], last[i])
		}
	}
}

// TestOptimizeWarmMatchesCold: learning with the extrapolated warm start
// and the gradient-scaled EP tolerance (the default) reaches the optimum of
// the reference that runs every EP from flat sites to 1e-9 — log Z_EP to
// 1e-9 and the learned values to 1e-6 (the optimiser's GradTol is 1e-5, its
// Hessian there of order 10) — with at most 60% of its EP sweeps, on
// toy2d_se_probit from (0, 0) and pima_ripley_se_probit from (1, 0.5)
// (GPML's starts).
func TestOptimizeWarmMatchesCold(t *testing.T) {
	for _, c := range []struct {
		name string
		x0   []float64
	}{{"toy2d_se_probit", []float64{0, 0}}, {"pima_ripley_se_probit", []float64{1, 0.5}}} {
		X, y := gpmlData(t, c.name, "train.csv")
		build := seBuilder(X, y, probit)
		params := []Param{{Name: "log_ell", Init: c.x0[0]}, {Name: "log_sf", Init: c.x0[1]}}
		warm, err := Optimize(context.Background(), build, params, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		cold, err := Optimize(context.Background(), build, params, Settings{cold: true})
		if err != nil {
			t.Fatal(err)
		}
		if warm.Status != infer.Converged || cold.Status != infer.Converged {
			t.Fatalf("%s: status %v (warm), %v (cold)", c.name, warm.Status, cold.Status)
		}
		if d := math.Abs(warm.LogZ - cold.LogZ); !(d <= 1e-9) {
			t.Errorf("%s: log Z %.12f warm, %.12f cold (diff %.2g)", c.name, warm.LogZ, cold.LogZ, d)
		}
		for i := range warm.X {
			if d := math.Abs(warm.X[i] - cold.X[i]); !(d <= 1e-6) {
				t.Errorf("%s: x[%d] = %.10f warm, %.10f cold (diff %.2g)", c.name, i, warm.X[i], cold.X[i], d)
			}
		}
		if float64(warm.EPSweeps) > 0.6*float64(cold.EPSweeps) {
			t.Errorf("%s: %d EP sweeps warm, %d cold", c.name, warm.EPSweeps, cold.EPSweeps)
		}
		t.Logf("%s: warm %d evaluations, %d sweeps, nlZ %.12f at %.10f; cold %d, %d, %.12f at %.10f", c.name,
			len(warm.Trace), warm.EPSweeps, -warm.LogZ, warm.X, len(cold.Trace), cold.EPSweeps, -cold.LogZ, cold.X)
	}
}
