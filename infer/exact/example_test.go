package exact_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer/exact"
)

// A scalar w ~ N(0, 1) observed once as y = 1 with noise variance 1: the
// closed form is w | y ~ N(0.5, 0.5) and log Z = log N(1; 0, 2) = −1.515512.
func ExampleRun() {
	p := exact.Problem{
		Mean: []float64{0},
		Cov:  mat.NewSymDense(1, []float64{1}),
		LogLik: func(w []float64) float64 {
			return -0.5*(1-w[0])*(1-w[0]) - 0.5*math.Log(2*math.Pi)
		},
	}
	res, err := exact.Run(context.Background(), p, exact.Settings{Tol: 1e-9})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: mean %.6f var %.6f logZ %.6f (error estimate ≤ 1e-9: %v)\n",
		res.Status, res.Mean[0], res.Var[0], res.LogZ, res.ErrEstimate <= 1e-9)
	// Output: done: mean 0.500000 var 0.500000 logZ -1.515512 (error estimate ≤ 1e-9: true)
}
