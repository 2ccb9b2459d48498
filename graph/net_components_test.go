package graph

import (
	"slices"
	"testing"
)

// TestNetComponents: a factor joins its variables, a selection joins its
// selector with every branch's variables, and the filter leaves out the
// variables it rejects (which then join nothing).
func TestNetComponents(t *testing.T) {
	var n Net
	a := n.AddVar(NetVar{Name: "a", Family: Gaussian})
	b := n.AddVar(NetVar{Name: "b", Family: Gamma})
	c := n.AddVar(NetVar{Name: "c", Family: Gaussian})
	z := n.AddVar(NetVar{Name: "z", Family: Discrete, Dim: 2})
	d := n.AddVar(NetVar{Name: "d", Family: Gaussian})
	e := n.AddVar(NetVar{Name: "e", Family: Beta})
	n.AddFactor(NetFactor{Edges: []Edge{VarEdge("mean", a), VarEdge("prec", b)}})
	n.AddFactor(NetFactor{Edges: []Edge{VarEdge("prec", b), VarEdge("x", c)}})
	n.AddFactor(NetFactor{Edges: []Edge{{Name: "mean", Selected: true, Sel: z, Branches: []Edge{VarEdge("mean", d), DataEdge("mean", 0)}}}})
	n.AddFactor(NetFactor{Edges: []Edge{VarEdge("p", e)}})
	all := n.Components(func(int) bool { return true })
	if want := [][]int{{a, b, c}, {z, d}, {e}}; !slices.EqualFunc(all, want, slices.Equal) {
		t.Errorf("components %v, want %v", all, want)
	}
	gauss := n.Components(func(v int) bool { return n.Vars[v].Family == Gaussian })
	if want := [][]int{{a}, {c}, {d}}; !slices.EqualFunc(gauss, want, slices.Equal) {
		t.Errorf("Gaussian blocks %v, want %v", gauss, want)
	}
}
