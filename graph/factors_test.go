package graph

import (
	"slices"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

// TestFactorRuns: factors added as values and compactly read back in
// order with their fields; consecutive factors given one table share it;
// a new kind, position or size starts a new run; SetFactor on a compact
// factor keeps its neighbours; labels are made on demand.
func TestFactorRuns(t *testing.T) {
	g := &Graph{}
	g.AddLatent("x", Spin, 2, []int{4}, ast.Pos{})
	p1, p2 := ast.Pos{Filename: "m.fg", Line: 3, Column: 1}, ast.Pos{Filename: "m.fg", Line: 4, Column: 1}
	coupling := []float64{2, 0.5, 0.5, 2}
	type want struct {
		kind  string
		vars  []int
		table []float64
		pos   ast.Pos
		theta float64
	}
	var wants []want
	add := func(kind string, pos ast.Pos, theta float64, table []float64, vars ...int) {
		if got := g.AddCompact(kind, pos, "J", theta, table, vars...); got != len(wants) {
			t.Fatalf("AddCompact returned %d, want %d", got, len(wants))
		}
		wants = append(wants, want{kind, vars, table, pos, theta})
	}
	g.Reserve(3)
	add("ising", p1, 0.7, coupling, 0, 1)
	add("ising", p1, 0.7, coupling, 1, 2)
	add("ising", p1, 0.7, coupling, 2, 3)
	add("field", p2, 0.1, []float64{0.9, 1.1}, 0)
	g.AddFactor(Factor{Kind: "table", Vars: []int{3}, Table: []float64{1, 3}, Label: "table(x[3])", Pos: p2})
	wants = append(wants, want{"table", []int{3}, []float64{1, 3}, p2, 0})
	add("ising", p1, -0.2, []float64{0.8, 1.2, 1.2, 0.8}, 3, 0)
	if g.NumFactors() != len(wants) {
		t.Fatalf("%d factors, want %d", g.NumFactors(), len(wants))
	}
	n := 0
	for i, f := range g.Factors() {
		w := wants[i]
		if i != n || f.Kind != w.kind || !slices.Equal(f.Vars, w.vars) || !slices.Equal(f.Table, w.table) || f.Pos != w.pos {
			t.Errorf("factor %d = %+v, want %+v", i, f, w)
		}
		if f.Kind == "ising" {
			if v, ok := f.Param("J"); !ok || v != w.theta {
				t.Errorf("factor %d: J = %v, %v; want %v", i, v, ok, w.theta)
			}
		}
		n++
	}
	if a, b := g.Factor(0).Table, g.Factor(2).Table; &a[0] != &b[0] {
		t.Error("the couplings given one table do not share it")
	}
	if got := g.FactorLabel(1); got != "ising(x[1], x[2])" {
		t.Errorf("label %q", got)
	}
	if got := g.FactorsOf(0); !slices.Equal(got, []int{0, 3, 5}) {
		t.Errorf("factors of x[0]: %v", got)
	}
	g.SetFactor(1, Factor{Kind: "table", Vars: []int{1, 2}, Table: []float64{1, 1, 1, 4}})
	if f := g.Factor(1); f.Kind != "table" || f.Table[3] != 4 {
		t.Errorf("SetFactor: %+v", f)
	}
	if f := g.Factor(2); f.Kind != "ising" || !slices.Equal(f.Vars, []int{2, 3}) || f.Scalar != 0.7 || !slices.Equal(f.Table, coupling) {
		t.Errorf("neighbour after SetFactor: %+v", f)
	}
}
