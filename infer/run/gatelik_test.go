package run

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/exact"
	"github.com/fg-infer/fg/infer/fgraph"
	"github.com/fg-infer/fg/infer/mcmc"
)

// gatedModel compiles src, a model with gated likelihoods, and returns its
// factor graph with the infer/fgraph graph of its closed-form likelihoods
// (for Enumerate and gated EP, the results the gold standards check).
func gatedModel(t *testing.T, src string) (*compile.FactorGraph, *fgraph.Graph) {
	t.Helper()
	m := compileSrc(t, src)
	fg := m.FactorGraph
	if fg == nil || len(fg.Gates) == 0 {
		t.Fatal("not a factor graph with gates")
	}
	j := &job{ctx: context.Background(), m: m, spec: &compile.InferSpec{}, res: &infer.Result{}}
	g, err := j.gatedGraph(fg, closedForm)
	if err != nil {
		t.Fatal(err)
	}
	return fg, g
}

// goldPrior is fg's joint Gaussian prior and gated likelihood.
func goldPrior(t *testing.T, fg *compile.FactorGraph) ([]float64, *mat.SymDense, *gatedLik) {
	t.Helper()
	mean, cov, _, err := fg.JointPrior()
	if err != nil {
		t.Fatal(err)
	}
	lik, err := newGatedLik(fg)
	if err != nil {
		t.Fatal(err)
	}
	return mean, cov, lik
}

