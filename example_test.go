package fg_test

import (
	_ "embed"
	"fmt"

	fg "github.com/fg-infer/fg"
	"github.com/fg-infer/fg/infer"
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
	fmt.Println(len(m.Compiled().Expects), "expect statements")
	// An unknown param is an error with a position.
	fmt.Println(m.Set("epsilon", "0.1") != nil)
	// Output:
	// gpc_toy [ep ep_relaxed_kl mcmc] [eps=0.1]
	// 2 expect statements
	// true
}

// Check a model's expect statements against results (here made by hand;
// normally from Model.Run).
func ExampleResults_Expects() {
	m, err := fg.LoadBytes("testdata/toy.fg", toySource)
	if err != nil {
		fmt.Println(err)
		return
	}
	w := func(m0, m1 float64) []infer.Variable {
		return []infer.Variable{{Name: "w", Shape: []int{2}, Mean: []float64{m0, m1}, Var: []float64{0.1, 0.1}}}
	}
	res := &fg.Results{Model: m.Compiled(), List: []*infer.Result{
		{Label: "ep", Status: infer.Converged, Variables: w(0.54, -0.4)},
		{Label: "ep_relaxed_kl", Status: infer.IterationLimit, Variables: w(0.52, -0.5)},
		{Label: "mcmc", Status: infer.Done, Variables: w(0.5, -0.5)},
	}}
	for _, e := range res.Expects() {
		fmt.Println(e)
	}
	// Output:
	// PASS testdata/toy.fg:17:1: expect converged [ep]
	// FAIL testdata/toy.fg:17:1: expect converged [ep_relaxed_kl]
	// PASS testdata/toy.fg:17:1: expect converged [mcmc]
	// PASS testdata/toy.fg:18:1: expect abs(mean(w[0]) - mcmc.mean(w[0])) < 0.05 [ep] (abs(mean(w[0]) - mcmc.mean(w[0])) = 0.04)
	// PASS testdata/toy.fg:18:1: expect abs(mean(w[0]) - mcmc.mean(w[0])) < 0.05 [ep_relaxed_kl] (abs(mean(w[0]) - mcmc.mean(w[0])) = 0.02)
	// PASS testdata/toy.fg:18:1: expect abs(mean(w[0]) - mcmc.mean(w[0])) < 0.05 [mcmc] (abs(mean(w[0]) - mcmc.mean(w[0])) = 0)
}
