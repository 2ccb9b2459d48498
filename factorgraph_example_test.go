package fg_test

import (
	"context"
	"fmt"

	fg "github.com/fg-infer/fg"
)

// Run a factor-graph model (eight schools: a hierarchy whose mean mu is a
// latent scalar) and read a scalar latent, an element of a vector latent
// and their shapes; ep is one forward–backward pass on this tree, exact
// the same linear-Gaussian solution.
func Example_factorGraph() {
	m, err := fg.Load("examples/eight_schools.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background(), fg.Only("ep", "exact"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.All() {
		mu, _ := r.Mean("mu", 0)
		th, _ := r.Variance("theta", 3)
		s1, _ := r.Shape("mu")
		s2, _ := r.Shape("theta")
		logZ, _ := r.LogZ()
		fmt.Printf("%-5s %-9s mu = %.4f (shape %v)  var theta[3] = %.4f (shape %v)  log Z = %.4f\n", r.Label(), r.Status(), mu, s1, th, s2, logZ)
	}
	// Output:
	// ep    converged mu = 6.5327 (shape [])  var theta[3] = 32.2520 (shape [8])  log Z = -31.1422
	// exact done      mu = 6.5327 (shape [])  var theta[3] = 32.2520 (shape [8])  log Z = -31.1422
}
