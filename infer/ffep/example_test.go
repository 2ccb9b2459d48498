package ffep_test

import (
	"context"
	"fmt"
	"math"

	"github.com/fg-infer/fg/infer/ffep"
	"github.com/fg-infer/fg/stdlib/loss"
)

// Tilted moments of a Gaussian factor exp(−(x − 1)²/2) under the cavity
// N(0, 1): VQ is exact for factors in the approximating family (the
// product is N(½, ½) with Z = N(0; 1, 2)).
func ExampleTilted1D() {
	f := func(x float64) (v, g, h float64) { return -(x - 1) * (x - 1) / 2, -(x - 1), -1 }
	m, err := ffep.Tilted1D(ffep.Scheme{Kind: ffep.VQ}, 0, 1, f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean %.6f var %.6f Z %.6f (exact %.6f)\n", m.Mean, m.Var, math.Exp(m.LogZ), math.Exp(-0.25)/math.Sqrt(2))
	// Output: mean 0.500000 var 0.500000 Z 0.550695 (exact 0.550695)
}

// FF-EP with variational quadrature on two mini-batches of a 2-D logistic
// classifier, one ADF pass.
func ExampleRunFF() {
	b1 := &loss.Batch{X: [][]float64{{1, 0.5}, {-1, 0.2}}, Y: []float64{1, -1}, Beta: 1, Loss: loss.Logistic{}}
	b2 := &loss.Batch{X: [][]float64{{0.8, -0.3}, {-0.5, -1}}, Y: []float64{1, -1}, Beta: 1, Loss: loss.Logistic{}}
	p := &ffep.Problem{PriorMean: []float64{0, 0}, PriorVar: []float64{25, 25}, Factors: []ffep.Potential{b1, b2}}
	res, err := ffep.RunFF(context.Background(), p, &ffep.Settings{Scheme: ffep.Scheme{Kind: ffep.VQ}, Passes: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.Updates, res.Skipped, res.Mean[0] > 0)
	// Output: done 2 0 true
}
