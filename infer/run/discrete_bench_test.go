package run

import (
	"fmt"
	"testing"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// BenchmarkDiscreteResults makes the results of a graph of 10⁵ scalar
// binary latents (a libDAI file's shape) from per-variable marginals and
// reads every latent back, as a presenter does: -benchmem shows what the
// table costs (it was an infer.Variable of ~330 B per latent; reading one
// makes it on the stack).
//
//	go test -run '^$' -bench DiscreteResults -benchmem ./infer/run/
func BenchmarkDiscreteResults(b *testing.B) {
	const n = 100_000
	g := &graph.Graph{}
	marg := make([][]float64, n)
	for i := range n {
		g.AddLatent(fmt.Sprint("x", i), graph.Cat, 2, nil, ast.Pos{})
		marg[i] = []float64{0.25, 0.75}
	}
	b.ResetTimer()
	for b.Loop() {
		vs := discreteVars(g, marg).vars()
		sum := 0.0
		for _, v := range vs.All() {
			sum += v.Probs[0][1]
		}
		if sum != 0.75*n {
			b.Fatalf("sum of P(x = 1) %v, want %v", sum, 0.75*n)
		}
	}
}
