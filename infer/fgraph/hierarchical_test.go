package fgraph

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/mcmc"
	"github.com/fg-infer/fg/internal/mathx"
)

// hierProbit is hierarchical probit classification: weights w ~ N(0, I₂),
// a global mean mu ~ N(0, 1), group intercepts u_g ~ N(mu, 0.5²) and
// y_i ~ probit(x_iᵀw + u_{g(i)} + 0.2). Variables: w_0, w_1, mu, u_0 … u_{G−1}.
type hierProbit struct {
	X     [][2]float64
	group []int
	y     []float64
}

const hierGroups = 3

func newHierProbit(n int, seed uint64) hierProbit {
	rng := rand.New(rand.NewPCG(seed, 4))
	h := hierProbit{}
	u := []float64{-0.8, 0.1, 0.9}
	for i := 0; i < n; i++ {
		x := [2]float64{rng.NormFloat64(), rng.NormFloat64()}
		g := i % hierGroups
		f := 0.7*x[0] - 0.5*x[1] + u[g] + 0.2 + rng.NormFloat64()
		y := 1.0
		if f < 0 {
			y = -1
		}
		h.X, h.group, h.y = append(h.X, x), append(h.group, g), append(h.y, y)
	}
	return h
}

func (h hierProbit) graph() *Graph {
	g := NewGraph(3 + hierGroups)
	for v := 0; v < 3; v++ {
		g.AddGaussian([]int{v}, []float64{1}, 0, 0, 1)
	}
	for k := 0; k < hierGroups; k++ {
		g.AddGaussian([]int{3 + k, 2}, []float64{1, -1}, 0, 0, 0.25)
	}
	for i, x := range h.X {
		g.AddSite(ep.Probit{}, h.y[i], []int{0, 1, 3 + h.group[i]}, []float64{x[0], x[1], 1}, 0.2)
	}
	return g
}

func (h hierProbit) logLik(w []float64) float64 {
	s := 0.0
	for i, x := range h.X {
		s += mathx.LogPhi(h.y[i] * (x[0]*w[0] + x[1]*w[1] + w[3+h.group[i]] + 0.2))
	}
	return s
}

// Joint EP (family = full) against elliptical slice sampling on the joint
// Gaussian prior of the linear-Gaussian factors (infer/mcmc, an independent
// computation): every posterior mean within 4 Monte Carlo standard errors
// (EP's own error on 60 points is below the Monte Carlo error of 16000
// draws; the numbers are logged).
func TestHierarchicalProbitAgainstMCMC(t *testing.T) {
	h := newHierProbit(60, 11)
	g := h.graph()
	res, err := Run(context.Background(), g, Settings{Settings: infer.Settings{Tol: 1e-10}})
	if err != nil || res.Status != infer.Converged {
		t.Fatalf("%v %v", err, res.Status)
	}
	mean, cov, err := g.Gaussian()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := mcmc.RunESS(context.Background(), mcmc.Problem{Mean: mean, Cov: cov, LogLik: h.logLik},
		mcmc.Settings{Samples: 4000, Chains: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for v := range res.Mean {
		d := math.Abs(res.Mean[v] - ref.Mean[v])
		t.Logf("x[%d]: EP %.4f ± %.4f, mcmc %.4f ± %.4f (MCSE %.4f)", v, res.Mean[v], math.Sqrt(res.Var[v]), ref.Mean[v], math.Sqrt(ref.Var[v]), ref.MeanSE[v])
		if d > 4*ref.MeanSE[v] {
			t.Errorf("x[%d]: |EP − mcmc| = %.4f > 4 MCSE = %.4f", v, d, 4*ref.MeanSE[v])
		}
	}
}
