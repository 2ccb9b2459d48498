package fgraph

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/fg-infer/fg/families"
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
			st.belief[v] = families.Gaussian{Prec: math.Exp(3 * rng.NormFloat64()), Shift: rng.NormFloat64()}
		}
		switch trial % 3 {
		case 1:
			st.belief[trial%d] = families.Gaussian{} // one flat incoming message
		case 2:
			st.belief[trial%d].Prec = 1e-9 // one dominant variance
		}
		out := make([]families.Gaussian, d)
		if fk := g.fac(0); !gaussianMessages(st, &fk, out) {
			t.Fatal("skipped")
		}
		for e := 0; e < d; e++ {
			fk := g.fac(0)
			want, _ := gaussianMessage(st, &fk, e)
			if !scalar.EqualWithinAbsOrRel(out[e].Prec, want.Prec, 1e-12, 1e-9) || !scalar.EqualWithinAbsOrRel(out[e].Shift, want.Shift, 1e-12, 1e-9) {
				t.Fatalf("trial %d, edge %d: %+v, direct %+v", trial, e, out[e], want)
			}
		}
	}
}
