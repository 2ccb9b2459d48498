// Package benchdata makes the synthetic problems that cmd/fgbench and the
// backend comparison of internal/openblas run: a probit GP classification
// problem of any size (the same kind as infer/ep's benchmarks and the GPML
// speed comparison of docs/performance.md: 2-D inputs, labels by quadrant).
package benchdata

import (
	"math/rand/v2"

	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/mat"
)

// ProbitGP is a probit GP classification problem of size n: inputs drawn
// from N(0, I₂) by a PCG stream seeded by seed, an SE kernel (lengthscale
// 0.7, variance 2), labels y = sign(x₁ x₂) (XOR of the signs).
func ProbitGP(n int, seed uint64) *ep.Problem {
	X, y := ProbitGPData(n, seed)
	p := &ep.Problem{Cov: kernel.SE{Lengthscale: 0.7, Var: 2}.Matrix(X)}
	for i := 0; i < n; i++ {
		p.Sites = append(p.Sites, ep.Site{Lik: ep.Probit{}, Y: y[i], Index: i})
	}
	return p
}

// ProbitGPData returns the inputs X (n×2) and the ±1 labels of ProbitGP(n, seed).
func ProbitGPData(n int, seed uint64) (X *mat.Dense, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 17))
	X = mat.NewDense(n, 2, nil)
	y = make([]float64, n)
	for i := 0; i < n; i++ {
		X.Set(i, 0, rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
		y[i] = 1
		if X.At(i, 0)*X.At(i, 1) < 0 {
			y[i] = -1
		}
	}
	return X, y
}
