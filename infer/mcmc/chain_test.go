package mcmc

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fg-infer/fg/internal/mathx"
	"github.com/fg-infer/fg/internal/testkit"
)

// probitWalkProblem is the probit walk of testkit.ProbitWalkLabels as a
// ChainProblem: x_0 ~ N(0, 1), x_t ~ N(x_{t−1}, q), sites Φ(y_t x_t).
func probitWalkProblem(T int, q float64) ChainProblem {
	ys := testkit.ProbitWalkLabels(T, q)
	p := ChainProblem{N: T + 1}
	p.Gaussians = append(p.Gaussians, LinearFactor{Vars: []int{0}, Coefs: []float64{1}, Var: 1})
	for t := 1; t <= T; t++ {
		p.Gaussians = append(p.Gaussians, LinearFactor{Vars: []int{t, t - 1}, Coefs: []float64{1, -1}, Var: q})
	}
	for t, y := range ys {
		p.Sites = append(p.Sites, ChainSite{Vars: []int{t}, Coefs: []float64{1}, LogLik: func(f float64) float64 { return mathx.LogPhi(y * f) }})
	}
	return p
}

func TestChainProbitWalkExperiment(t *testing.T) {
	const T, q = 500, 0.1
	mean, vr := testkit.GridSmoother(testkit.ProbitWalkLabels(T, q), q, -20, 25, 0.02)
	for _, P := range []int{16, 32} {
		res, err := RunChain(context.Background(), probitWalkProblem(T, q), ChainSettings{Samples: 1000, Particles: P, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		zm, zv := 0.0, 0.0
		for i := range mean {
			zm = math.Max(zm, math.Abs(res.Mean[i]-mean[i])/res.MeanSE[i])
			zv = math.Max(zv, math.Abs(res.Var[i]-vr[i])/res.VarSE[i])
		}
		t.Logf("P=%d: %v, min ESS %.0f, max R-hat %.4f, max z mean %.2f var %.2f; x[486] %.3f ± %.3f (grid %.3f ± %.3f) ESS %.0f",
			P, res.Runtime, slices.Min(res.ESS), slices.Max(res.RHat), zm, zv, res.Mean[486], res.Var[486], mean[486], vr[486], res.ESS[486])
	}
}
