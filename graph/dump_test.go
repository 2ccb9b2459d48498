package graph

import (
	"bytes"
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
	"github.com/fg-infer/fg/lang/ast"
)

var update = flag.Bool("update", false, "rewrite golden files")

// smallGraph is a spin chain x[0..2] with two Ising couplings, a field and a
// real latent with a Gaussian factor: every Dump feature in a few lines.
func smallGraph() *Graph {
	g := &Graph{}
	g.AddLatent("x", Spin, 2, []int{3}, ast.Pos(1))
	g.AddLatent("w", Real, 0, nil, ast.NoPos)
	g.AddLatent("c", Cat, 3, []int{2, 1}, ast.NoPos)
	for i := 0; i < 2; i++ {
		J := 0.5 * float64(i+1)
		g.AddFactor(Factor{Kind: isingKind{}, Vars: []int{i, i + 1}, Params: map[string]float64{"J": J},
			Table: []float64{math.Exp(J), math.Exp(-J), math.Exp(-J), math.Exp(J)},
			Label: "ising(" + g.VarName(i) + ", " + g.VarName(i+1) + ")"})
	}
	g.AddFactor(Factor{Kind: fieldKind{}, Vars: []int{0}, Params: map[string]float64{"h": -1}, Table: []float64{math.E, 1 / math.E}, Label: "field(x[0])"})
	g.AddFactor(Factor{Kind: normalKind{}, Vars: []int{3}, Params: map[string]float64{"mean": 0, "var": 2}, Label: "normal(w)"})
	return g
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestDumpGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := smallGraph().Dump(&buf); err != nil {
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

// TestObservedSiteParams: an observed likelihood site reports its Y as the
// parameter y, sorted in with the Params it shares with its statement's
// other sites, and sharing leaves each site's y its own.
func TestObservedSiteParams(t *testing.T) {
	g := &Graph{}
	g.AddLatent("f", Real, 0, []int{2}, ast.NoPos)
	shared := map[string]float64{"eps": 0.1, "z": 2}
	g.AddFactor(Factor{Kind: stepKind{}, Vars: []int{0}, Params: shared, Y: -1, Observed: true, Label: "step(y[0])"})
	g.AddFactor(Factor{Kind: stepKind{}, Vars: []int{1}, Params: shared, Y: 1, Observed: true, Label: "step(y[1])"})
	g.AddFactor(Factor{Kind: probitKind{}, Vars: []int{1}, Y: 1, Observed: true, Label: "probit(y[1])"})
	var buf bytes.Buffer
	if err := g.Dump(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"params={eps=0.1, y=-1, z=2}", "params={eps=0.1, y=1, z=2}", `"probit(y[1])" vars=[1] (f[1]) params={y=1}`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, buf.String())
		}
	}
	if y, ok := g.Factor(0).Param("y"); !ok || y != -1 {
		t.Errorf("Param(y) = %g, %v; want -1, true", y, ok)
	}
	if eps, ok := g.Factor(1).Param("eps"); !ok || eps != 0.1 {
		t.Errorf("Param(eps) = %g, %v; want 0.1, true", eps, ok)
	}
	if _, ok := g.Factor(2).Param("eps"); ok {
		t.Error("probit site has no eps")
	}
}
