package ep_test

import (
	"context"
	"fmt"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/mat"
)

// GP classification of four 1-D points with a probit likelihood: build the
// Gram matrix with stdlib/kernel, run sequential EP, predict at a new input.
func Example() {
	X := mat.NewDense(4, 1, []float64{-2, -1, 1, 2})
	y := []float64{-1, -1, 1, 1}
	k := kernel.SE{Lengthscale: 1, Var: 1}
	p := &ep.Problem{Cov: k.Matrix(X)}
	for i := range y {
		p.Sites = append(p.Sites, ep.Site{Lik: ep.Probit{}, Y: y[i], Index: i})
	}
	res, err := ep.Run(context.Background(), p, ep.Settings{Settings: infer.Settings{Tol: 1e-9}})
	if err != nil {
		panic(err)
	}
	Xs := mat.NewDense(1, 1, []float64{0.5})
	m, v, _ := res.Predict(k.Cross(Xs, X), []float64{1}, nil)
	prob, _ := ep.Prob(ep.Probit{}, m, v)
	fmt.Println(res.Status)
	fmt.Printf("posterior mean of f: %.3f\n", res.Mean)
	fmt.Printf("log Z_EP = %.4f, p(y=+1 | x=0.5) = %.3f\n", res.LogZ, prob[0])
	// Output:
	// converged
	// posterior mean of f: [-0.763 -0.706 0.706 0.763]
	// log Z_EP = -2.4507, p(y=+1 | x=0.5) = 0.621
}
