package graph

import (
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

// TestFactorLabel: a stored label is returned as is; an empty one is made
// from the kind and the variables' names, as the compiler would write it.
func TestFactorLabel(t *testing.T) {
	g := &Graph{}
	g.AddLatent("x", Spin, 2, []int{2, 3}, ast.NoPos)
	g.AddLatent("s", Spin, 2, nil, ast.NoPos)
	g.AddFactor(Factor{Kind: stepKind{}, Vars: []int{0}, Label: "step(y[4])"})
	g.AddFactor(Factor{Kind: isingKind{}, Vars: []int{1, 5}})
	g.AddFactor(Factor{Kind: fieldKind{}, Vars: []int{6}})
	g.AddFactor(Factor{Kind: tableKind{}, Vars: []int{0, 9}})
	for i, want := range []string{"step(y[4])", "ising(x[0, 1], x[1, 2])", "field(s)", "table(x[0, 0], ?)"} {
		if got := g.FactorLabel(i); got != want {
			t.Errorf("FactorLabel(%d) = %q, want %q", i, got, want)
		}
	}
}
