package fg_test

import (
	"context"
	_ "embed"
	"fmt"

	fg "github.com/fg-infer/fg"
)

//go:embed testdata/toy.fg
var toySource []byte

// Load a model embedded in the binary, override a param and list what
// would run.
func ExampleLoadBytes() {
	m, err := fg.LoadBytes("testdata/toy.fg", toySource)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Set("eps", "0.1"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name(), m.Labels(), m.Overrides())
	fmt.Println(m.NumExpects(), "expect statements")
	// An unknown param is an error with a position.
	fmt.Println(m.Set("epsilon", "0.1"))
	// Output:
	// gpc_toy [ep ep_relaxed_kl mcmc] [eps=0.1]
	// 2 expect statements
	// testdata/toy.fg: Set("epsilon", …): the model has no param `epsilon` (params: `eps`)
}

// Run a conjugate model and read the posterior of each infer line by name
// and element: EP is exact for a Gaussian likelihood, and `exact`
// integrates by quadrature.
func ExampleResult_Mean() {
	m, err := fg.Load("testdata/linreg.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.All() {
		mean, _ := r.Mean("w", 1)
		variance, _ := r.Variance("w", 1)
		logZ, _ := r.LogZ()
		fmt.Printf("%-5s %-9s w[1] = %.4f ± %.4f  log Z = %.4f\n", r.Label(), r.Status(), mean, variance, logZ)
	}
	// Output:
	// ep    converged w[1] = 0.8094 ± 0.0896  log Z = -5.1151
	// exact done      w[1] = 0.8094 ± 0.0896  log Z = -5.1151
}

// Marginal probabilities of a discrete latent by state label.
func ExampleResult_Prob() {
	m, err := fg.Load("testdata/pair.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background(), fg.Only("bp"))
	if err != nil {
		fmt.Println(err)
		return
	}
	bp := res.Get("bp")
	for i := 0; i < 2; i++ {
		p, _ := bp.Prob("x", i, "+1")
		fmt.Printf("P(x[%d] = +1) = %.4f\n", i, p)
	}
	// Output:
	// P(x[0] = +1) = 0.6475
	// P(x[1] = +1) = 0.5085
}

// Check a model's expect statements against its results, as `fg test` does.
func ExampleResults_Expects() {
	m, err := fg.Load("testdata/linreg.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	es := res.Expects()
	for _, e := range es {
		fmt.Println(e.Pass, e.Pos, e.Label)
	}
	fmt.Println("failed:", fg.Failed(es))
	// Output:
	// true testdata/linreg.fg:17:1 ep
	// true testdata/linreg.fg:18:1 ep
	// failed: false
}

// A latent of a non-Gaussian family: its marginal with the family's
// parameters, and the evidence lower bound that variational message
// passing (alpha(0)) reports in place of log Z.
func ExampleResult_Dist() {
	m, err := fg.Load("testdata/coin.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.All() {
		d, _ := r.Dist("p", 0)
		logZ, _ := r.LogZ()
		fmt.Printf("%-5s %s  log Z = %.4f  ELBO: %v\n", r.Label(), d, logZ, r.ELBO())
	}
	// Output:
	// ep    Beta(9, 5)  log Z = -6.9777  ELBO: false
	// vmp   Beta(9, 5)  log Z = -6.9777  ELBO: true
	// exact Beta(9, 5)  log Z = -6.9777  ELBO: false
}
