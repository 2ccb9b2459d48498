package graph

import (
	"sort"

	"github.com/fg-infer/fg/lang/ast"
)

// The building of a FactorGraph: compile makes one with NewFactorGraph,
// interns the tags its statements' factors share (ConditionalTag,
// PriorTag, SiteTag), appends the factors (AppendGaussian, AppendSite, or
// whole columns: AppendGaussians, MoveSites) with one label each in the
// label columns (GaussianLabels, SiteLabels), and orders them by their
// numbers (SortByFactor). Graphs built by hand take AddGaussian and
// AddSite, whose labels are their own.

// NewFactorGraph is the factor graph of g's real latents with their
// variables and no factor yet; offGraph are the numbers of the model's
// factors g does not hold (OffGraph), copied.
func NewFactorGraph(g *Graph, offGraph *Column[int]) *FactorGraph {
	fg := &FactorGraph{First: make([]int, len(g.Latents)), graph: g, offGraph: *offGraph}
	for li := range g.Latents {
		fg.First[li] = -1
		if l := &g.Latents[li]; l.Domain == Real {
			fg.First[li] = fg.NumVars
			fg.NumVars += l.Size()
		}
	}
	return fg
}

// AddGaussian appends f, whose target must be its first variable, with
// its label f.Label (a graph built by hand).
func (g *FactorGraph) AddGaussian(f LinearGaussian) {
	if len(f.Aff.Vars) == 0 || f.Aff.Vars[0] != f.Target || f.Aff.Coefs[0] != 1 {
		panic("graph: a linear-Gaussian factor's first variable is its target, with coefficient 1")
	}
	g.mustBeGraph()
	g.AppendGaussian(f.Aff, f.Var, f.Factor, g.tag(factorTag{pos: f.Pos, label: f.Label}))
	g.gaussLabels.AddTagged(1)
}

// AddSite appends s with its label s.Label (a graph built by hand).
func (g *FactorGraph) AddSite(s AffineSite) {
	g.mustBeGraph()
	g.AppendSite(s.Aff, s.Y, s.Factor, g.tag(factorTag{shared: s.Shared, label: s.Label}))
	g.siteLabels.AddTagged(1)
}

// mustBeGraph panics when a block of g holds factors of its own: those
// are a graph of blocks' (Blocks), which has no other factor.
func (g *FactorGraph) mustBeGraph() {
	for _, b := range g.Dense {
		if len(b.Sites) > 0 || len(b.Batches) > 0 || len(b.Streams) > 0 {
			panic("graph: a block with sites of its own is a graph of blocks, which takes no other factor")
		}
	}
}

// tag is the index of t among the tags, added when new.
func (g *FactorGraph) tag(t factorTag) int {
	if n := len(g.tags); n > 0 && g.tags[n-1] == t { // the factors of a statement come together
		return n - 1
	}
	if k, ok := g.tagOf[t]; ok {
		return k
	}
	if g.tagOf == nil {
		g.tagOf = map[factorTag]int{}
	}
	g.tagOf[t] = len(g.tags)
	g.tags = append(g.tags, t)
	return len(g.tags) - 1
}

// ConditionalTag is the tag of a conditional (or any linear-Gaussian
// factor labelled by the label columns) of the statement at pos.
func (g *FactorGraph) ConditionalTag(pos ast.Pos) int { return g.tag(factorTag{pos: pos}) }

// PriorTag is the tag of the elements of a whole-latent prior of kind
// kind at pos, whose labels kind(x[e]) are made on demand from the
// factor's target: FactorGraph variable v is graph variable v + gvar.
func (g *FactorGraph) PriorTag(pos ast.Pos, kind PriorKind, gvar int) int {
	return g.tag(factorTag{pos: pos, kind: kind, gvar: gvar})
}

// SiteTag is the tag of the sites that share shared (AffineSite.Shared).
func (g *FactorGraph) SiteTag(shared *Site) int { return g.tag(factorTag{shared: shared}) }

