package factor

import (
	"strings"
	"testing"

	"github.com/fg-infer/fg/graph"
)

// TestCheckNet: domain errors name the edge and element; a latent of the
// wrong family names the kinds that fit it.
func TestCheckNet(t *testing.T) {
	fam := func(v int) graph.Family { return []graph.Family{graph.Beta, graph.Gaussian}[v] }
	cases := []struct {
		k    NetKind
		f    graph.NetFactor
		want string
	}{
		{Beta{}, graph.NetFactor{Edges: []graph.Edge{graph.VarEdge("x", 0), graph.DataEdge("a", 0), graph.DataEdge("b", 1)}}, "beta: `a` must be a finite number > 0, got 0"},
		{Gamma{}, graph.NetFactor{Edges: []graph.Edge{graph.VarEdge("x", 0), graph.DataEdge("shape", -1), graph.DataEdge("rate", 1)}}, "gamma: argument x is a beta latent"},
		{Dirichlet{}, graph.NetFactor{Edges: []graph.Edge{graph.VarEdge("x", 0), graph.DataEdge("alpha", 1, 0, 2)}}, "argument x is a beta latent"},
		{Bernoulli{}, graph.NetFactor{Observed: true, Y: []float64{2}, Edges: []graph.Edge{graph.VarEdge("p", 0)}}, "bernoulli: observation 2, want 0 or 1"},
		{Poisson{}, graph.NetFactor{Observed: true, Y: []float64{-1}, Edges: []graph.Edge{graph.DataEdge("rate", 1)}}, "poisson: count -1"},
		{Binomial{}, graph.NetFactor{Observed: true, Y: []float64{5}, Edges: []graph.Edge{graph.DataEdge("n", 4), graph.VarEdge("p", 0)}}, "binomial: count 5, want 0, 1, …, 4"},
		{Normal{}, graph.NetFactor{Observed: true, Y: []float64{1}, Edges: []graph.Edge{graph.VarEdge("mean", 0), graph.DataEdge("var", 1)}}, "normal: argument mean is a beta latent; mean takes data or a gaussian latent (a beta latent fits beta(x), bernoulli(p), binomial(p))"},
	}
	for _, c := range cases {
		err := c.k.CheckNet(&c.f, fam)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.k.Name(), err, c.want)
		}
	}
	d := Dirichlet{}
	f := graph.NetFactor{Edges: []graph.Edge{graph.VarEdge("x", 0), graph.DataEdge("alpha", 1, 0, 2)}}
	err := d.CheckNet(&f, func(int) graph.Family { return graph.Dirichlet })
	if ee, ok := err.(*EdgeError); !ok || ee.Elem != 1 || !strings.Contains(ee.Msg, "`alpha[1]` must be a finite number > 0, got 0") {
		t.Errorf("dirichlet zero entry: %v", err)
	}
}
