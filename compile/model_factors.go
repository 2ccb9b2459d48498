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
// `fg check`, the labels an expect line names): Graph's, interleaved with
// the factors only the FactorGraph holds (whole-latent priors, mini-batch
// potentials, gated likelihoods), whose graph.Factor — kind, graph
// variables, label, parameters, position — is made on demand from the
// FactorGraph.
// Numbers are the factors' (Block.Factor, LinearGaussian.Factor, ...).
func (m *Model) Factors() graph.FactorList {
	if fg := m.FactorGraph; fg != nil && len(fg.offGraph) > 0 {
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

func (l modelFactors) NumFactors() int { return l.g.NumFactors() + len(l.fg.offGraph) }

func (l modelFactors) LabelledFactor(i int) graph.Factor {
	off := l.fg.offGraph
	if k := sort.SearchInts(off, i); k < len(off) && off[k] == i {
		return l.fg.offGraphFactor(i)
	}
	return l.g.LabelledFactor(l.fg.graphIndex(i))
}

func (l modelFactors) LabelledFactors() iter.Seq2[int, graph.Factor] {
	return func(yield func(int, graph.Factor) bool) {
		off, k := l.fg.offGraph, 0
		for j, f := range l.g.LabelledFactors() {
			// Graph's factor j is number j + k when k off-graph factors
			// come before it.
			for ; k < len(off) && off[k] == j+k; k++ {
				if !yield(off[k], l.fg.offGraphFactor(off[k])) {
					return
				}
			}
			if !yield(j+k, f) {
				return
			}
		}
		for ; k < len(off); k++ {
			if !yield(off[k], l.fg.offGraphFactor(off[k])) {
				return
			}
		}
	}
}

// graphIndex is the index in the model's Graph of factor number n, a
// factor Graph holds.
func (g *FactorGraph) graphIndex(n int) int { return n - sort.SearchInts(g.offGraph, n) }

// factorPos is the position of factor number n, a factor Graph holds.
func (g *FactorGraph) factorPos(n int) ast.Pos { return g.graph.FactorPos(g.graphIndex(n)) }

// offGraphFactor is off-graph factor number n as a graph.Factor: a
// whole-latent prior over every element of its latent, from its dense
// block or from the linear-Gaussian factors of its elements (which share
// number n; their tag has the prior's kind and statement); a mini-batch
// potential exp(...) over every element of its block's latent; a gated
// likelihood on its selector, then the variables of its branches in the
// order they first appear.
func (g *FactorGraph) offGraphFactor(n int) graph.Factor {
	for _, b := range g.Dense {
		if b.Factor == n {
			return g.priorFactor(b.Latent, b.Prior.Kind.Name(), priorParams(b.Prior), b.PriorPos)
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
		return g.priorFactor(g.graph.Vars[a.Vars[0]+t.gvar].Latent, t.kind, nil, t.pos)
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
