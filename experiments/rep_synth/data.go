package main

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The generative model of qi-guo §6.1 ("synthetic data"): class +1 from one
// Gaussian, class −1 from an equal mixture of two Gaussians. The paper shows
// the data only in a figure; these parameters are ours, chosen so that the
// Bayes boundary is curved (class −1 sits on both sides above class +1):
//
//	class +1: N((0, −0.3), 0.7² I)
//	class −1: ½ N((−1.6, 1.0), 0.55² I) + ½ N((1.6, 1.0), 0.55² I)
var (
	muPos   = []float64{0, -0.3}
	sdPos   = 0.7
	muNeg   = [][]float64{{-1.6, 1.0}, {1.6, 1.0}}
	sdNeg   = 0.55
	perSide = 200
)

func drawPoint(rng *rand.Rand, positive bool) []float64 {
	if positive {
		return []float64{muPos[0] + sdPos*rng.NormFloat64(), muPos[1] + sdPos*rng.NormFloat64()}
	}
	c := muNeg[rng.IntN(2)]
	return []float64{c[0] + sdNeg*rng.NormFloat64(), c[1] + sdNeg*rng.NormFloat64()}
}

// dataset is one training set (labels flipped at the given rate) with its
// clean test set.
type dataset struct {
	X     *mat.Dense
	y     []float64 // observed (possibly flipped) labels
	clean []float64 // true labels
	Xs    *mat.Dense
	ys    []float64
}

// sample draws perSide points per class, flips round(rate·n) labels chosen
// uniformly without replacement, and draws nTest clean test points (half
// per class).
func sample(seed uint64, rate float64, nTest int) *dataset {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	n := 2 * perSide
	d := &dataset{X: mat.NewDense(n, 2, nil), y: make([]float64, n), clean: make([]float64, n)}
	for i := 0; i < n; i++ {
		pos := i < perSide
		d.X.SetRow(i, drawPoint(rng, pos))
		d.clean[i] = -1
		if pos {
			d.clean[i] = 1
		}
		d.y[i] = d.clean[i]
	}
	flip := int(math.Round(rate * float64(n)))
	for _, i := range rng.Perm(n)[:flip] {
		d.y[i] = -d.y[i]
	}
	d.Xs = mat.NewDense(nTest, 2, nil)
	d.ys = make([]float64, nTest)
	for i := 0; i < nTest; i++ {
		pos := i%2 == 0
		d.Xs.SetRow(i, drawPoint(rng, pos))
		d.ys[i] = -1
		if pos {
			d.ys[i] = 1
		}
	}
	return d
}
