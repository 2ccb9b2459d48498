package shard

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer/ep"
)

// probitData draws n points x ~ N(0, I_d) with labels from a probit model
// with weights (1, −0.5, 0.25, …) and returns the sites and the prior N(0, I).
func probitData(n, d int, seed uint64) ([]ep.Site, *mat.SymDense) {
	rng := rand.New(rand.NewPCG(seed, 7))
	sites := make([]ep.Site, n)
	for i := range sites {
		x := make([]float64, d)
		var f float64
		for j := range x {
			x[j] = rng.NormFloat64()
			f += x[j] / float64(1+j) * float64(1-2*(j%2))
		}
		y := 1.0
		if f+rng.NormFloat64() < 0 {
			y = -1
		}
		sites[i] = ep.Site{Lik: ep.Probit{}, Y: y, Proj: x}
	}
	return sites, identity(d)
}

func identity(d int) *mat.SymDense {
	c := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		c.SetSym(i, i, 1)
	}
	return c
}
