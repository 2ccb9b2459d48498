package fgraph

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/floats/scalar"
)

// linearChain is x_0 ~ N(m0, p0), x_t ~ N(a x_{t−1} + b, q), y_t ~ N(x_t, r)
// at the observed steps (obs[t] true).
type linearChain struct {
	m0, p0, a, b, q, r float64
	obs                []bool
	y                  []float64
}

func newChain(T int, a, b float64, every int, seed uint64) linearChain {
	rng := rand.New(rand.NewPCG(seed, 1))
	c := linearChain{m0: 0.5, p0: 10, a: a, b: b, q: 0.3, r: 0.8, obs: make([]bool, T), y: make([]float64, T)}
	x := c.m0 + math.Sqrt(c.p0)*rng.NormFloat64()
	for t := 0; t < T; t++ {
		if t > 0 {
			x = c.a*x + c.b + math.Sqrt(c.q)*rng.NormFloat64()
		}
		if t%every == 0 || rng.Float64() < 0.3 {
			c.obs[t] = true
			c.y[t] = x + math.Sqrt(c.r)*rng.NormFloat64()
		}
	}
	return c
}

func (c linearChain) graph() *Graph {
	T := len(c.obs)
	g := NewGraph(T)
	g.AddGaussian([]int{0}, []float64{1}, 0, c.m0, c.p0)
	for t := 0; t < T; t++ {
		if t > 0 {
			g.AddGaussian([]int{t, t - 1}, []float64{1, -c.a}, -c.b, 0, c.q)
		}
		if c.obs[t] {
			g.AddGaussian([]int{t}, []float64{1}, 0, c.y[t], c.r)
		}
	}
	return g
}

// rts is the Kalman filter and Rauch–Tung–Striebel smoother, with the log
// likelihood by the prediction-error decomposition
// log p(y) = Σ_t log N(y_t; m_t|t−1, P_t|t−1 + r).
func (c linearChain) rts() (mean, vari []float64, logLik float64) {
	T := len(c.obs)
	mf, pf := make([]float64, T), make([]float64, T)
	mp, pp := make([]float64, T), make([]float64, T)
	for t := 0; t < T; t++ {
		if t == 0 {
			mp[t], pp[t] = c.m0, c.p0
		} else {
			mp[t], pp[t] = c.a*mf[t-1]+c.b, c.a*c.a*pf[t-1]+c.q
		}
		mf[t], pf[t] = mp[t], pp[t]
		if c.obs[t] {
			s := pp[t] + c.r
			e := c.y[t] - mp[t]
			logLik += -0.5*math.Log(2*math.Pi*s) - 0.5*e*e/s
			k := pp[t] / s
			mf[t], pf[t] = mp[t]+k*e, (1-k)*pp[t]
		}
	}
	mean, vari = make([]float64, T), make([]float64, T)
	mean[T-1], vari[T-1] = mf[T-1], pf[T-1]
	for t := T - 2; t >= 0; t-- {
		j := pf[t] * c.a / pp[t+1]
		mean[t] = mf[t] + j*(mean[t+1]-mp[t+1])
		vari[t] = pf[t] + j*j*(vari[t+1]-pp[t+1])
	}
	return mean, vari, logLik
}

func TestChainEqualsRTS(t *testing.T) {
	cases := []struct {
		name string
		a, b float64
	}{
		{"random walk", 1, 0},
		{"ar1 with drift", 0.9, 0.4},
	}
	for _, tc := range cases {
		for _, fam := range []Family{Full, Factorized} {
			t.Run(tc.name+"/"+fam.String(), func(t *testing.T) {
				c := newChain(200, tc.a, tc.b, 7, 3)
				if tc.a != 1 {
					c.obs[len(c.obs)-1] = false // an unobserved end: a flat message upward
				}
				res, err := Run(context.Background(), c.graph(), Settings{Family: fam})
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != infer.Converged || !res.Exact || res.Iterations != 1 {
					t.Fatalf("status %v exact %v after %d passes, want converged and exact after one", res.Status, res.Exact, res.Iterations)
				}
				mean, vari, ll := c.rts()
				for i := range mean {
					if !scalar.EqualWithinAbsOrRel(res.Mean[i], mean[i], 1e-9, 1e-9) ||
						!scalar.EqualWithinAbsOrRel(res.Var[i], vari[i], 1e-9, 1e-9) {
						t.Fatalf("x[%d]: %g ± %g, RTS %g ± %g", i, res.Mean[i], res.Var[i], mean[i], vari[i])
					}
				}
				if !res.HasLogZ || !scalar.EqualWithinAbsOrRel(res.LogZ, ll, 1e-9, 1e-9) {
					t.Fatalf("log Z %g (%v), Kalman prediction-error decomposition %g", res.LogZ, res.HasLogZ, ll)
				}
			})
		}
	}
}
