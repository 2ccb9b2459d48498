package fgraph_test

import (
	"context"
	"fmt"

	"github.com/fg-infer/fg/infer/fgraph"
)

// A random walk x_0 ~ N(0, 10), x_t ~ N(x_{t−1}, 1) observed with noise
// variance 1 at t = 0 and t = 2: one forward–backward pass gives the
// smoothed marginals and the exact log marginal likelihood. By hand: y =
// (y_0, y_2) is Gaussian with covariance C = [11 10; 10 13] (det 43) and
// Cov(x_1, y) = (10, 11), so E[x_1 | y] = (10, 11) C⁻¹ y = 62/43 = 1.4419,
// Var = 11 − 431/43 = 0.9767 and log p(y) = −log 2π − ½ log 43 − ½·17/43
// = −3.9161.
func Example() {
	g := fgraph.NewGraph(3)
	g.AddGaussian([]int{0}, []float64{1}, 0, 0, 10) // x_0 ~ N(0, 10)
	for t := 1; t < 3; t++ {
		g.AddGaussian([]int{t, t - 1}, []float64{1, -1}, 0, 0, 1) // x_t ~ N(x_{t−1}, 1)
	}
	g.AddGaussian([]int{0}, []float64{1}, 0, 1.0, 1) // y_0 = 1.0
	g.AddGaussian([]int{2}, []float64{1}, 0, 2.0, 1) // y_2 = 2.0
	res, err := fgraph.Run(context.Background(), g, fgraph.Settings{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Iterations)
	for t := range 3 {
		fmt.Printf("x[%d] = %.4f ± %.4f\n", t, res.Mean[t], res.Var[t])
	}
	fmt.Printf("log Z = %.4f\n", res.LogZ)
	// Output:
	// converged 1
	// x[0] = 1.1628 ± 0.6977
	// x[1] = 1.4419 ± 0.9767
	// x[2] = 1.7209 ± 0.7442
	// log Z = -3.9162
}
