package graph

import "testing"

// The factor kinds of the tests. Package factor's kinds cannot be named
// here (factor imports graph), so each is a type of its own, as factor's
// are: a graph tells kinds apart by type (SameKind).
type (
	isingKind  struct{}
	fieldKind  struct{}
	tableKind  struct{}
	normalKind struct{}
	probitKind struct{}
	stepKind   struct{}
	// paramKind is a kind that holds its factor's parameters, as
	// factor.Table holds its entries: not comparable with ==.
	paramKind struct{ T []float64 }
)

func (isingKind) Name() string  { return "ising" }
func (fieldKind) Name() string  { return "field" }
func (tableKind) Name() string  { return "table" }
func (normalKind) Name() string { return "normal" }
func (probitKind) Name() string { return "probit" }
func (stepKind) Name() string   { return "step" }
func (paramKind) Name() string  { return "param" }

// TestSameKind: kinds are the same when their types are, whatever the
// parameters they hold and whether or not they are comparable.
func TestSameKind(t *testing.T) {
	cases := []struct {
		a, b Kind
		want bool
	}{
		{isingKind{}, isingKind{}, true},
		{isingKind{}, fieldKind{}, false},
		{paramKind{}, paramKind{T: []float64{1}}, true},
		{paramKind{}, tableKind{}, false},
		{testKind("normal"), normalKind{}, false},
	}
	for _, c := range cases {
		if got := SameKind(c.a, c.b); got != c.want {
			t.Errorf("SameKind(%T, %T) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestCompactRunsByKindType: consecutive compact factors of one kind type
// share a run even when the kind is not comparable (no panic), and a
// factor of another kind of the same name starts a new run.
func TestCompactRunsByKindType(t *testing.T) {
	var g Graph
	g.AddLatent("x", Spin, 2, []int{3}, 0)
	tab := []float64{1, 2, 3, 4}
	g.AddCompact(paramKind{}, 0, "", 0, tab, 0, 1)
	g.AddCompact(paramKind{T: tab}, 0, "", 0, tab, 1, 2)
	if len(g.factors.runs) != 1 {
		t.Fatalf("%d runs, want 1", len(g.factors.runs))
	}
	g.AddCompact(tableKind{}, 0, "", 0, tab, 0, 2)
	g.AddCompact(isingKind{}, 0, "", 0, tab, 0, 2)
	if len(g.factors.runs) != 3 {
		t.Fatalf("%d runs, want 3", len(g.factors.runs))
	}
	for i, want := range []Kind{paramKind{}, paramKind{}, tableKind{}, isingKind{}} {
		if got := g.Factor(i).Kind; !SameKind(got, want) {
			t.Errorf("factor %d: kind %T, want %T", i, got, want)
		}
	}
}
