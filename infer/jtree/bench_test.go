package jtree

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// domeGraph is the Qi & Guo §6.2 model on the C60 dome with strong couplings.
func domeGraph() *graph.Graph {
	dome := stdlib.GeodesicDome()
	rng := rand.New(rand.NewPCG(1, 2))
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{dome.N}, ast.NoPos)
	for i := 0; i < dome.N; i++ {
		h := rng.NormFloat64()
		g.AddFactor(graph.Factor{Kind: factor.Field{}, Vars: []int{i}, Table: []float64{math.Exp(-h), math.Exp(h)}})
	}
	for _, e := range dome.Edges {
		J := math.Abs(5 + math.Sqrt(5)*rng.NormFloat64())
		g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{e[0], e[1]}, Table: []float64{math.Exp(-J), math.Exp(J), math.Exp(J), math.Exp(-J)}})
	}
	return g
}

// BenchmarkDome times the junction tree (order, tables, both passes, all
// marginals) on the 60-node geodesic dome; width and table size reported.
func BenchmarkDome(b *testing.B) {
	g := domeGraph()
	var res *Result
	for i := 0; i < b.N; i++ {
		var err error
		if res, err = Run(context.Background(), g, Settings{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Width), "width")
	b.ReportMetric(res.TableSize, "maxtable")
}

// The dome's exact answer is self-consistent between heuristics.
func TestDomeHeuristicsAgree(t *testing.T) {
	g := domeGraph()
	a, err := Run(context.Background(), g, Settings{Heuristic: graph.MinFill})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Run(context.Background(), g, Settings{Heuristic: graph.MinWeight})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(a.LogZ-c.LogZ) <= 1e-9*math.Abs(a.LogZ)) {
		t.Errorf("logZ %v vs %v", a.LogZ, c.LogZ)
	}
	for v := range a.Marginals {
		if !(math.Abs(a.Marginals[v][1]-c.Marginals[v][1]) <= 1e-9) {
			t.Errorf("var %d: %v vs %v", v, a.Marginals[v], c.Marginals[v])
		}
	}
	t.Logf("dome: min-fill width %d (table %g), min-weight width %d", a.Width, a.TableSize, c.Width)
}
