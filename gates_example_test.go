package fg_test

import (
	"context"
	"fmt"

	fg "github.com/fg-infer/fg"
)

// A Gaussian mixture with discrete assignments through the Go API: the
// discrete latent z selects the component mean (a gated likelihood); every
// result carries p(z[i] = k).
func ExampleLoad_gates() {
	m, err := fg.Load("examples/mixture.fg")
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
		mean, _ := r.Mean("mu", 0)
		p, _ := r.Prob("z", 5, "1")
		logZ, _ := r.LogZ()
		fmt.Printf("%-5s %-9s mu[0] = %.4f  p(z[5] = 1) = %.4f  log Z = %.4f\n", r.Label(), r.Status(), mean, p, logZ)
	}
	// Output:
	// ep    converged mu[0] = -1.7591  p(z[5] = 1) = 0.5308  log Z = -20.3956
	// exact done      mu[0] = -1.7597  p(z[5] = 1) = 0.5306  log Z = -20.3943
}
