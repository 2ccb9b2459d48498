package graph

import (
	"slices"
	"testing"
)

// TestNetFactorData: Data flattens the data edges (branches depth-first)
// and WithData replaces them in the same order without touching f.
func TestNetFactorData(t *testing.T) {
	f := NetFactor{Edges: []Edge{
		VarEdge("x", 0),
		DataEdge("a", 2),
		{Name: "p", Selected: true, Sel: 1, Branches: []Edge{DataEdge("p", 0.1, 0.9), VarEdge("p", 2), DataEdge("p", 0.5, 0.5)}},
	}}
	if got, want := f.Data(), []float64{2, 0.1, 0.9, 0.5, 0.5}; !slices.Equal(got, want) {
		t.Fatalf("Data = %v, want %v", got, want)
	}
	g := f.WithData([]float64{3, 0.2, 0.8, 0.4, 0.6})
	if got, want := g.Data(), []float64{3, 0.2, 0.8, 0.4, 0.6}; !slices.Equal(got, want) {
		t.Fatalf("WithData: Data = %v, want %v", got, want)
	}
	if got := f.Data(); got[0] != 2 || got[1] != 0.1 {
		t.Fatalf("WithData changed f: %v", got)
	}
	if v, ok := g.Edges[2].Branches[1].IsVar(); !ok || v != 2 {
		t.Fatalf("WithData lost the variable branch: %+v", g.Edges[2].Branches[1])
	}
}
