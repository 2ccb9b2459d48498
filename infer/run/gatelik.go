package run

import (
	"fmt"
	"math"
	"slices"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/internal/mathx"
)

// gatedLik is the likelihood of a factor graph with gated sites as the
// gold standards read it from the IR (compile.FactorGraph's sites, Gates
// and Discrete), for a sampler or a quadrature whose prior is the joint
// Gaussian compile.FactorGraph.JointPrior:
//
//	log p(y | x, z) = Σ_sites log p(y | aᵀx + c) + Σ_gates log f_{z_d}(y | a_{z_d}ᵀx + c_{z_d}),
//
// every likelihood read through its log-density (factor.LogDensity).
type gatedLik struct {
	sites    []logTerm
	gates    []gateTerm
	logPrior [][]float64 // log p_d(k) of each selector
	of       [][]int     // the gates each selector selects, in fg.Gates order
}

// logTerm is one likelihood factor log p(y | aᵀx + c).
type logTerm struct {
	d   factor.LogDensity
	y   float64
	aff graph.Form
}

// gateTerm is a gate: its branches on the selector's states.
type gateTerm struct {
	z        int
	branches []logTerm
}

// newGatedLik reads fg's likelihood; every site and branch needs a
// log-density.
func newGatedLik(fg *compile.FactorGraph) (*gatedLik, error) {
	g := &gatedLik{sites: make([]logTerm, 0, fg.NumSites()), logPrior: make([][]float64, len(fg.Discrete)), of: make([][]int, len(fg.Discrete))}
	for i, s := range fg.Sites() {
		d, ok := s.Shared.Lik.(factor.LogDensity)
		if !ok {
			return nil, fmt.Errorf("%s: %s has no log-density", fg.SiteLabel(i), s.Shared.Lik.Name())
		}
		aff := graph.Form{Vars: slices.Clone(s.Aff.Vars), Coefs: slices.Clone(s.Aff.Coefs), Const: s.Aff.Const}
		g.sites = append(g.sites, logTerm{d, s.Y, aff})
	}
	for d, dv := range fg.Discrete {
		g.logPrior[d] = make([]float64, len(dv.Prior))
		for k, p := range dv.Prior {
			g.logPrior[d][k] = math.Log(p)
		}
	}
	for j, gt := range fg.Gates {
		t := gateTerm{z: gt.Selector, branches: make([]logTerm, len(gt.Branches))}
		for k, b := range gt.Branches {
			d, ok := b.Shared.Lik.(factor.LogDensity)
			if !ok {
				return nil, fmt.Errorf("%s: %s has no log-density", b.Label, b.Shared.Lik.Name())
			}
			t.branches[k] = logTerm{d, gt.Branches[0].Y, b.Aff}
		}
		g.gates = append(g.gates, t)
		g.of[gt.Selector] = append(g.of[gt.Selector], j)
	}
	return g, nil
}

// at is log p(y | aᵀx + c).
func (t *logTerm) at(x []float64) float64 {
	f := t.aff.Const
	for i, v := range t.aff.Vars {
		f += t.aff.Coefs[i] * x[v]
	}
	l, _, _ := t.d.LogLik(t.y, f)
	return l
}

// sitesLogLik is Σ_sites log p(y | aᵀx + c) (not the gates).
func (g *gatedLik) sitesLogLik(x []float64) float64 {
	s := 0.0
	for i := range g.sites {
		s += g.sites[i].at(x)
	}
	return s
}

// logLik is log p(y | x, z).
func (g *gatedLik) logLik(x []float64, z []int) float64 {
	s := g.sitesLogLik(x)
	for j := range g.gates {
		s += g.gates[j].branches[z[g.gates[j].z]].at(x)
	}
	return s
}

// local is the sum over the gates that selector d selects of their branch
// k: the part of logLik that depends on z_d.
func (g *gatedLik) local(x []float64, d, k int) float64 {
	s := 0.0
	for _, j := range g.of[d] {
		s += g.gates[j].branches[k].at(x)
	}
	return s
}

// marginal is log p(y | x) with the selectors summed out, for quadrature
// over x when the branches have no closed-form evidence given x:
//
//	log p(y | x) = Σ_sites log p(y | aᵀx + c) + Σ_d log Σ_k p_d(k) exp(local(x, d, k)),
//
// exact because a selector enters only the gates it selects, so the z_d
// are independent given x.
func (g *gatedLik) marginal(x []float64) float64 {
	s := g.sitesLogLik(x)
	buf := make([]float64, 0, 8)
	for d, l := range g.logPrior {
		buf = buf[:0]
		for k, p := range l {
			buf = append(buf, p+g.local(x, d, k))
		}
		s += mathx.LogSumExp(buf)
	}
	return s
}

// posterior fills out with p(z_d = k | x, y), whose expectation over
// p(x | y) is p(z_d = k | y).
func (g *gatedLik) posterior(x []float64, d int, out []float64) {
	for k, l := range g.logPrior[d] {
		out[k] = l + g.local(x, d, k)
	}
	l := mathx.LogSumExp(out)
	if math.IsInf(l, 0) || math.IsNaN(l) {
		// y impossible given x: a point of no weight in p(x | y), where
		// the selector keeps its prior (out stays a distribution).
		for k, lp := range g.logPrior[d] {
			out[k] = math.Exp(lp)
		}
		return
	}
	for k, v := range out {
		out[k] = math.Exp(v - l)
	}
}

// priors are the selectors' prior probabilities, exp(log p_d(k)): the
// same numbers the marginal and local terms read.
func (g *gatedLik) priors() [][]float64 {
	out := make([][]float64, len(g.logPrior))
	for d, lp := range g.logPrior {
		out[d] = make([]float64, len(lp))
		for k, l := range lp {
			out[d][k] = math.Exp(l)
		}
	}
	return out
}
