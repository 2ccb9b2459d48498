package fgraph

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/mcmc"
)

// mixedSampler runs Gibbs on the discrete variables with elliptical slice
// sampling on the continuous ones (mcmc.RunMixed) on g.
func mixedSampler(t *testing.T, g *Graph, s mcmc.Settings) *mcmc.MixedResult {
	t.Helper()
	mean, cov, err := g.Gaussian()
	if err != nil {
		t.Fatal(err)
	}
	ll, local, err := g.LogLikelihood()
	if err != nil {
		t.Fatal(err)
	}
	res, err := mcmc.RunMixed(context.Background(), mcmc.MixedProblem{Mean: mean, Cov: cov, Prior: g.Priors(), LogLik: ll, Local: local}, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.Done {
		t.Fatalf("mcmc: %v (%s)", res.Status, res.Message)
	}
	return res
}

// TestMixtureMCMC: Gibbs on the assignments and elliptical slice sampling
// on the means agree with the enumeration within 4 Monte Carlo standard
// errors in the component means and variances and every p(z_i).
func TestMixtureMCMC(t *testing.T) {
	mean, vr, prob, _ := mixtureEnumeration(mix10)
	res := mixedSampler(t, mixtureGraph(mix10), mcmc.Settings{Samples: 4000, Chains: 4, Seed: 14})
	checkWithinSE(t, "mu", res, mean, vr, prob)
}

// checkWithinSE fails unless the sampler's means, variances and p(z_i = 1)
// are within 4 Monte Carlo standard errors of the exact ones (NaN fails).
func checkWithinSE(t *testing.T, name string, res *mcmc.MixedResult, mean, vr []float64, prob [][]float64) {
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
