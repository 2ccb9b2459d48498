package bp

import (
	"reflect"
	"testing"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

func TestVariablesAndRelaxations(t *testing.T) {
	g := &graph.Graph{Fset: ast.NewFileSet()}
	at := g.Fset.AddFile("m.fg", []byte("model m\nlatent s: spin[2]\nfactor ising(s[0], s[1], 1)\n")).Pos(26)
	g.AddLatent("s", graph.Spin, 2, []int{2}, ast.NoPos)
	g.AddLatent("w", graph.Real, 0, nil, ast.NoPos)
	g.AddLatent("c", graph.Cat, 3, nil, ast.NoPos)
	g.AddFactor(graph.Factor{Kind: "ising", Label: "ising(s[0], s[1])", Vars: []int{0, 1}, Pos: at})
	g.AddFactor(graph.Factor{Kind: "table", Vars: []int{3}})
	marg := [][]float64{{0.2, 0.8}, {0.6, 0.4}, nil, {0.1, 0.2, 0.7}}
	vs := Variables(g, marg)
	if len(vs) != 2 || vs[0].Name != "s" || !reflect.DeepEqual(vs[0].States, []string{"-1", "+1"}) ||
		!reflect.DeepEqual(vs[0].Probs, [][]float64{{0.2, 0.8}, {0.6, 0.4}}) || vs[1].Name != "c" ||
		!reflect.DeepEqual(vs[1].States, []string{"0", "1", "2"}) {
		t.Fatalf("%+v", vs)
	}
	rs := Relaxations(g, []float64{0.25, 0})
	if len(rs) != 1 || rs[0].Factor != "ising(s[0], s[1])" || rs[0].Pos != "m.fg:3:1" || rs[0].B != 0.25 {
		t.Fatalf("%+v", rs)
	}
}
