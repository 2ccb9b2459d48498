package compile

import (
	"container/heap"
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
// graph.Factor — kind, graph variables, label, position, a conditional's
// variance as its Scalar — is made on demand from it, and their other
// parameters (a site's observation y and its likelihood's parameters, a
// Student-t prior's ν) too, by graph.ParamList: the list Graph was when it
// held every factor. Numbers are the factors' (Block.Factor,
// LinearGaussian.Factor, ...).
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
		l.each(false, func(n int, f graph.Factor, _ []graph.Param) bool { return yield(n, f) })
	}
}

// LabelledFactorParams is LabelledFactors with each factor's parameters
// beyond its Scalar (graph.ParamList): none for Graph's factors.
func (l modelFactors) LabelledFactorParams() iter.Seq2[graph.Factor, []graph.Param] {
	return func(yield func(graph.Factor, []graph.Param) bool) {
		l.each(true, func(_ int, f graph.Factor, ps []graph.Param) bool { return yield(f, ps) })
	}
}

// each calls yield with the factors in number order, with their
// parameters when params is set, until it returns false.
func (l modelFactors) each(params bool, yield func(int, graph.Factor, []graph.Param) bool) {
	off := l.fg.offCursors() // the off-graph factors, the next first
	n := 0                   // the next number
	emitOff := func() bool {
		for len(off) > 0 && off[0].num() == n {
			c := off[0]
			var ps []graph.Param
			if params {
				ps = c.params()
			}
			if !yield(n, c.factor(), ps) {
				return false
			}
			n++
			if c.advance() {
				heap.Fix(&off, 0)
			} else {
				heap.Pop(&off)
			}
		}
		return true
	}
	for _, f := range l.g.LabelledFactors() {
		if !emitOff() || !yield(n, f, nil) {
			return
		}
		n++
	}
	if emitOff() && len(off) > 0 {
		panic(fmt.Sprintf("compile: off-graph factor %d is not numbered after factor %d", off[0].num(), n-1))
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
// by its number in the list that holds it (offList).
func (g *FactorGraph) offGraphFactor(n int) graph.Factor {
	for _, l := range g.offLists() {
		if k := sort.Search(l.len(), func(k int) bool { return l.num(k) >= n }); k < l.len() && l.num(k) == n {
			return l.factor(k)
		}
	}
	panic(fmt.Sprintf("compile: factor %d is neither in the graph nor in the factor graph", n))
}

// An offList is one list of the off-graph factors, in number order: a
// dense block's prior, its sites or its mini-batch potentials, the
// gates, the linear-Gaussian factors or the affine sites. Their factors
// as graph.Factor values (factor) are: a whole-latent prior over every
// element of its latent, from its dense block or from the linear-Gaussian
// factors of its elements (which share its number: the list gives the
// first, next skips the others; their tag has the prior's kind and
// statement); a conditional normal on its target, then its mean's
// variables; a likelihood site (a block's or an affine one) on its
// variables in increasing order; a mini-batch potential exp(...) over
// every element of its block's latent; a gated likelihood on its
// selector, then the variables of its branches in the order they first
// appear.
type offList struct {
	g    *FactorGraph
	kind offKind
	b    *graph.Block
}

type offKind int

const (
	offPrior offKind = iota
	offBlockSites
	offBatches
	offGates
	offGaussians
	offSites
)

// offLists are g's lists of off-graph factors.
func (g *FactorGraph) offLists() []offList {
	var out []offList
	for _, b := range g.Dense {
		out = append(out, offList{g, offPrior, b}, offList{g, offBlockSites, b}, offList{g, offBatches, b})
	}
	return append(out, offList{g, offGates, nil}, offList{g, offGaussians, nil}, offList{g, offSites, nil})
}

func (l offList) len() int {
	switch l.kind {
	case offPrior:
		if l.b.Factor < 0 {
			return 0 // a compact latent's shared prior: no factor
		}
		return 1
	case offBlockSites:
		return len(l.b.Sites)
	case offBatches:
		return len(l.b.Batches)
	case offGates:
		return len(l.g.Gates)
	case offGaussians:
		return l.g.gaussians.Len()
	}
	return l.g.sites.Len()
}

// num is the number of factor k of the list.
func (l offList) num(k int) int {
	switch l.kind {
	case offPrior:
		return l.b.Factor
	case offBlockSites:
		return l.b.Sites[k].Factor
	case offBatches:
		return l.b.Batches[k].Factor
	case offGates:
		return l.g.Gates[k].Factor
	case offGaussians:
		return l.g.gaussians.Factor(k)
	}
	return l.g.sites.Factor(k)
}

// next is the index of the factor after k: k + 1, or past the elements
// of a whole-latent prior, which share its number.
func (l offList) next(k int) int {
	n := l.num(k)
	for k++; l.kind == offGaussians && k < l.len() && l.num(k) == n; k++ {
	}
	return k
}

// factor is factor k of the list as a graph.Factor.
func (l offList) factor(k int) graph.Factor {
	g := l.g
	switch l.kind {
	case offPrior:
		return g.priorFactor(l.b.Latent, l.b.Prior.Kind, l.b.PriorPos)
	case offBlockSites:
		return g.blockSiteFactor(l.b, &l.b.Sites[k])
	case offBatches:
		bf := &l.b.Batches[k]
		f := g.priorFactor(l.b.Latent, factor.Exp{}, bf.Pos)
		f.Label = bf.Label
		return f
	case offGates:
		return g.gateFactor(&g.Gates[k])
	case offGaussians:
		a := g.gaussians.At(k, nil, nil)
		t := &g.tags[a.Tag]
		if t.kind != nil {
			return g.priorFactor(g.graph.Vars[a.Vars[0]+t.gvar].Latent, t.kind, t.pos)
		}
		return graph.Factor{Kind: factor.NormalPrior{}, Vars: g.graphVars(a.Vars, false), Label: g.label(t, a, &g.gaussLabels, k),
			Pos: t.pos, ScalarName: "var", Scalar: a.Var}
	}
	s := g.Site(k)
	return siteFactor(s.Shared, g.graphVars(s.Aff.Vars, true), s.Label)
}

// params are factor k's parameters beyond its graph.Factor's Scalar
// (graph.ParamList): a Student-t prior's ν, a site's likelihood
// parameters and observation y, a gated likelihood's observation.
func (l offList) params(k int) []graph.Param {
	switch l.kind {
	case offPrior:
		return priorParams(l.b.Prior)
	case offBlockSites:
		s := &l.b.Sites[k]
		return siteFactorParams(s, s.Y)
	case offGates:
		return []graph.Param{{Name: "y", Value: l.g.Gates[k].Branches[0].Y}}
	case offSites:
		s := l.g.Site(k)
		return siteFactorParams(s.Shared, s.Y)
	}
	return nil // a mini-batch potential, a prior of Gaussian factors or a conditional (its variance is the Scalar)
}

// offCursor is the next factor k of list l.
type offCursor struct {
	l offList
	k int
}

func (c *offCursor) num() int              { return c.l.num(c.k) }
func (c *offCursor) factor() graph.Factor  { return c.l.factor(c.k) }
func (c *offCursor) params() []graph.Param { return c.l.params(c.k) }
func (c *offCursor) advance() bool         { c.k = c.l.next(c.k); return c.k < c.l.len() }

// offHeap is a min-heap of cursors by the number of their next factor,
// so that the off-graph factors are read in number order in O(log lists)
// each, however many blocks there are.
type offHeap []*offCursor

func (h offHeap) Len() int           { return len(h) }
func (h offHeap) Less(i, j int) bool { return h[i].num() < h[j].num() }
func (h offHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *offHeap) Push(x any)        { *h = append(*h, x.(*offCursor)) }
func (h *offHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// offCursors is a heap of cursors at the first factor of each non-empty
// list of off-graph factors.
func (g *FactorGraph) offCursors() offHeap {
	var h offHeap
	for _, l := range g.offLists() {
		if l.len() > 0 {
			h = append(h, &offCursor{l: l})
		}
	}
	heap.Init(&h)
	return h
}

// priorFactor is the graph.Factor of the prior kind of latent li at pos:
// over all its elements, labelled kind(NAME).
func (g *FactorGraph) priorFactor(li int, kind graph.Kind, pos ast.Pos) graph.Factor {
	l := &g.graph.Latents[li]
	ids := make([]int, l.Size())
	for i := range ids {
		ids[i] = l.First + i
	}
	return graph.Factor{Kind: kind, Vars: ids, Label: kind.Name() + "(" + l.Name + ")", Pos: pos}
}

// gateFactor is gate gt as a graph.Factor: an observed likelihood on its
// selector and the graph variables of its branches' projections, each
// once, in the order they first appear.
func (g *FactorGraph) gateFactor(gt *graph.Gate) graph.Factor {
	vars := []int{g.Discrete[gt.Selector].Var}
	for _, b := range gt.Branches {
		for _, v := range b.Aff.Vars {
			if id := g.graphVar(v); !slices.Contains(vars[1:], id) {
				vars = append(vars, id)
			}
		}
	}
	b := &gt.Branches[0]
	return graph.Factor{Kind: b.Shared.Lik, Vars: vars, Label: gt.Label, Pos: gt.Pos}
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
func (g *FactorGraph) blockSiteFactor(b *graph.Block, s *graph.Site) graph.Factor {
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
	return siteFactor(s, vars, s.Label)
}

// siteFactor is the likelihood site of kind and statement shared on vars
// as a graph.Factor.
func siteFactor(shared *graph.Site, vars []int, label string) graph.Factor {
	return graph.Factor{Kind: shared.Lik, Vars: vars, Label: label, Pos: shared.Pos}
}

// siteFactorParams are the parameters of a likelihood site of kind and
// statement shared with observation y: its likelihood's (Lik.Params())
// and y. A mixture lists y only: its Params
// (the weights and the components' parameters) are there for learning to
// refuse it.
func siteFactorParams(shared *graph.Site, y float64) []graph.Param {
	var out []graph.Param
	if _, ok := shared.Lik.(factor.Mixture); !ok {
		for name, v := range shared.Lik.Params() {
			out = append(out, graph.Param{Name: name, Value: v})
		}
	}
	return append(out, graph.Param{Name: "y", Value: y})
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
