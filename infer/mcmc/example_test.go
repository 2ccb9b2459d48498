package mcmc_test

import (
	"context"
	"fmt"
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/mcmc"
	"github.com/fg-infer/fg/lang/ast"
)

// Two coupled spins with a field on the first: p(s) ∝ exp(J s0 s1 + h s0).
// Exact enumeration gives p(s1 = +1) = (e^{J+h} + e^{−J−h}) / Z with
// Z = 2 cosh(J + h) + 2 cosh(J − h).
func ExampleRunGibbs() {
	j, h := 0.5, 0.3
	g := &graph.Graph{}
	g.AddLatent("s", graph.Spin, 2, []int{2}, ast.NoPos)
	g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{0, 1},
		Table: []float64{math.Exp(j), math.Exp(-j), math.Exp(-j), math.Exp(j)}})
	g.AddFactor(graph.Factor{Kind: factor.Field{}, Vars: []int{0}, Table: []float64{math.Exp(-h), math.Exp(h)}})
	res, err := mcmc.RunGibbs(context.Background(), g, mcmc.GibbsSettings{Samples: 5000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	z := 2*math.Cosh(j+h) + 2*math.Cosh(j-h)
	exact := (math.Exp(j+h) + math.Exp(-j-h)) / z
	p, se := res.Probs[1][1], res.ProbsSE[1][1]
	fmt.Printf("%s, %d chains; within 4 SE of exact: %v; R-hat < 1.01: %v\n",
		res.Status, res.Chains, math.Abs(p-exact) < 4*se, res.RHat[1][1] < 1.01)
	// Output: done, 4 chains; within 4 SE of exact: true; R-hat < 1.01: true
}
