package run

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/exact"
	nt "github.com/fg-infer/fg/infer/netjoint/nettest"
	"github.com/fg-infer/fg/lang/ast"
)

// TestNetGoldRun: a coin (p ~ beta(2, 3), seven Bernoulli flips) held as a
// graph.Net reaches exact and mcmc through Run: exact gives the Beta(7, 5)
// posterior (its Dist) and its log evidence (1e-9); mcmc lands within 4
// standard errors and gets error columns against exact.
func TestNetGoldRun(t *testing.T) {
	var g graph.Graph
	lp := g.AddLatent("p", graph.Real, 0, nil, ast.NoPos)
	var n graph.Net
	p := n.AddVar(graph.NetVar{Name: "p", Family: graph.Beta, Latent: lp})
	nt.Factor(&n, nt.Beta, p, nt.D("a", 2), nt.D("b", 3))
	for _, y := range []float64{1, 0, 1, 1, 0, 1, 1} {
		nt.Obs(&n, nt.Bernoulli, y, nt.V("p", p))
	}
	m := &compile.Model{Graph: &g, Net: &n, Infers: []*compile.InferSpec{
		{Label: "exact", Method: infer.MethodExact},
		{Label: "mcmc", Method: infer.MethodMCMC, LineOptions: infer.LineOptions{MCMCSpec: infer.MCMCSpec{Samples: 2000, Chains: 4}, Settings: infer.Settings{Seed: 7}}},
	}}
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex, mc := rs[0], rs[1]
	if ex.Status != infer.Done || mc.Status != infer.Done {
		t.Fatalf("statuses %v (%s), %v (%s)", ex.Status, ex.Message, mc.Status, mc.Message)
	}
	want := 7.0 / 12
	if got := ex.Variables.At(0).Mean[0]; !(math.Abs(got-want) <= 1e-9) {
		t.Errorf("exact mean %v, want %v", got, want)
	}
	if got, want := ex.LogEvidence, mathext.Lbeta(7, 5)-mathext.Lbeta(2, 3); !ex.HasEvidence || !(math.Abs(got-want) <= 1e-9) {
		t.Errorf("exact log Z %v (has %v), want %v", got, ex.HasEvidence, want)
	}
	v := mc.Variables.At(0)
	if d := math.Abs(v.Mean[0] - want); !(d <= 4*v.MeanSE[0]) {
		t.Errorf("mcmc mean %v ± %v, exact %v", v.Mean[0], v.MeanSE[0], want)
	}
	if mc.Errors == nil || !mc.Errors.HasMean || mc.Errors.Reference != "exact" {
		t.Errorf("mcmc has no error columns against exact: %+v", mc.Errors)
	}
	if v := ex.Variables.At(0); v.Family != "beta" || len(v.Dist) != 1 || v.Dist[0] != "Beta(7, 5)" {
		t.Errorf("exact: family %q, dist %v; want beta, Beta(7, 5)", v.Family, v.Dist)
	}
	if v := mc.Variables.At(0); v.Family != "beta" || v.Dist != nil {
		t.Errorf("mcmc: family %q, dist %v; want beta and no dist (its marginal is not a family member)", v.Family, v.Dist)
	}
	if ex.Options["algorithm"] != "closed form" {
		t.Errorf("algorithm %q", ex.Options["algorithm"])
	}
}

// TestNetGoldDiscreteLatent: the three elements of a discrete latent
// z: cat(2)[3] (a chain with known parameters) come back as one Variable
// with per-element state probabilities equal to exact.RunNet's (1e-12).
func TestNetGoldDiscreteLatent(t *testing.T) {
	var g graph.Graph
	lz := g.AddLatent("z", graph.Cat, 2, []int{3}, ast.NoPos)
	var n graph.Net
	prev := -1
	for i, y := range []float64{0.2, 1.7, 2.1} {
		z := n.AddVar(graph.NetVar{Name: "z", Family: graph.Discrete, Dim: 2, Latent: lz, Elem: i})
		if prev < 0 {
			nt.Factor(&n, nt.Categorical, z, nt.D("p", 0.5, 0.5))
		} else {
			nt.Factor(&n, nt.Categorical, z, nt.Select("p", prev, nt.D("p", 0.9, 0.1), nt.D("p", 0.2, 0.8)))
		}
		nt.Obs(&n, nt.Normal, y, nt.Select("mean", z, nt.D("mean", 0), nt.D("mean", 2)), nt.D("var", 1))
		prev = z
	}
	m := &compile.Model{Graph: &g, Net: &n, Infers: []*compile.InferSpec{{Label: "exact", Method: infer.MethodExact}}}
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := exact.RunNet(context.Background(), &n, exact.NetSettings{})
	if err != nil {
		t.Fatal(err)
	}
	v := rs[0].Variables.At(0)
	if v.Name != "z" || !v.Discrete || len(v.Probs) != 3 || len(v.States) != 2 {
		t.Fatalf("variable %+v", v)
	}
	for i := range v.Probs {
		for s := range v.Probs[i] {
			if d := math.Abs(v.Probs[i][s] - ref.Vars[i].Probs[s]); !(d <= 1e-12) {
				t.Errorf("p(z[%d] = %d) = %v, want %v", i, s, v.Probs[i][s], ref.Vars[i].Probs[s])
			}
		}
	}
	if rs[0].Options["algorithm"] != "forward-backward" {
		t.Errorf("algorithm %q", rs[0].Options["algorithm"])
	}
}
