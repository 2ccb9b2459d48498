package compile

import (
	"fmt"
	"iter"
	"slices"
	"sort"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// Factors is the model's list of its factors in compile order (Dump, DOT,
// `fg check`, the labels an expect line names): Graph's (the discrete
// factors), interleaved with the continuous ones, which only the
// FactorGraph holds (whole-latent priors, conditionals, likelihood sites
// and mixtures, mini-batch potentials, gated likelihoods) and whose
// graph.Factor — kind, graph variables, label, parameters, position — is
// made on demand from it: the list Graph was when it held every factor.
// Numbers are the factors' (Block.Factor, LinearGaussian.Factor, ...).
func (m *Model) Factors() graph.FactorList {
	if fg := m.FactorGraph; fg != nil && fg.offGraph.Len() > 0 {
		return modelFactors{g: m.Graph, fg: fg}
	}
	return m.Graph
}

// modelFactors interleaves the factors of g (the numbers not in
// fg.offGraph, in order) with fg's off-graph factors.
type modelFactors struct {
	g  *graph.Graph
	fg *FactorGraph
}

func (l modelFactors) NumFactors() int { return l.g.NumFactors() + l.fg.offGraph.Len() }

func (l modelFactors) LabelledFactor(i int) graph.Factor {
	if l.fg.isOffGraph(i) {
		return l.fg.offGraphFactor(i)
	}
	return l.g.LabelledFactor(l.fg.graphIndex(i))
}

func (l modelFactors) LabelledFactors() iter.Seq2[int, graph.Factor] {
	return func(yield func(int, graph.Factor) bool) {
		off, k := &l.fg.offGraph, 0
		for j, f := range l.g.LabelledFactors() {
			// Graph's factor j is number j + k when k off-graph factors
			// come before it.
			for ; k < off.Len() && off.At(k) == j+k; k++ {
				if !yield(j+k, l.fg.offGraphFactor(j+k)) {
					return
				}
			}
			if !yield(j+k, f) {
				return
			}
		}
		for ; k < off.Len(); k++ {
			if n := off.At(k); !yield(n, l.fg.offGraphFactor(n)) {
				return
			}
		}
	}
}

// graphIndex is the index in the model's Graph of factor number n, a
// factor Graph holds.
func (g *FactorGraph) graphIndex(n int) int { return n - g.offBefore(n) }

// offBefore is the number of off-graph factors numbered below n.
func (g *FactorGraph) offBefore(n int) int {
	return sort.Search(g.offGraph.Len(), func(k int) bool { return g.offGraph.At(k) >= n })
}

// isOffGraph reports whether factor number n is off-graph.
func (g *FactorGraph) isOffGraph(n int) bool {
	k := g.offBefore(n)
	return k < g.offGraph.Len() && g.offGraph.At(k) == n
}

// offGraphFactor is off-graph factor number n as a graph.Factor, found
// by its number (the factors of each kind are in number order): a
// whole-latent prior over every element of its latent, from its dense
// block or from the linear-Gaussian factors of its elements (which share
// number n; their tag has the prior's kind and statement); a conditional
// normal on its target, then its mean's variables; a likelihood site
// (a block's or an affine one) on its variables in increasing order; a
// mini-batch potential exp(...) over every element of its block's latent;
// a gated likelihood on its selector, then the variables of its branches
// in the order they first appear.
func (g *FactorGraph) offGraphFactor(n int) graph.Factor {
	for _, b := range g.Dense {
		if b.Factor == n {
			return g.priorFactor(b.Latent, b.Prior.Kind.Name(), priorParams(b.Prior), b.PriorPos)
		}
		if k := sort.Search(len(b.Sites), func(k int) bool { return b.Sites[k].Factor >= n }); k < len(b.Sites) && b.Sites[k].Factor == n {
			return g.blockSiteFactor(b, &b.Sites[k])
		}
		for _, bf := range b.Batches {
			if bf.Factor == n {
				f := g.priorFactor(b.Latent, factor.Exp{}.Name(), nil, bf.Pos)
				f.Label = bf.Label
				return f
			}
		}
	}
	if k := sort.Search(len(g.Gates), func(k int) bool { return g.Gates[k].Factor >= n }); k < len(g.Gates) && g.Gates[k].Factor == n {
		return g.gateFactor(&g.Gates[k])
	}
	if lo, hi := g.gaussiansOf(n); lo < hi {
		a := g.gaussians.At(lo, nil, nil)
		t := &g.tags[a.Tag]
		if t.kind != "" {
			return g.priorFactor(g.graph.Vars[a.Vars[0]+t.gvar].Latent, t.kind, nil, t.pos)
		}
		return graph.Factor{Kind: factor.NormalPrior{}.Name(), Vars: g.graphVars(a.Vars, false), Label: g.label(t, a, &g.gaussLabels, lo),
			Pos: t.pos, ScalarName: "var", Scalar: a.Var}
	}
	if k, ok := g.siteOf(n); ok {
		s := g.Site(k)
		return siteFactor(s.Shared, g.graphVars(s.Aff.Vars, true), s.Y, s.Label)
	}
	panic(fmt.Sprintf("compile: factor %d is neither in the graph nor in the factor graph", n))
}

// priorFactor is the graph.Factor of the prior kind(params) of latent li
// at pos: over all its elements, labelled kind(NAME).
func (g *FactorGraph) priorFactor(li int, kind string, params map[string]float64, pos ast.Pos) graph.Factor {
	l := &g.graph.Latents[li]
	ids := make([]int, l.Size())
	for i := range ids {
		ids[i] = l.First + i
	}
	return graph.Factor{Kind: kind, Vars: ids, Label: kind + "(" + l.Name + ")", Params: params, Pos: pos}
}

// gateFactor is gate gt as a graph.Factor: an observed likelihood on its
// selector and the graph variables of its branches' projections, each
// once, in the order they first appear.
func (g *FactorGraph) gateFactor(gt *Gate) graph.Factor {
	vars := []int{g.Discrete[gt.Selector].Var}
	for _, b := range gt.Branches {
		for _, v := range b.Aff.Vars {
			if id := g.graphVar(v); !slices.Contains(vars[1:], id) {
				vars = append(vars, id)
			}
		}
	}
	b := &gt.Branches[0]
	return graph.Factor{Kind: b.Shared.Kind, Vars: vars, Y: b.Y, Observed: true, Label: gt.Label, Pos: gt.Pos}
}

// graphVar is the graph variable of FactorGraph variable v.
func (g *FactorGraph) graphVar(v int) int {
	for li, first := range g.First {
		if l := &g.graph.Latents[li]; first >= 0 && v >= first && v < first+l.Size() {
			return l.First + v - first
		}
	}
	panic(fmt.Sprintf("compile: variable %d is not in the factor graph", v))
}

// blockSiteFactor is site s of block b as a graph.Factor: on the elements
// of b's latent its projection has a non-zero coefficient for, in order.
func (g *FactorGraph) blockSiteFactor(b *Block, s *Site) graph.Factor {
	first := g.graph.Latents[b.Latent].First
	var vars []int
	switch {
	case s.Proj == nil:
		vars = []int{first + s.Index}
	case s.Vars != nil:
		for k, x := range s.Proj {
			if x != 0 {
				vars = append(vars, first+s.Vars[k])
			}
		}
		slices.Sort(vars)
	default:
		for j, x := range s.Proj {
			if x != 0 {
				vars = append(vars, first+j)
			}
		}
	}
	return siteFactor(s, vars, s.Y, s.Label)
}

// siteFactor is the likelihood site of kind, parameters and statement
// shared on vars with observation y as a graph.Factor. A mixture lists no
// parameters: its Params (the weights and the components' parameters)
// are there for learning to refuse it.
func siteFactor(shared *Site, vars []int, y float64, label string) graph.Factor {
	params := shared.Params
	if _, ok := shared.Lik.(factor.Mixture); ok {
		params = nil
	}
	return graph.Factor{Kind: shared.Kind, Vars: vars, Params: params, Y: y, Observed: true, Label: label, Pos: shared.Pos}
}

// graphVars are the graph variables of FactorGraph variables vars, in
// increasing order when sorted is set.
func (g *FactorGraph) graphVars(vars []int, sorted bool) []int {
	out := make([]int, len(vars))
	for k, v := range vars {
		out[k] = g.graphVar(v)
	}
	if sorted {
		slices.Sort(out)
	}
	return out
}
