package run

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// coinModel is the coin of a beta–bernoulli model as compile lowers it: a
// Beta(2, 3) latent p and flips 1 0 1 1 1 0, with infer lines ep and
// ep { divergence = alpha(0) }.
func coinModel() *compile.Model {
	g := &graph.Graph{}
	lat := g.AddLatent("p", graph.Real, 0, nil, ast.NoPos)
	net := &graph.Net{}
	p := net.AddVar(graph.NetVar{Name: "p", Family: graph.Beta, Latent: lat})
	net.AddFactor(graph.NetFactor{Kind: factor.Beta{}, Edges: []graph.Edge{graph.VarEdge("x", p), graph.DataEdge("a", 2), graph.DataEdge("b", 3)}, Label: "beta(p)"})
	for _, y := range []float64{1, 0, 1, 1, 1, 0} {
		net.AddFactor(graph.NetFactor{Kind: factor.Bernoulli{}, Edges: []graph.Edge{graph.VarEdge("p", p)}, Observed: true, Y: []float64{y}, Label: "bernoulli(y)"})
	}
	settings := func(d infer.Divergence) infer.Settings {
		return infer.Settings{Divergence: d, Damping: 1, Tol: 1e-12, MaxIter: 50}
	}
	return &compile.Model{Graph: g, Net: net, Infers: []*compile.InferSpec{
		{Label: "ep", Method: infer.MethodEP, LineOptions: infer.LineOptions{Settings: settings(infer.KL{})}},
		{Label: "vmp", Method: infer.MethodEP, LineOptions: infer.LineOptions{Settings: settings(infer.Alpha{A: 0})}},
	}}
}

// TestNetResult: a typed factor graph reaches infer/mp through Run: the
// posterior Beta(6, 5) as mean, variance and Dist, the evidence log B(6, 5) −
// log B(2, 3) as log Z (ep) and as an ELBO (alpha(0)), both 1e-9.
func TestNetResult(t *testing.T) {
	res, err := Run(context.Background(), coinModel(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	lb := func(a, b float64) float64 {
		x, _ := math.Lgamma(a)
		y, _ := math.Lgamma(b)
		z, _ := math.Lgamma(a + b)
		return x + y - z
	}
	for i, r := range res {
		if r.Status != infer.Converged {
			t.Fatalf("%s: %v %s", r.Label, r.Status, r.Message)
		}
		v := r.Variables.At(0)
		if v.Name != "p" || v.Family != "beta" || v.Dist[0] != "Beta(6, 5)" {
			t.Errorf("%s: %s %s %v", r.Label, v.Name, v.Family, v.Dist)
		}
		if !(math.Abs(v.Mean[0]-6.0/11) <= 1e-12 && math.Abs(v.Var[0]-30.0/(121*12)) <= 1e-12) {
			t.Errorf("%s: mean %g var %g", r.Label, v.Mean[0], v.Var[0])
		}
		if !r.HasEvidence || math.Abs(r.LogEvidence-(lb(6, 5)-lb(2, 3))) > 1e-9 || r.ELBO != (i == 1) {
			t.Errorf("%s: evidence %g (elbo %v)", r.Label, r.LogEvidence, r.ELBO)
		}
	}
}