// NumTags is the number of tags interned.
func (g *FactorGraph) NumTags() int { return len(g.tags) }

// AppendGaussian appends the linear-Gaussian factor N(0; a, v) of graph
// factor number factor with tag (its form is copied); the builder adds
// its label to GaussianLabels.
func (g *FactorGraph) AppendGaussian(a Form, v float64, factor, tag int) {
	g.gaussians.Add(Affine{Vars: a.Vars, Coefs: a.Coefs, Const: a.Const, Var: v, Factor: factor, Tag: tag})
}

// AppendSite appends the likelihood site on form a with observation y of
// graph factor number factor with tag (its form is copied); the builder
// adds its label to SiteLabels.
func (g *FactorGraph) AppendSite(a Form, y float64, factor, tag int) {
	g.sites.Add(Affine{Vars: a.Vars, Coefs: a.Coefs, Const: a.Const, Y: y, Factor: factor, Tag: tag})
}

// AppendGaussians appends the factors of a, whose tags are g's, copied a
// stretch of columns at a time, and moves labels (one per factor of a)
// to the end of GaussianLabels.
func (g *FactorGraph) AppendGaussians(a *Affines, labels *LabelColumn) {
	g.gaussians.AppendRange(a, 0, a.Len())
	g.gaussLabels.Move(labels)
}

// MoveSites makes the factors of a, a graph without sites yet, its sites
// without copying them — their tags shifted by shift to g's, a emptied —
// and moves labels (one per factor of a) to SiteLabels.
func (g *FactorGraph) MoveSites(a *Affines, labels *LabelColumn, shift int) {
	if g.sites.Len() > 0 {
		panic("graph: MoveSites on a graph with sites")
	}
	g.sites, *a = *a, Affines{}
	g.sites.ShiftTags(shift)
	g.siteLabels.Move(labels)
}

// GaussianLabels and SiteLabels are the label columns of the
// linear-Gaussian factors and of the sites, to which the builder adds one
// label per factor it appends (LabelColumn.AddTagged when the factor's
// tag makes it).
func (g *FactorGraph) GaussianLabels() *LabelColumn { return &g.gaussLabels }
func (g *FactorGraph) SiteLabels() *LabelColumn     { return &g.siteLabels }

// SortByFactor orders the linear-Gaussian factors and the sites by their
// numbers (byFactor) once they are all appended; it panics when a factor
// has no label.
func (g *FactorGraph) SortByFactor() {
	byFactor(&g.gaussians, &g.gaussLabels)
	byFactor(&g.sites, &g.siteLabels)
	if g.gaussLabels.Len() != g.gaussians.Len() || g.siteLabels.Len() != g.sites.Len() {
		panic("graph: a factor of the factor graph without its label")
	}
}

// byFactor orders the factors of a and their labels by their numbers,
// keeping the order of equal ones (the elements of one prior): a copy in
// that order when they are not in it already (they are when the
// statements add their factors in order, as plates do).
func byFactor(a *Affines, labels *LabelColumn) {
	if a.Sorted() {
		return
	}
	n := a.Len()
	perm := make([]int, n)
	for k := range perm {
		perm[k] = k
	}
	sort.SliceStable(perm, func(i, j int) bool { return a.Factor(perm[i]) < a.Factor(perm[j]) })
	var out Affines
	var outLabels LabelColumn
	var vars []int
	var coefs []float64
	for _, k := range perm {
		f := a.At(k, vars, coefs) // in perm's order
		vars, coefs = f.Vars, f.Coefs
		out.Add(f)
		outLabels.AppendFrom(labels, k)
	}
	*a, *labels = out, outLabels
}

// RewriteGaussians sets the numbers of the linear-Gaussian factors
// (learning: Affines.Rewrite, which replaces their number columns,
// never writes them).
func (g *FactorGraph) RewriteGaussians(f func(k int, coefs []float64, c, v *float64)) {
	g.gaussians.Rewrite(f)
}
