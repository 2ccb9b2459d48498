package bp_test

import (
	"context"
	"fmt"
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/bp"
	"github.com/fg-infer/fg/lang/ast"
)

// Two spins with a field on the first and a ferromagnetic coupling: a tree,
// so BP is exact. p(x0 = +1) = σ(2h) with the coupling summed out:
// p(+1) ∝ e^h (e^J + e^{−J}), which is the same for x1 = ±1, so σ(2h).
func ExampleRun() {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{2}, ast.NoPos)
	h, J := 0.5, 1.0
	g.AddFactor(graph.Factor{Kind: factor.Field{}, Vars: []int{0}, Table: []float64{math.Exp(-h), math.Exp(h)}})
	g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{0, 1}, Table: []float64{math.Exp(J), math.Exp(-J), math.Exp(-J), math.Exp(J)}})
	res, err := bp.Run(context.Background(), g, bp.Settings{Settings: infer.Settings{Schedule: infer.Sequential}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v after %d passes\n", res.Status, res.Iterations)
	fmt.Printf("p(x0=+1) = %.6f (exact %.6f)\n", res.Marginals[0][1], 1/(1+math.Exp(-2*h)))
	fmt.Printf("log Z = %.6f (exact %.6f)\n", res.LogZ, math.Log(2*math.Cosh(h)*2*math.Cosh(J)))
	// Output:
	// converged after 2 passes
	// p(x0=+1) = 0.731059 (exact 0.731059)
	// log Z = 1.940190 (exact 1.940190)
}
