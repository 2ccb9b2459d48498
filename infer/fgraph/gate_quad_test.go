package fgraph

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/exact"
	"github.com/fg-infer/fg/infer/mcmc"
)

// quadrature is the exact posterior of g by adaptive cubature over its
// continuous variables (at most 3) with the discrete ones summed out
// (MarginalLogLikelihood); p(z_d = k) = E[p(z_d = k | x, y)].
func quadrature(t *testing.T, g *Graph) (mean, vr []float64, prob [][]float64, logZ float64) {
	t.Helper()
	m0, cov, err := g.Gaussian()
	if err != nil {
		t.Fatal(err)
	}
	ll, post, err := g.MarginalLogLikelihood()
	if err != nil {
		t.Fatal(err)
	}
	res, err := exact.Run(context.Background(), exact.Problem{Mean: m0, Cov: cov, LogLik: ll}, exact.Settings{Tol: 1e-8})
	if err != nil || res.Status != infer.Done {
		t.Fatalf("quadrature: %v %v", err, res)
	}
	var gs []func([]float64) float64
	for d, p := range g.Priors() {
		buf := make([]float64, len(p))
		for k := range p {
			gs = append(gs, func(x []float64) float64 { post(x, d, buf); return buf[k] })
		}
	}
	vals, _, err := res.Expect(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range g.Priors() {
		prob = append(prob, vals[:len(p)])
		vals = vals[len(p):]
	}
	return res.Mean, res.Var, prob, res.LogZ
}

// TestMixtureQuadratureEqualsEnumeration: the discrete-marginalised
// quadrature (the gold standard of branches without Gaussian closed forms)
// equals Enumerate on the Gaussian mixture to 1e-6.
func TestMixtureQuadratureEqualsEnumeration(t *testing.T) {
	if testing.Short() {
		t.Skip("2-D cubature to 1e-9")
	}
	g := mixtureGraph(mix10)
	mean, vr, prob, logZ := quadrature(t, g)
	res, err := Enumerate(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	checkMixture(t, "quadrature", res, mean, vr, prob, logZ, 1e-6, 1e-6, 1e-6, 1e-6)
}

// expertsGraph is a mixture of two probit experts on one input:
// w_0 ~ N(2, 1), w_1 ~ N(−2, 1), z_i ~ Categorical(0.7, 0.3),
// y_i ~ probit(x_i w_{z_i}): most labels follow sign(x), some the opposite.
func expertsGraph() *Graph {
	x := []float64{-2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2, -1.2, 0.8, 1.7, -0.3}
	y := []float64{-1, -1, -1, 1, 1, 1, 1, 1, 1, -1, -1, -1}
	g := NewGraph(2)
	g.AddGaussian([]int{0}, []float64{1}, 0, 2, 1)
	g.AddGaussian([]int{1}, []float64{1}, 0, -2, 1)
	for i := range x {
		z := g.AddDiscrete([]float64{0.7, 0.3})
		g.AddGate(z, y[i], []Branch{
			{Lik: ep.Probit{}, Vars: []int{0}, Coefs: []float64{x[i]}},
			{Lik: ep.Probit{}, Vars: []int{1}, Coefs: []float64{x[i]}},
		})
	}
	return g
}

// TestProbitExpertsEP: EP with probit branches (closed-form tilted
// moments per branch) against quadrature. Measured errors: means 0.030,
// variances 0.074 (9% of 0.81: the posterior of w_0 is skewed), p(z_i)
// 0.011, log Z 0.020; the tolerances are about 1.6 times these.
func TestProbitExpertsEP(t *testing.T) {
	g := expertsGraph()
	mean, vr, prob, logZ := quadrature(t, g)
	res, err := Run(context.Background(), g, Settings{Settings: infer.Settings{Tol: 1e-9, MaxIter: 500}, Family: Factorized})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.Converged {
		t.Fatalf("%v (%s)", res.Status, res.Message)
	}
	em, ev, ep := 0.0, 0.0, 0.0
	for k := range mean {
		em, ev = math.Max(em, math.Abs(res.Mean[k]-mean[k])), math.Max(ev, math.Abs(res.Var[k]-vr[k]))
	}
	for i := range prob {
		ep = math.Max(ep, math.Abs(res.Prob[i][1]-prob[i][1]))
	}
	t.Logf("errors: mean %.3g var %.3g p %.3g log Z %.3g", em, ev, ep, res.LogZ-logZ)
	checkMixture(t, "probit experts", res, mean, vr, prob, logZ, 0.05, 0.12, 0.02, 0.04)
}

// TestProbitExpertsMCMC: Gibbs with elliptical slice sampling on the
// probit experts within 4 Monte Carlo standard errors of quadrature.
func TestProbitExpertsMCMC(t *testing.T) {
	g := expertsGraph()
	mean, vr, prob, _ := quadrature(t, g)
	res := mixedSampler(t, g, mcmc.Settings{Samples: 4000, Seed: 3})
	checkWithinSE(t, "w", res, mean, vr, prob)
}
