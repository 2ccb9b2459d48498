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

// Relaxed EP on the gated mixture through the Go API: each gate's
// relaxation weight is read by its factor label (b = 0 where the
// relaxation was pruned).
func ExampleResult_Relaxation_gates() {
	m, err := fg.Load("examples/mixture.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background(), fg.Only("relaxed"))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res.All()[0]
	mean, _ := r.Mean("mu", 0)
	fmt.Printf("%s mu[0] = %.4f  b(y[5]) = %.3f  b(y[0]) = %g\n", r.Status(), mean,
		r.Relaxation("normal(y[5] | z[5])"), r.Relaxation("normal(y[0] | z[0])"))
	// Output:
	// converged mu[0] = -1.6240  b(y[5]) = 4.045  b(y[0]) = 0
}
