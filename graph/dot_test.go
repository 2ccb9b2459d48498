package graph

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

// gridGraph is an r×c Ising grid with a field factor per spin.
func gridGraph(r, c int) *Graph {
	g := &Graph{}
	g.AddLatent("x", Spin, 2, []int{r * c}, ast.NoPos)
	for i := 0; i < r*c; i++ {
		g.AddFactor(Factor{Kind: fieldKind{}, Vars: []int{i}, Label: "field(" + g.VarName(i) + ")"})
		if (i+1)%c != 0 {
			g.AddFactor(Factor{Kind: isingKind{}, Vars: []int{i, i + 1}, Label: "ising(" + g.VarName(i) + ", " + g.VarName(i+1) + ")"})
		}
		if i+c < r*c {
			g.AddFactor(Factor{Kind: isingKind{}, Vars: []int{i, i + c}, Label: "ising(" + g.VarName(i) + ", " + g.VarName(i+c) + ")"})
		}
	}
	return g
}

// chainGraph is a chain of n spins (a tree).
func chainGraph(n int) *Graph {
	g := &Graph{}
	g.AddLatent("x", Spin, 2, []int{n}, ast.NoPos)
	for i := 0; i+1 < n; i++ {
		g.AddFactor(Factor{Kind: isingKind{}, Vars: []int{i, i + 1}, Label: "ising"})
	}
	return g
}

func TestLayout(t *testing.T) {
	for _, c := range []struct {
		name string
		g    *Graph
		want string
	}{
		{"small graph", smallGraph(), "dot"},
		{"2x2 grid (8 nodes)", gridGraph(2, 2), "dot"},
		{"4x4 grid", gridGraph(4, 4), "neato"},
		{"chain of 20 (tree, 39 nodes)", chainGraph(20), "dot"},
		{"chain of 40 (tree, 79 nodes)", chainGraph(40), "neato"},
		{"20x20 grid (1160 nodes)", gridGraph(20, 20), "sfdp"},
	} {
		if got := Layout(c.g); got != c.want {
			t.Errorf("%s: Layout = %s, want %s", c.name, got, c.want)
		}
	}
	var b strings.Builder
	if err := DOT(&b, gridGraph(4, 4)); err != nil || !strings.Contains(b.String(), "layout=neato, overlap=false") {
		t.Errorf("4x4 grid DOT lacks the neato layout: %v\n%s", err, b.String()[:200])
	}
}

// TestFactorText: a factor is labelled with what it observes, or its kind
// when its label only repeats its own latents.
func TestFactorText(t *testing.T) {
	g := &Graph{}
	g.AddLatent("w", Real, 0, []int{2}, ast.NoPos)
	g.AddLatent("x", Spin, 2, []int{2}, ast.NoPos)
	for _, c := range []struct {
		f    Factor
		want string
	}{
		{Factor{Kind: stepKind{}, Vars: []int{0, 1}, Label: "step(y[4])"}, "step(y[4])"},
		{Factor{Kind: normalKind{}, Vars: []int{0, 1}, Label: "normal(w)"}, "normal"},
		{Factor{Kind: isingKind{}, Vars: []int{2, 3}, Label: "ising(x[0], x[1])"}, "ising"},
		{Factor{Kind: tableKind{}, Vars: []int{2}, Label: "table"}, "table"},
		{Factor{Kind: probitKind{}, Vars: []int{0}, Label: "probit(labels[3])"}, "probit(labels[3])"},
		{Factor{Kind: isingKind{}, Vars: []int{2, 3}}, "ising"}, // label made on demand
	} {
		if g.NumFactors() == 0 {
			g.AddFactor(c.f)
		}
		g.SetFactor(0, c.f)
		f := g.LabelledFactor(0)
		if got := factorText(g, &f); got != c.want {
			t.Errorf("factorText(%q) = %q, want %q", c.f.Label, got, c.want)
		}
	}
}

// TestAppendQuoted: DOT's quoting is strconv.Quote's, bit for bit, on
// names and labels with and without characters it escapes.
func TestAppendQuoted(t *testing.T) {
	for _, s := range []string{"", "x", "x[3, 4]", "normal(x[4])", `say "hi"`, `a\b`, "tab\there", "del\x7f", "μ[0]", "bad\xffutf8", "~ ok !"} {
		want := "<" + strconv.Quote(s) + ">"
		if got := string(appendQuoted([]byte("<"), s)) + ">"; got != want {
			t.Errorf("string %q: got %s, want %s", s, got, want)
		}
		if got := string(appendQuoted([]byte("<"), []byte(s))) + ">"; got != want {
			t.Errorf("bytes %q: got %s, want %s", s, got, want)
		}
	}
}
