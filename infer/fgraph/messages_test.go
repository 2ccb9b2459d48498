package fgraph

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// The O(d) messages of a wide linear-Gaussian factor equal the one-at-a-time
// ones, with proper, flat and dominant incoming messages.
func TestWideGaussianMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const d = 40
	for trial := range 30 {
		g := NewGraph(d)
		vars, coefs := make([]int, d), make([]float64, d)
		for i := range vars {
			vars[i], coefs[i] = i, rng.NormFloat64()
		}
		g.AddGaussian(vars, coefs, 0.3, 1.2, 0.5)
		st := newState(g)
		for v := range st.belief {
			st.belief[v] = nat{math.Exp(3 * rng.NormFloat64()), rng.NormFloat64()}
		}
		switch trial % 3 {
		case 1:
			st.belief[trial%d] = nat{} // one flat incoming message
		case 2:
			st.belief[trial%d].Tau = 1e-9 // one dominant variance
		}
		out := make([]nat, d)
		if !gaussianMessages(g, st, 0, out) {
			t.Fatal("skipped")
		}
		for e := 0; e < d; e++ {
			want, _ := gaussianMessage(g, st, 0, e)
			if !scalar.EqualWithinAbsOrRel(out[e].Tau, want.Tau, 1e-12, 1e-9) || !scalar.EqualWithinAbsOrRel(out[e].Nu, want.Nu, 1e-12, 1e-9) {
				t.Fatalf("trial %d, edge %d: %+v, direct %+v", trial, e, out[e], want)
			}
		}
	}
}
