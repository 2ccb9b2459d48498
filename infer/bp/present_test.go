package bp

import (
	"reflect"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

func TestStateLabelsAndRelaxations(t *testing.T) {
	g := &graph.Graph{Fset: ast.NewFileSet()}
	at := g.Fset.AddFile("m.fg", []byte("model m\nlatent s: spin[2]\nfactor ising(s[0], s[1], 1)\n")).Pos(26)
	g.AddLatent("s", graph.Spin, 2, []int{2}, ast.NoPos)
	g.AddLatent("w", graph.Real, 0, nil, ast.NoPos)
	g.AddLatent("c", graph.Cat, 3, nil, ast.NoPos)
	g.AddFactor(graph.Factor{Kind: factor.Ising{}, Label: "ising(s[0], s[1])", Vars: []int{0, 1}, Pos: at})
	g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: []int{3}})
	for _, c := range []struct {
		d    graph.Domain
		card int
		want []string
	}{{graph.Spin, 2, []string{"-1", "+1"}}, {graph.Bool, 2, []string{"false", "true"}}, {graph.Cat, 3, []string{"0", "1", "2"}}} {
		if got := StateLabels(c.d, c.card); !reflect.DeepEqual(got, c.want) {
			t.Errorf("StateLabels(%v, %d) = %v, want %v", c.d, c.card, got, c.want)
		}
	}
	rs := Relaxations(g, []float64{0.25, 0})
	if len(rs) != 1 || rs[0].Factor != "ising(s[0], s[1])" || rs[0].Pos != "m.fg:3:1" || rs[0].B != 0.25 {
		t.Fatalf("%+v", rs)
	}
}
