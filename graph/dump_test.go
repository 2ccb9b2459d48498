package graph

import (
	"bytes"
	"flag"
	"iter"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
	"github.com/fg-infer/fg/lang/ast"
)

var update = flag.Bool("update", false, "rewrite golden files")

// smallGraph is a spin chain x[0..2] with two Ising couplings, a field and a
// real latent with a Gaussian factor: every Dump feature in a few lines
// (the Gaussian's parameters are its list's: smallList).
func smallGraph() *Graph {
	g := &Graph{}
	g.AddLatent("x", Spin, 2, []int{3}, ast.Pos(1))
	g.AddLatent("w", Real, 0, nil, ast.NoPos)
	g.AddLatent("c", Cat, 3, []int{2, 1}, ast.NoPos)
	for i := 0; i < 2; i++ {
		J := 0.5 * float64(i+1)
		g.AddFactor(Factor{Kind: isingKind{}, Vars: []int{i, i + 1}, ScalarName: "J", Scalar: J,
			Table: []float64{math.Exp(J), math.Exp(-J), math.Exp(-J), math.Exp(J)},
			Label: "ising(" + g.VarName(i) + ", " + g.VarName(i+1) + ")"})
	}
	g.AddFactor(Factor{Kind: fieldKind{}, Vars: []int{0}, ScalarName: "h", Scalar: -1, Table: []float64{math.E, 1 / math.E}, Label: "field(x[0])"})
	g.AddFactor(Factor{Kind: normalKind{}, Vars: []int{3}, Label: "normal(w)"})
	return g
}

// paramList is a Graph as a ParamList: its factors with the parameters
// in params.
type paramList struct {
	*Graph
	params map[int][]Param
}

func (l paramList) LabelledFactorParams() iter.Seq2[Factor, []Param] {
	return func(yield func(Factor, []Param) bool) {
		for i, f := range l.LabelledFactors() {
			if !yield(f, l.params[i]) {
				return
			}
		}
	}
}

// smallList is smallGraph with its Gaussian's mean and variance.
func smallList() ParamList {
	return paramList{smallGraph(), map[int][]Param{3: {{"var", 2}, {"mean", 0}}}}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestDumpGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := DumpFactors(&buf, smallGraph(), smallList()); err != nil {
		t.Fatal(err)
	}
	golden(t, "small.dump.golden", buf.Bytes())
}

func TestDumpLibDAIGolden(t *testing.T) {
	src := "2\n\n2\n3 1\n2 3\n3\n0 0.5\n4 2\n5 1e-3\n\n1\n3\n2\n1\n1 7\n"
	g, err := ParseLibDAI(strings.NewReader(src), "x.fg", tableKind{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.Dump(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "libdai.dump.golden", buf.Bytes())
}

func TestDOTGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := smallGraph().DOT(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "small.dot.golden", buf.Bytes())
}

// TestListParams: Dump lists a factor's parameters from its ParamList
// (an observed site's y and its likelihood's parameters) sorted by name
// with its Scalar, and leaves a list's slices as they were.
func TestListParams(t *testing.T) {
	g := &Graph{}
	g.AddLatent("f", Real, 0, []int{2}, ast.NoPos)
	g.AddFactor(Factor{Kind: stepKind{}, Vars: []int{0}, Label: "step(y[0])"})
	g.AddFactor(Factor{Kind: stepKind{}, Vars: []int{1}, Label: "step(y[1])", ScalarName: "s", Scalar: 3})
	g.AddFactor(Factor{Kind: probitKind{}, Vars: []int{1}, Label: "probit(y[1])"})
	shared := []Param{{"z", 2}, {"eps", 0.1}}
	l := paramList{g, map[int][]Param{0: append(shared[:2:2], Param{"y", -1}), 1: append(shared[:2:2], Param{"y", 1}), 2: {{"y", 1}}}}
	var buf bytes.Buffer
	if err := DumpFactors(&buf, g, l); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"step(y[0])" vars=[0] (f[0]) params={eps=0.1, y=-1, z=2}`, `"step(y[1])" vars=[1] (f[1]) params={eps=0.1, s=3, y=1, z=2}`,
		`"probit(y[1])" vars=[1] (f[1]) params={y=1}`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, buf.String())
		}
	}
	if p := l.params[0]; p[0].Name != "z" || p[2].Name != "y" {
		t.Errorf("Dump reordered its list's parameters: %v", p)
	}
}
