package fg_test

import (
	"context"
	"fmt"

	fg "github.com/fg-infer/fg"
)

// Learn a random walk's process variance q from binary labels: the model
// is a factor graph (a chain with probit sites), and its learn statement
// maximises the evidence ep reports on it before the infer line runs at
// the learned value.
func Example_learnFactorGraph() {
	m, err := fg.Load("examples/learn_random_walk.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res.Get("ep")
	q, _ := r.Learned("q")
	logZ, _ := r.LogZ()
	fmt.Printf("q = %.5f, log Z = %.5f, %s\n", q, logZ, r.Status())
	// Output:
	// q = 0.04764, log Z = -17.65462, converged
}
