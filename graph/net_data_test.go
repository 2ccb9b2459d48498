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

// TestNetFactorAffine: Affine flattens the coefficients and constants of
// the edges over variables (branches depth-first) and WithAffine replaces
// them in the same order without touching f or its data.
func TestNetFactorAffine(t *testing.T) {
	f := NetFactor{Edges: []Edge{
		VarEdge("x", 0),
		{Name: "mean", Vars: []int{1, 2}, Coefs: []float64{0.5, -2}, Const: 3},
		DataEdge("var", 2),
		{Name: "p", Selected: true, Sel: 1, Branches: []Edge{DataEdge("p", 0.1), VarEdge("p", 2)}},
	}}
	if got, want := f.Affine(), []float64{1, 0, 0.5, -2, 3, 1, 0}; !slices.Equal(got, want) {
		t.Fatalf("Affine = %v, want %v", got, want)
	}
	g := f.WithAffine([]float64{1, 0, 0.6, -2, 3.5, 1, 0})
	if got, want := g.Affine(), []float64{1, 0, 0.6, -2, 3.5, 1, 0}; !slices.Equal(got, want) {
		t.Fatalf("WithAffine: Affine = %v, want %v", got, want)
	}
	if f.Edges[1].Coefs[0] != 0.5 || f.Edges[1].Const != 3 {
		t.Fatalf("WithAffine changed f: %+v", f.Edges[1])
	}
	if !slices.Equal(g.Data(), f.Data()) || !slices.Equal(g.Edges[1].Vars, []int{1, 2}) {
		t.Fatalf("WithAffine changed the data or variables: %v %+v", g.Data(), g.Edges[1])
	}
}
