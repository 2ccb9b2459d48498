package graph_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
)

// chain is x[0] ~ N(0, 1), x[t] ~ N(x[t−1], 1) for t < n, with a site of
// kind lik on every element.
func chain(n int, lik graph.SiteKind) *graph.FactorGraph {
	fg := &graph.FactorGraph{NumVars: n, First: []int{0}}
	fg.AddGaussian(graph.LinearGaussian{Aff: graph.Form{Vars: []int{0}, Coefs: []float64{1}}, Var: 1, Target: 0})
	for t := 1; t < n; t++ {
		fg.AddGaussian(graph.LinearGaussian{Aff: graph.Form{Vars: []int{t, t - 1}, Coefs: []float64{1, -1}}, Var: 1, Target: t})
	}
	shared := &graph.Site{Lik: lik, Index: -1}
	for t := range n {
		fg.AddSite(graph.AffineSite{Shared: shared, Y: 1, Aff: graph.Form{Vars: []int{t}, Coefs: []float64{1}}})
	}
	return fg
}

// bandwidth is SitesBanded's half-bandwidth of fg (−1 when it does not
// ask: a dense block or a gate).
func bandwidth(fg *graph.FactorGraph) (k int) {
	k = -1
	fg.SitesBanded(func(n, bw int) bool {
		if n != fg.NumVars {
			panic("SitesBanded passed another number of variables")
		}
		k = bw
		return true
	})
	return k
}

// TestFactorGraphStructure checks the structure analyses against graphs
// whose answers are read off by hand: a chain is a forest of
// half-bandwidth 1, linear-Gaussian with normal sites only; an edge
// x[0]–x[n−1] closes a cycle and widens the band to n − 1; a site on
// x[2] + x[5] widens it to 3; a dense block or a gate is never banded; the
// configurations of selectors of 3 and 4 states are 12.
func TestFactorGraphStructure(t *testing.T) {
	const n = 8
	within := func(_, k int) bool { return k <= 1 }

	g := chain(n, factor.Normal{Var: 0.5})
	if !g.Forest() || bandwidth(g) != 1 || !g.LinearGaussian() || !g.ConditionallyGaussian() || !g.Banded(within) || !g.SitesBanded(within) {
		t.Errorf("normal chain: forest %v, bandwidth %d, linear-Gaussian %v, banded %v", g.Forest(), bandwidth(g), g.LinearGaussian(), g.Banded(within))
	}

	p := chain(n, factor.Probit{})
	if !p.Forest() || p.LinearGaussian() || p.ConditionallyGaussian() || p.Banded(within) || !p.SitesBanded(within) {
		t.Errorf("probit chain: forest %v, linear-Gaussian %v, banded %v, sites banded %v", p.Forest(), p.LinearGaussian(), p.Banded(within), p.SitesBanded(within))
	}

	wide := chain(n, factor.Normal{Var: 0.5})
	wide.AddSite(graph.AffineSite{Shared: &graph.Site{Lik: factor.Normal{Var: 1}, Index: -1}, Aff: graph.Form{Vars: []int{2, 5}, Coefs: []float64{1, 1}}})
	if wide.Forest() || bandwidth(wide) != 3 || wide.SitesBanded(within) {
		t.Errorf("a site on x[2] + x[5]: forest %v, bandwidth %d, want a cycle and 3", wide.Forest(), bandwidth(wide))
	}

	loop := chain(n, factor.Normal{Var: 0.5})
	loop.AddSite(graph.AffineSite{Shared: &graph.Site{Lik: factor.Normal{Var: 1}, Index: -1}, Aff: graph.Form{Vars: []int{0, n - 1}, Coefs: []float64{1, -1}}})
	if loop.Forest() || bandwidth(loop) != n-1 {
		t.Errorf("edge x[0]–x[%d]: forest %v, bandwidth %d, want a cycle and %d", n-1, loop.Forest(), bandwidth(loop), n-1)
	}

	// A dense block over (x0, x1) with a conditional x2 | x0 and x2 | x1
	// sites: a cycle through the block; never banded.
	b := &graph.FactorGraph{NumVars: 3, First: []int{0}}
	b.Dense = []*graph.Block{{N: 2, Prior: graph.Prior{Kind: factor.MVNormal{}, Mean: []float64{0, 0}, Cov: mat.NewSymDense(2, []float64{1, 0, 0, 1})}}}
	b.AddGaussian(graph.LinearGaussian{Aff: graph.Form{Vars: []int{2, 0}, Coefs: []float64{1, -1}}, Var: 1, Target: 2})
	if !b.Forest() {
		t.Error("a block and a conditional on one of its elements: want a forest")
	}
	b.AddSite(graph.AffineSite{Shared: &graph.Site{Lik: factor.Normal{Var: 1}, Index: -1}, Aff: graph.Form{Vars: []int{2, 1}, Coefs: []float64{1, 1}}})
	if b.Forest() || bandwidth(b) != -1 || b.SitesBanded(func(int, int) bool { return true }) {
		t.Errorf("block cycle: forest %v, banded %v", b.Forest(), bandwidth(b) >= 0)
	}

	gated := chain(n, factor.Normal{Var: 0.5})
	gated.Discrete = []graph.DiscreteVar{{Prior: []float64{0.2, 0.3, 0.5}}, {Prior: []float64{0.25, 0.25, 0.25, 0.25}}}
	branch := func(lik graph.SiteKind) graph.AffineSite {
		return graph.AffineSite{Shared: &graph.Site{Lik: lik, Index: -1}, Aff: graph.Form{Vars: []int{0}, Coefs: []float64{1}}}
	}
	gated.Gates = []graph.Gate{{Selector: 0, Branches: []graph.AffineSite{branch(factor.Normal{Var: 1}), branch(factor.Normal{Var: 2})}}}
	if got := gated.Configurations(); got != 12 || !gated.ConditionallyGaussian() || bandwidth(gated) != -1 {
		t.Errorf("gated: %g configurations (want 12), conditionally Gaussian %v, banded %v", got, gated.ConditionallyGaussian(), bandwidth(gated) >= 0)
	}
	gated.Gates[0].Branches[1] = branch(factor.Probit{})
	if gated.ConditionallyGaussian() {
		t.Error("a probit branch: conditionally Gaussian")
	}
}
