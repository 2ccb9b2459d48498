package graph

import (
	"math"
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
	g.AddLatent("x", Spin, 2, []int{4}, ast.NoPos)
	p1, p2 := ast.Pos(3), ast.Pos(4)
	coupling := []float64{2, 0.5, 0.5, 2}
	type want struct {
		kind  Kind
		vars  []int
		table []float64
		pos   ast.Pos
		theta float64
	}
	var wants []want
	add := func(kind Kind, pos ast.Pos, theta float64, table []float64, vars ...int) {
		if got := g.AddCompact(kind, pos, "J", theta, table, vars...); got != len(wants) {
			t.Fatalf("AddCompact returned %d, want %d", got, len(wants))
		}
		wants = append(wants, want{kind, vars, table, pos, theta})
	}
	g.Reserve(3)
	add(isingKind{}, p1, 0.7, coupling, 0, 1)
	add(isingKind{}, p1, 0.7, coupling, 1, 2)
	add(isingKind{}, p1, 0.7, coupling, 2, 3)
	add(fieldKind{}, p2, 0.1, []float64{0.9, 1.1}, 0)
	g.AddFactor(Factor{Kind: tableKind{}, Vars: []int{3}, Table: []float64{1, 3}, Label: "table(x[3])", Pos: p2})
	wants = append(wants, want{tableKind{}, []int{3}, []float64{1, 3}, p2, 0})
	add(isingKind{}, p1, -0.2, []float64{0.8, 1.2, 1.2, 0.8}, 3, 0)
	if g.NumFactors() != len(wants) {
		t.Fatalf("%d factors, want %d", g.NumFactors(), len(wants))
	}
	n := 0
	for i, f := range g.Factors() {
		w := wants[i]
		if i != n || f.Kind != w.kind || !slices.Equal(f.Vars, w.vars) || !slices.Equal(f.Table, w.table) || f.Pos != w.pos {
			t.Errorf("factor %d = %+v, want %+v", i, f, w)
		}
		if f.Kind == (isingKind{}) {
			if f.ScalarName != "J" || f.Scalar != w.theta {
				t.Errorf("factor %d: %s = %v; want J = %v", i, f.ScalarName, f.Scalar, w.theta)
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
	g.SetFactor(1, Factor{Kind: tableKind{}, Vars: []int{1, 2}, Table: []float64{1, 1, 1, 4}})
	if f := g.Factor(1); f.Kind != (tableKind{}) || f.Table[3] != 4 {
		t.Errorf("SetFactor: %+v", f)
	}
	if f := g.Factor(2); f.Kind != (isingKind{}) || !slices.Equal(f.Vars, []int{2, 3}) || f.Scalar != 0.7 || !slices.Equal(f.Table, coupling) {
		t.Errorf("neighbour after SetFactor: %+v", f)
	}
}

// TestLogLinearRuns: factors added with AddLogLinear read back with their
// table exp(θ·φ) (bit-identical to math.Exp(θ), math.Exp(−θ)), their θ and
// φ; FactorForms gives them without a table; one run holds a statement's
// factors (no table per factor), a new statistic or kind starts another.
func TestLogLinearRuns(t *testing.T) {
	g := &Graph{}
	g.AddLatent("x", Spin, 2, []int{3}, ast.NoPos)
	pos := ast.Pos(3)
	pair, unary := []float64{1, -1, -1, 1}, []float64{-1, 1}
	J := []float64{0.3, -1.7, 0.3}
	for k, e := range [][2]int{{0, 1}, {1, 2}, {2, 0}} {
		g.AddLogLinear(isingKind{}, pos, "J", J[k], pair, e[0], e[1])
	}
	g.AddLogLinear(fieldKind{}, pos, "h", 0.5, unary, 2)
	if got := len(g.factors.runs); got != 2 {
		t.Errorf("%d runs, want 2", got)
	}
	if c := g.factors.runs[0].c; c.tab != nil || c.toff != nil {
		t.Errorf("a log-linear run keeps tables: %d entries, %d offsets", len(c.tab), len(c.toff))
	}
	for i, f := range g.Factors() {
		theta, stat := 0.5, unary
		if i < 3 {
			theta, stat = J[i], pair
		}
		want := make([]float64, len(stat))
		for k, s := range stat {
			want[k] = math.Exp(theta * s)
		}
		if !slices.Equal(f.Table, want) || f.Scalar != theta || &f.Stat[0] != &stat[0] {
			t.Errorf("factor %d: table %v θ %v, want %v, %v", i, f.Table, f.Scalar, want, theta)
		}
		if i < 3 && (f.Table[0] != math.Exp(theta) || f.Table[1] != math.Exp(-theta)) {
			t.Errorf("factor %d: table %v is not [e^J, e^-J, e^-J, e^J]", i, f.Table)
		}
	}
	for i, f := range g.FactorForms() {
		if f.Table != nil || f.Stat == nil || !slices.Equal(f.Vars, g.Factor(i).Vars) {
			t.Errorf("FactorForms %d: %+v", i, f)
		}
	}
	if got := g.FactorLabel(1); got != "ising(x[1], x[2])" {
		t.Errorf("label %q", got)
	}
}

// TestZeroScalars: a compact run whose scalars are all 0 (a libDAI file's
// tables) keeps no scalar column; a later non-zero one (or −0) gives every
// factor its own back.
func TestZeroScalars(t *testing.T) {
	g := &Graph{}
	g.AddLatent("x", Bool, 2, []int{4}, ast.NoPos)
	tab := []float64{1, 2, 3, 4}
	g.Reserve(4)
	for v := range 3 {
		g.AddCompact(tableKind{}, ast.NoPos, "", 0, tab, v, v+1)
	}
	if c := g.factors.runs[0].c; c.scalar != nil || c.n != 3 {
		t.Fatalf("zero scalars: column %v, %d factors", c.scalar, c.n)
	}
	g.AddCompact(tableKind{}, ast.NoPos, "", math.Copysign(0, -1), tab, 3, 0)
	g.AddCompact(tableKind{}, ast.NoPos, "", 2.5, tab, 0, 2)
	for i, want := range []float64{0, 0, 0, math.Copysign(0, -1), 2.5} {
		if f := g.Factor(i); f.Scalar != want || math.Signbit(f.Scalar) != math.Signbit(want) || !slices.Equal(f.Table, tab) {
			t.Errorf("factor %d: scalar %v, table %v", i, f.Scalar, f.Table)
		}
	}
	if g.NumFactors() != 5 || len(g.factors.runs) != 1 {
		t.Errorf("%d factors in %d runs", g.NumFactors(), len(g.factors.runs))
	}
}