// quadrature is the exact posterior of fg by adaptive cubature over its
// continuous variables (at most 3) with the selectors summed out
// (gatedLik.marginal); p(z_d = k) = E[p(z_d = k | x, y)].
func quadrature(t *testing.T, fg *compile.FactorGraph) (mean, vr []float64, prob [][]float64, logZ float64) {
	t.Helper()
	m0, cov, lik := goldPrior(t, fg)
	res, err := exact.Run(context.Background(), exact.Problem{Mean: m0, Cov: cov, LogLik: lik.marginal}, exact.Settings{Tol: 1e-8})
	if err != nil || res.Status != infer.Done {
		t.Fatalf("quadrature: %v %v", err, res)
	}
	var gs []func([]float64) float64
	for d, lp := range lik.logPrior {
		buf := make([]float64, len(lp))
		for k := range lp {
			gs = append(gs, func(x []float64) float64 { lik.posterior(x, d, buf); return buf[k] })
		}
	}
	vals, _, err := res.Expect(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	for _, lp := range lik.logPrior {
		prob = append(prob, vals[:len(lp)])
		vals = vals[len(lp):]
	}
	return res.Mean, res.Var, prob, res.LogZ
}

// mixedSampler runs Gibbs on the selectors with elliptical slice sampling
// on the continuous variables (mcmc.RunMixed) on fg.
func mixedSampler(t *testing.T, fg *compile.FactorGraph, s mcmc.Settings) *mcmc.MixedResult {
	t.Helper()
	mean, cov, lik := goldPrior(t, fg)
	res, err := mcmc.RunMixed(context.Background(), mcmc.MixedProblem{Mean: mean, Cov: cov, Prior: lik.priors(), LogLik: lik.logLik, Local: lik.local}, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.Done {
		t.Fatalf("mcmc: %v (%s)", res.Status, res.Message)
	}
	return res
}

// checkGated fails unless res's means, variances, p(z_i = 1) and log Z are
// within tm, tv, tp and tz of the reference.
func checkGated(t *testing.T, name string, res *fgraph.Result, mean, vr []float64, prob [][]float64, logZ, tm, tv, tp, tz float64) {
	t.Helper()
	for k := range mean {
		near(t, name+" mean", res.Mean[k], mean[k], tm)
		near(t, name+" var", res.Var[k], vr[k], tv)
	}
	for i := range prob {
		near(t, name+" p(z = 1)", res.Prob[i][1], prob[i][1], tp)
	}
	if !res.HasLogZ {
		t.Errorf("%s: no log Z", name)
	}
	near(t, name+" log Z", res.LogZ, logZ, tz)
}

// TestMixtureQuadratureEqualsEnumeration: the selector-marginalised
// quadrature (the gold standard of branches without Gaussian closed forms)
// equals Enumerate on the Gaussian mixture to 1e-6.
func TestMixtureQuadratureEqualsEnumeration(t *testing.T) {
	if testing.Short() {
		t.Skip("2-D cubature to 1e-9")
	}
	fg, g := gatedModel(t, mixtureSrc)
	mean, vr, prob, logZ := quadrature(t, fg)
	res, err := fgraph.Enumerate(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	checkGated(t, "quadrature", res, mean, vr, prob, logZ, 1e-6, 1e-6, 1e-6, 1e-6)
}

// TestMixtureMCMC: Gibbs on the assignments and elliptical slice sampling
// on the means agree with the enumeration within 4 Monte Carlo standard
// errors in the component means and variances and every p(z_i).
func TestMixtureMCMC(t *testing.T) {
	fg, g := gatedModel(t, mixtureSrc)
	want, err := fgraph.Enumerate(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	res := mixedSampler(t, fg, mcmc.Settings{Samples: 4000, Chains: 4, Seed: 14})
	checkMixedWithinSE(t, "mu", res, want.Mean, want.Var, want.Prob)
}

// expertsSrc is a mixture of two probit experts on one input:
// w_0 ~ N(2, 1), w_1 ~ N(−2, 1), z_i ~ Categorical(0.7, 0.3),
// s_i ~ probit(x_i w_{z_i}): most labels follow sign(x), some the opposite.
const expertsSrc = `
data x: real[12] = [-2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2, -1.2, 0.8, 1.7, -0.3]
data s: spin[12] = [-1, -1, -1, 1, 1, 1, 1, 1, 1, -1, -1, -1]
latent w: real[2] ~ normal([2, -2], 1)
latent z: cat(2)[12] ~ categorical([0.7, 0.3])
for i in 0..12 { s[i] ~ probit(x[i] * w[z[i]]) }
`

// TestProbitExpertsEP: EP with probit branches (closed-form tilted
// moments per branch) against quadrature. Measured errors: means 0.030,
// variances 0.074 (9% of 0.81: the posterior of w_0 is skewed), p(z_i)
// 0.011, log Z 0.020; the tolerances are about 1.6 times these.
func TestProbitExpertsEP(t *testing.T) {
	fg, g := gatedModel(t, expertsSrc)
	mean, vr, prob, logZ := quadrature(t, fg)
	res, err := fgraph.Run(context.Background(), g, fgraph.Settings{Settings: infer.Settings{Tol: 1e-9, MaxIter: 500}, Family: fgraph.Factorized})
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
	checkGated(t, "probit experts", res, mean, vr, prob, logZ, 0.05, 0.12, 0.02, 0.04)
}

// TestProbitExpertsMCMC: Gibbs with elliptical slice sampling on the
// probit experts within 4 Monte Carlo standard errors of quadrature.
func TestProbitExpertsMCMC(t *testing.T) {
	fg, _ := gatedModel(t, expertsSrc)
	mean, vr, prob, _ := quadrature(t, fg)
	res := mixedSampler(t, fg, mcmc.Settings{Samples: 4000, Seed: 3})
	checkMixedWithinSE(t, "w", res, mean, vr, prob)
}

// checkMixedWithinSE fails unless the sampler's means, variances and p(z_i = 1)
// are within 4 Monte Carlo standard errors of the exact ones (NaN fails).
func checkMixedWithinSE(t *testing.T, name string, res *mcmc.MixedResult, mean, vr []float64, prob [][]float64) {
	t.Helper()
	within := func(got, want, se float64) bool { return math.Abs(got-want) <= 4*se }
	for k := range mean {
		if !within(res.Mean[k], mean[k], res.MeanSE[k]) || !within(res.Var[k], vr[k], res.VarSE[k]) {
			t.Errorf("%s_%d: mcmc %.5g ± %.5g (se %.2g, %.2g), exact %.5g ± %.5g", name, k, res.Mean[k], res.Var[k], res.MeanSE[k], res.VarSE[k], mean[k], vr[k])
		}
	}
	for i := range prob {
		if !within(res.Prob[i][1], prob[i][1], res.ProbSE[i][1]) {
			t.Errorf("p(z_%d = 1): mcmc %.5g (se %.2g), exact %.5g", i, res.Prob[i][1], res.ProbSE[i][1], prob[i][1])
		}
	}
}

// noWeight is a likelihood under which every observation is impossible.
type noWeight struct{}

func (noWeight) LogLik(y, f float64) (v, g, h float64) { return math.Inf(-1), 0, 0 }

// TestGatedPosteriorImpossible: where y is impossible under every branch
// the selector's posterior is its prior — a distribution, not the log
// values it was computed from.
func TestGatedPosteriorImpossible(t *testing.T) {
	br := logTerm{d: noWeight{}, aff: graph.Form{Vars: []int{0}, Coefs: []float64{1}}}
	g := &gatedLik{gates: []gateTerm{{z: 0, branches: []logTerm{br, br}}},
		logPrior: [][]float64{{math.Log(0.3), math.Log(0.7)}}, of: [][]int{{0}}}
	out := make([]float64, 2)
	g.posterior([]float64{1}, 0, out)
	if !(math.Abs(out[0]-0.3) <= 1e-15 && math.Abs(out[1]-0.7) <= 1e-15) {
		t.Errorf("posterior %v, want the prior [0.3 0.7]", out)
	}
}
