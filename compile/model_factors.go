package compile

import (
	"fmt"
	"iter"
	"sort"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// Factors is the model's list of its factors in compile order (Dump, DOT,
// `fg check`, the labels an expect line names): Graph's, interleaved with
// the factors only the FactorGraph holds (its whole-latent priors), whose
// graph.Factor — kind, the latent's variables, label kind(NAME),
// parameters, position — is made on demand from the FactorGraph.
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

// offGraphFactor is off-graph factor number n as the graph.Factor Graph
// held before: a whole-latent prior over every element of its latent,
// from its dense block or from the linear-Gaussian factors of its
// elements (which share number n; their tag has the prior's kind and
// statement).
func (g *FactorGraph) offGraphFactor(n int) graph.Factor {
	for _, b := range g.Dense {
		if b.Factor == n {
			return g.priorFactor(b.Latent, b.Prior.Kind.Name(), priorParams(b.Prior), b.PriorPos)
		}
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
