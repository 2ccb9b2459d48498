package mcmc

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/exact"
	nt "github.com/fg-infer/fg/infer/netjoint/nettest"
)

// within4SE checks that every posterior mean and state probability of the
// sampler is within 4 Monte Carlo standard errors of exact's.
func within4SE(t *testing.T, n *graph.Net, s NetSettings, slice bool) {
	t.Helper()
	ex, err := exact.RunNet(context.Background(), n, exact.NetSettings{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runNet(context.Background(), n, s, slice)
	if err != nil {
		t.Fatal(err)
	}
	for v, nv := range n.Vars {
		got, want, se := r.Vars[v].Mean, ex.Vars[v].Mean, r.Vars[v].MeanSE
		if nv.Family == graph.Discrete {
			got, want, se = r.Vars[v].Probs, ex.Vars[v].Probs, r.Vars[v].ProbsSE
		}
		for k := range want {
			if d := math.Abs(got[k] - want[k]); !(d <= 4*se[k]) && !(d < 1e-12) {
				t.Errorf("%s[%d]: mcmc %.6g ± %.2g, exact %.6g: %.1f standard errors", nv.Name, k, got[k], se[k], want[k], d/se[k])
			}
		}
	}
}

func meanPrecision() *graph.Net {
	var n graph.Net
	mu := nt.Var(&n, "mu", graph.Gaussian, 1)
	tau := nt.Var(&n, "tau", graph.Gamma, 1)
	nt.Factor(&n, nt.NormalPrior, mu, nt.D("mean", 0), nt.D("var", 4))
	nt.Factor(&n, nt.Gamma, tau, nt.D("shape", 2), nt.D("rate", 1))
	for _, y := range []float64{1.2, 0.4, 2.1, 1.6, 0.9, 1.4} {
		nt.Obs(&n, nt.Normal, y, nt.V("mean", mu), nt.V("prec", tau))
	}
	return &n
}

// TestNetMeanPrecision: Gibbs on the two conjugate conditionals (μ | τ
// Gaussian, τ | μ Gamma) and, separately, slice sampling of both agree
// with exact's quadrature within 4 standard errors.
func TestNetMeanPrecision(t *testing.T) {
	s := NetSettings{Samples: 2000, Seed: 1}
	t.Run("gibbs", func(t *testing.T) { within4SE(t, meanPrecision(), s, false) })
	t.Run("slice", func(t *testing.T) { within4SE(t, meanPrecision(), s, true) })
}

// TestNetHMM: Gibbs on the states of a two-state HMM with known
// parameters (T = 8) agrees with forward–backward within 4 standard errors.
func TestNetHMM(t *testing.T) {
	ys := []float64{0.1, 1.9, 2.2, -0.3, 0.4, 2.6, 1.8, 0.0}
	A := [][]float64{{0.8, 0.2}, {0.3, 0.7}}
	var n graph.Net
	var prev int
	for i, y := range ys {
		z := nt.Var(&n, "z", graph.Discrete, 2)
		if i == 0 {
			nt.Factor(&n, nt.Categorical, z, nt.D("p", 0.6, 0.4))
		} else {
			nt.Factor(&n, nt.Categorical, z, nt.Select("p", prev, nt.D("p", A[0]...), nt.D("p", A[1]...)))
		}
		nt.Obs(&n, nt.Normal, y, nt.Select("mean", z, nt.D("mean", 0), nt.D("mean", 2)), nt.D("var", 0.6))
		prev = z
	}
	within4SE(t, &n, NetSettings{Samples: 2000, Seed: 2}, false)
}

// TestNetMixtureWeights: a mixture with Dirichlet weights and known
// component means (Gibbs on the assignments and the weights; slice
// sampling of the weights on the additive logistic coordinates) agrees
// with exact's enumeration within 4 standard errors.
func TestNetMixtureWeights(t *testing.T) {
	build := func() *graph.Net {
		var n graph.Net
		w := nt.Var(&n, "w", graph.Dirichlet, 3)
		nt.Factor(&n, nt.Dirichlet, w, nt.D("alpha", 1, 2, 1.5))
		for _, y := range []float64{-2.1, -1.7, 0.2, 0.5, -0.1, 2.8} {
			z := nt.Var(&n, "z", graph.Discrete, 3)
			nt.Factor(&n, nt.Categorical, z, nt.V("p", w))
			nt.Obs(&n, nt.Normal, y, nt.Select("mean", z, nt.D("mean", -2), nt.D("mean", 0), nt.D("mean", 2.5)), nt.D("var", 1))
		}
		return &n
	}
	s := NetSettings{Samples: 2000, Seed: 3}
	t.Run("gibbs", func(t *testing.T) { within4SE(t, build(), s, false) })
	t.Run("slice", func(t *testing.T) { within4SE(t, build(), s, true) })
}

// TestNetBetaBinomialSlice: slice sampling on the logit of a Beta
// variable agrees with the closed-form posterior within 4 standard errors.
func TestNetBetaBinomialSlice(t *testing.T) {
	var n graph.Net
	p := nt.Var(&n, "p", graph.Beta, 1)
	nt.Factor(&n, nt.Beta, p, nt.D("a", 1.5), nt.D("b", 2.5))
	for _, y := range []float64{3, 7, 4} {
		nt.Obs(&n, nt.Binomial, y, nt.D("n", 10), nt.V("p", p))
	}
	within4SE(t, &n, NetSettings{Samples: 2000, Seed: 4}, true)
}

// TestNetCanceled: a canceled context ends sampling with infer.Canceled.
func TestNetCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := RunNet(ctx, meanPrecision(), NetSettings{Samples: 1000})
	if err == nil || r == nil || r.Status != infer.Canceled {
		t.Fatalf("result %+v, err %v; want canceled", r, err)
	}
}

// TestNetLeftToRightHMM: a chain whose state 1 is absorbing and which
// starts in state 0 (T = 20): almost no uniform draw of the states has
// positive probability, so the chains start from a repaired path; Gibbs
// then agrees with forward–backward within 4 standard errors. (The
// emissions are weak, var 4, so that no state probability is far below
// 1/ESS, which no sampler's standard error can see: package doc.)
func TestNetLeftToRightHMM(t *testing.T) {
	var n graph.Net
	prev := -1
	for i := 0; i < 20; i++ {
		y := -0.3
		if i >= 9 {
			y = 1.4
		}
		z := nt.Var(&n, "z", graph.Discrete, 2)
		if prev < 0 {
			nt.Factor(&n, nt.Categorical, z, nt.D("p", 1, 0))
		} else {
			nt.Factor(&n, nt.Categorical, z, nt.Select("p", prev, nt.D("p", 0.9, 0.1), nt.D("p", 0, 1)))
		}
		nt.Obs(&n, nt.Normal, y, nt.Select("mean", z, nt.D("mean", 0), nt.D("mean", 1)), nt.D("var", 4))
		prev = z
	}
	within4SE(t, &n, NetSettings{Samples: 2000, Seed: 5}, false)
}

// regression is y_i ~ normal(w0 + w1 x_i, 1 / tau) at x = 1..8 with
// w ~ N(0, 10) and tau ~ Gamma(2, 1): the weights' posterior correlation
// is about −0.9.
func regression() *graph.Net {
	var n graph.Net
	w0 := nt.Var(&n, "w0", graph.Gaussian, 1)
	w1 := nt.Var(&n, "w1", graph.Gaussian, 1)
	tau := nt.Var(&n, "tau", graph.Gamma, 1)
	nt.Factor(&n, nt.NormalPrior, w0, nt.D("mean", 0), nt.D("var", 10))
	nt.Factor(&n, nt.NormalPrior, w1, nt.D("mean", 0), nt.D("var", 10))
	nt.Factor(&n, nt.Gamma, tau, nt.D("shape", 2), nt.D("rate", 1))
	for i, y := range []float64{1.9, 2.8, 4.3, 4.9, 6.2, 7.1, 7.8, 9.3} {
		mean := graph.Edge{Name: "mean", Vars: []int{w0, w1}, Coefs: []float64{1, float64(i + 1)}}
		nt.Obs(&n, nt.Normal, y, mean, nt.V("prec", tau))
	}
	return &n
}

// TestNetRegression: Bayesian linear regression with unknown noise: the
// weights drawn jointly (blocked Gibbs) and tau by its Gamma conditional
// agree with exact (tau by quadrature, the weights in closed form) within
// 4 standard errors; the weights' ESS is above 1000 of 8000 draws.
func TestNetRegression(t *testing.T) {
	s := NetSettings{Samples: 2000, Seed: 6}
	within4SE(t, regression(), s, false)
	r, err := RunNet(context.Background(), regression(), s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Conjugate != 3 {
		t.Errorf("%d variables drawn exactly, want 3", r.Conjugate)
	}
	for v := 0; v < 2; v++ {
		if e := r.Vars[v].ESS[0]; !(e > 1000) {
			t.Errorf("w%d: ESS %.0f of 8000 draws", v, e)
		}
	}
}

// TestNetRandomWalk: a random walk x[t] ~ N(0.9 x[t−1], 1/q) with a
// Gamma(2, 1) process precision q, seen through N(x[t], 0.3) at T = 40:
// the states drawn as one banded block and q from its Gamma conditional
// agree with exact (q by quadrature, the states in closed form as a band)
// within 4 standard errors.
func TestNetRandomWalk(t *testing.T) {
	var n graph.Net
	q := nt.Var(&n, "q", graph.Gamma, 1)
	nt.Factor(&n, nt.Gamma, q, nt.D("shape", 2), nt.D("rate", 1))
	prev := -1
	for i := 0; i < 40; i++ {
		x := nt.Var(&n, "x", graph.Gaussian, 1)
		if prev < 0 {
			nt.Factor(&n, nt.NormalPrior, x, nt.D("mean", 0), nt.D("var", 1))
		} else {
			mean := graph.Edge{Name: "mean", Vars: []int{prev}, Coefs: []float64{0.9}}
			nt.Factor(&n, nt.NormalPrior, x, mean, nt.V("prec", q))
		}
		nt.Obs(&n, nt.Normal, math.Sin(float64(i)/4), nt.V("mean", x), nt.D("var", 0.3))
		prev = x
	}
	within4SE(t, &n, NetSettings{Samples: 1000, Seed: 7}, false)
}
