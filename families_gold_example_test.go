package fg_test

import (
	"context"
	"fmt"

	fg "github.com/fg-infer/fg"
)

// The gold standards on a model with non-Gaussian latents: the mean and
// precision of a Gaussian with independent normal and gamma priors.
// exact integrates tau by quadrature with mu in closed form at every
// node; mcmc is Gibbs on the two conjugate conditionals.
func ExampleResult_Mean_families() {
	m, err := fg.Load("examples/families/mean_precision.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	ex, mc := res.Get("exact"), res.Get("mcmc")
	mu, _ := ex.Mean("mu", 0)
	tau, _ := ex.Mean("tau", 0)
	logZ, _ := ex.LogZ()
	fmt.Printf("exact: mu = %.6f, tau = %.6f, log Z = %.6f\n", mu, tau, logZ)
	mu, _ = mc.Mean("mu", 0)
	tau, _ = mc.Mean("tau", 0)
	fmt.Printf("mcmc:  mu = %.2f, tau = %.2f\n", mu, tau)
	// Output:
	// exact: mu = 1.323663, tau = 1.512164, log Z = -12.461111
	// mcmc:  mu = 1.32, tau = 1.51
}
