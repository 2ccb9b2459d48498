package tep_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/tep"
)

// A Bayes point machine with a Student-t prior w ~ St(10, 0, I) and four
// noiseless step sites Θ(y wᵀx), solved by t-EP.
func ExampleRun() {
	p := &tep.Problem{Nu: 10, Scale: mat.NewSymDense(2, []float64{1, 0, 0, 1})}
	xs := [][]float64{{1, 0.3}, {0.8, -0.6}, {-1, 0.2}, {-0.9, -0.4}}
	ys := []float64{1, 1, -1, -1}
	for i := range xs {
		p.Sites = append(p.Sites, tep.Site{Lik: factor.Step{}, Y: ys[i], Proj: xs[i]})
	}
	r, err := tep.Run(context.Background(), p, infer.Settings{Divergence: infer.T{Nu: 10}, Tol: 1e-10}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	pr, _ := r.PredictProj([]float64{0.5, 0}, factor.Step{})
	fmt.Printf("%v, t = %.4f, mean w = [%.3f %.3f], p(y=+1 | x=[0.5 0]) = %.3f\n",
		r.Status, r.T, r.Mean[0], r.Mean[1], pr.Prob)
	// Output:
	// converged, t = 1.1667, mean w = [0.992 -0.090], p(y=+1 | x=[0.5 0]) = 0.969
}
