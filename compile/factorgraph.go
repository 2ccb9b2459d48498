package compile

import (
	"iter"
	"reflect"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// FactorGraph is the real-latent part of a model, held once: a factor
// graph over the scalar elements of its real latents, with factors on
// affine expressions of any number of them, and dense Gaussian blocks
// over whole latents. It is the one form compile gives the engines;
// what they see of it are analyses:
//
//   - Blocks: the graph is independent Gaussian blocks — every real
//     latent one dense block whose sites are projections of its own
//     elements (plus mini-batch potentials and libsvm streams), no
//     linear-Gaussian factor, affine site or gate. The block engines
//     (infer/ep, tep, ffep, stream, shard, FITC, exact quadrature, ESS)
//     and Model.Structure read this view; compile builds such a graph
//     with each site in its block (Block.Sites) and nowhere else.
//   - otherwise a factor graph for infer/fgraph and its gold standards:
//     compile builds one when the model has an element-level conditional
//     (x[t] ~ normal(a*x[t-1] + b, q)), a prior whose parameters involve
//     latents (theta ~ normal(mu, tau^2)), or a factor whose argument
//     spans several latents or has a constant term
//     (probit(dot(X[i], w) + b), step(perf[g, 0] - perf[g, 1], 0)); its
//     sites are then all affine sites (Sites, SiteForms), its blocks
//     carry priors only.
//
// Variables: element e (row-major) of real latent l is variable
// First[l] + e; First[l] is −1 for latents that are not real. NumVars is
// the number of real elements. Every variable has exactly one prior or
// conditional (a Gaussian factor with Prior set, or membership of a Dense
// block); compile checks that and that the conditionals form no cycle, so
// the product of the prior factors is a proper joint Gaussian with
// normaliser 1 (a directed model).
//
// infer/run maps a FactorGraph to the engines: its block view to the
// block engines, else infer/fgraph for ep (and for exact when the graph
// is linear-Gaussian), and the joint Gaussian of the prior factors with
// the sites as projections for the gold standards.
type FactorGraph struct {
	NumVars int
	First   []int // per graph latent: variable of its element 0, or −1
	// gaussians are the linear-Gaussian factors N(0; aᵀx + c, Var):
	// priors on elements x ~ N(m, s²) (Aff = x − m), conditionals
	// x_t ~ N(a·x_{t−1} + b, q) (Aff = x_t − a·x_{t−1} − b), in graph
	// factor order (NumGaussians, Gaussian, Gaussians).
	gaussians graph.Affines
	// sites are likelihood factors p(y | aᵀx + c), including Gaussian
	// observations y ~ normal(aᵀx + c, r) (a factor.Normal site), in
	// graph factor order (NumSites, Site, Sites).
	sites graph.Affines
	// gaussLabels and siteLabels are the labels of the linear-Gaussian
	// factors and of the sites, one per factor in their order (labelCol).
	gaussLabels, siteLabels labelCol
	// tags are what the factors of one statement share (graph.Affine.Tag).
	tags []fgTag
	// graph names the factors (labels on demand); nil in graphs built by
	// hand, whose labels are their tags'.
	graph *graph.Graph
	// offGraph are the numbers of the model's factors that graph does not
	// hold — every continuous factor: the graph's own (whole-latent priors,
	// conditionals, sites, mini-batch potentials, gates) —, increasing, as
	// a column (a model of real latents only is one rule, 0, 1, 2, …);
	// graph holds the others, the discrete factors (Model.Factors).
	offGraph graph.Column[int]
	tagOf    map[fgTag]int // the index of each tag
	// Dense are the priors over a whole latent kept as one dense Gaussian
	// block (gp, mvnormal; in a graph of blocks also normal, student_t and
	// tp), with their sites in a graph of blocks (Blocks).
	Dense []*graph.Block
	// Discrete are the elements of the cat(K) latents with a categorical
	// prior in a model with Gates (gated likelihoods), in graph order.
	Discrete []graph.DiscreteVar
	// Gates are likelihoods whose parameters a discrete latent selects
	// (y[i] ~ normal(mu[z[i]], s2), probit(dot(X[i], w[z[i]]))).
	Gates []graph.Gate
}

// fgTag is what the factors of one statement share: the position of a
// Gaussian factor's statement, the Site of a likelihood's, and how their
// labels are made — kind(x[e]) from the target for the elements of a
// whole-latent prior (kind set; gvar maps a variable to its graph
// variable), or the label given (hand-built graphs), else the factor's
// own in the label columns (gaussLabels, siteLabels).
type fgTag struct {
	pos    ast.Pos
	shared *graph.Site
	kind   graph.PriorKind // an independent prior's kind (a zero-size value: tags are map keys)
	gvar   int
	label  string
}

// siteSharer makes AffineSites that share their Site with the site made
// before when it is of the same statement and likelihood.
type siteSharer struct{ last *graph.Site }

// site is the AffineSite of s with projection a.
func (sh *siteSharer) site(s graph.Site, a graph.Form) graph.AffineSite {
	if l := sh.last; l == nil || l.Pos != s.Pos || !sameLik(l.Lik, s.Lik) ||
		l.Vars != nil || s.Vars != nil || l.Offset != s.Offset {
		shared := s
		shared.Y, shared.Factor, shared.Label, shared.Index, shared.Proj = 0, 0, "", -1, nil
		sh.last = &shared
	}
	return graph.AffineSite{Shared: sh.last, Y: s.Y, Factor: s.Factor, Label: s.Label, Aff: a}
}

// sameLik reports whether a and b are equal likelihoods of a comparable
// type (a likelihood holding slices is never shared).
func sameLik(a, b graph.SiteKind) bool {
	t := reflect.TypeOf(a)
	return t == reflect.TypeOf(b) && t != nil && t.Comparable() && reflect.ValueOf(a).Equal(reflect.ValueOf(b))
}

// Blocks is the view of g as independent Gaussian blocks: g.Dense when
// every real latent is one dense block and g has no linear-Gaussian
// factor, affine site, gate or discrete variable (compile then keeps each
// site in its block), else nil. Engines that run blocks read it (the
// slice is g's: never write it); Model.Structure decides by it.
func (g *FactorGraph) Blocks() []*graph.Block {
	if len(g.Dense) == 0 || g.gaussians.Len() > 0 || g.sites.Len() > 0 || len(g.Gates) > 0 || len(g.Discrete) > 0 {
		return nil
	}
	return g.Dense
}

// BlockGraph is a factor graph of the independent Gaussian blocks
// blocks, built by hand (its Blocks view is blocks): their variables are
// numbered in order (each block's First is set) and no graph latent maps
// to them (First is nil).
func BlockGraph(blocks ...*graph.Block) *FactorGraph {
	g := &FactorGraph{Dense: blocks}
	for _, b := range blocks {
		b.First = g.NumVars
		g.NumVars += b.N
	}
	return g
}

// VarOf returns the variable of element e of real latent l.
func (g *FactorGraph) VarOf(l, e int) int { return g.First[l] + e }

// NumGaussians is the number of linear-Gaussian factors.
func (g *FactorGraph) NumGaussians() int { return g.gaussians.Len() }

// NumSites is the number of affine likelihood sites (none in a graph of
// blocks, whose sites are its blocks'; Blocks).
func (g *FactorGraph) NumSites() int { return g.sites.Len() }

// Gaussian is linear-Gaussian factor i, with its label and lists of its
// own.
func (g *FactorGraph) Gaussian(i int) graph.LinearGaussian {
	a := g.gaussians.At(i, nil, nil)
	f := g.gaussian(a)
	f.Label = g.label(&g.tags[a.Tag], a, &g.gaussLabels, i)
	return f
}

// Site is likelihood site i, with its label and lists of its own.
func (g *FactorGraph) Site(i int) graph.AffineSite {
	a := g.sites.At(i, nil, nil)
	s := g.site(a)
	s.Label = g.label(&g.tags[a.Tag], a, &g.siteLabels, i)
	return s
}

// GaussianLabel is the label of linear-Gaussian factor i, e.g. "normal(x[3])".
func (g *FactorGraph) GaussianLabel(i int) string { return g.Gaussian(i).Label }

// SiteLabel is the label of likelihood site i, e.g. "probit(y[3])".
func (g *FactorGraph) SiteLabel(i int) string { return g.Site(i).Label }

// SiteAt is likelihood site i as a Site (BlockSite) with its label.
func (g *FactorGraph) SiteAt(i int) graph.Site { return g.Site(i).BlockSite() }

// Gaussians iterates over the linear-Gaussian factors in order, without
// their labels (GaussianLabel makes one). The lists of a factor's Aff are
// reused for the next one: copy them to keep them.
func (g *FactorGraph) Gaussians() iter.Seq2[int, graph.LinearGaussian] {
	return func(yield func(int, graph.LinearGaussian) bool) {
		for i, a := range g.gaussians.All() {
			if !yield(i, g.gaussian(a)) {
				return
			}
		}
	}
}

// Sites iterates over the likelihood sites in order, without their labels
// (SiteLabel makes one). The lists of a site's Aff are reused for the
// next one: copy them to keep them.
func (g *FactorGraph) Sites() iter.Seq2[int, graph.AffineSite] {
	return func(yield func(int, graph.AffineSite) bool) {
		for i, a := range g.sites.All() {
			if !yield(i, g.site(a)) {
				return
			}
		}
	}
}

// gaussian assembles a linear-Gaussian factor (no label).
func (g *FactorGraph) gaussian(a graph.Affine) graph.LinearGaussian {
	t := &g.tags[a.Tag]
	return graph.LinearGaussian{Aff: graph.Form{Vars: a.Vars, Coefs: a.Coefs, Const: a.Const}, Var: a.Var, Target: a.Vars[0],
		Factor: a.Factor, Pos: t.pos}
}

// site assembles a likelihood site (no label).
func (g *FactorGraph) site(a graph.Affine) graph.AffineSite {
	t := &g.tags[a.Tag]
	return graph.AffineSite{Shared: t.shared, Y: a.Y, Factor: a.Factor, Aff: graph.Form{Vars: a.Vars, Coefs: a.Coefs, Const: a.Const}}
}

// label is the label of factor a of tag t, factor k of the label column
// col, made on demand.
func (g *FactorGraph) label(t *fgTag, a graph.Affine, col *labelCol, k int) string {
	switch {
	case t.label != "" || g.graph == nil:
		return t.label
	case t.kind != nil:
		b := append([]byte(t.kind.Name()), '(')
		b = g.graph.AppendVarName(b, a.Vars[0]+t.gvar)
		return string(append(b, ')'))
	}
	return col.At(k)
}

// SharedSites iterates over the Sites the likelihood sites share, in the
// order of the sites, once per stretch of sites that share one (a
// statement's sites come together): what the sites' kinds, likelihoods
// and positions are, without assembling each site.
func (g *FactorGraph) SharedSites() iter.Seq[*graph.Site] {
	return func(yield func(*graph.Site) bool) {
		for r := range g.SiteGroups() {
			if !yield(r.Shared) {
				return
			}
		}
	}
}

// A SiteGroup is a stretch of likelihood sites From … To−1 that share one
// Site (Shared: kind, likelihood, parameters, position).
type SiteGroup struct {
	Shared   *graph.Site
	From, To int
}

// SiteGroups iterates over the maximal stretches of sites that share a
// Site, in order, reading the sites' tags a stretch at a time.
func (g *FactorGraph) SiteGroups() iter.Seq[SiteGroup] {
	return func(yield func(SiteGroup) bool) {
		const chunk = 4096
		var tags []int32
		cur := SiteGroup{From: 0}
		last := int32(-1)
		n := g.sites.Len()
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			tags = g.sites.TagCol().AppendTo(tags[:0], lo, hi)
			for i, t := range tags {
				if t == last {
					continue
				}
				if last >= 0 {
					cur.To = lo + i
					if !yield(cur) {
						return
					}
				}
				last, cur = t, SiteGroup{Shared: g.tags[t].shared, From: lo + i}
			}
		}
		if last >= 0 {
			cur.To = n
			yield(cur)
		}
	}
}

// GaussianForms is the linear-Gaussian factors as graph.Affines (their
// forms, variances and graph factors, in order), SiteForms the likelihood
// sites (forms and observations): for engines that read the columns a
// stretch at a time. Read them, never write.
func (g *FactorGraph) GaussianForms() *graph.Affines { return &g.gaussians }
func (g *FactorGraph) SiteForms() *graph.Affines     { return &g.sites }

// AddGaussian appends f, whose target must be its first variable, with
// its label f.Label (a graph built by hand).
func (g *FactorGraph) AddGaussian(f graph.LinearGaussian) {
	if len(f.Aff.Vars) == 0 || f.Aff.Vars[0] != f.Target || f.Aff.Coefs[0] != 1 {
		panic("compile: a linear-Gaussian factor's first variable is its target, with coefficient 1")
	}
	g.mustBeGraph()
	g.addGaussian(f.Aff, f.Var, f.Factor, g.tag(fgTag{pos: f.Pos, label: f.Label}))
	g.gaussLabels.AddTagged(1)
}

// AddSite appends s with its label s.Label (a graph built by hand).
func (g *FactorGraph) AddSite(s graph.AffineSite) {
	g.mustBeGraph()
	g.addSite(s.Aff, s.Y, s.Factor, g.tag(fgTag{shared: s.Shared, label: s.Label}))
	g.siteLabels.AddTagged(1)
}

// mustBeGraph panics when a block of g holds factors of its own: those
// are a graph of blocks' (Blocks), which has no other factor.
func (g *FactorGraph) mustBeGraph() {
	for _, b := range g.Dense {
		if len(b.Sites) > 0 || len(b.Batches) > 0 || len(b.Streams) > 0 {
			panic("compile: a block with sites of its own is a graph of blocks, which takes no other factor")
		}
	}
}

func (g *FactorGraph) addGaussian(a graph.Form, v float64, factor, tag int) {
	g.gaussians.Add(graph.Affine{Vars: a.Vars, Coefs: a.Coefs, Const: a.Const, Var: v, Factor: factor, Tag: tag})
}

func (g *FactorGraph) addSite(a graph.Form, y float64, factor, tag int) {
	g.sites.Add(graph.Affine{Vars: a.Vars, Coefs: a.Coefs, Const: a.Const, Y: y, Factor: factor, Tag: tag})
}

// tag is the index of t among the tags, added when new.
func (g *FactorGraph) tag(t fgTag) int {
	if n := len(g.tags); n > 0 && g.tags[n-1] == t { // the factors of a statement come together
		return n - 1
	}
	if k, ok := g.tagOf[t]; ok {
		return k
	}
	if g.tagOf == nil {
		g.tagOf = map[fgTag]int{}
	}
	g.tagOf[t] = len(g.tags)
	g.tags = append(g.tags, t)
	return len(g.tags) - 1
}

// factorVars iterates over the variables of the factors of a (a list
// reused for the next factor): for the structure passes (forest,
// bandwidth, cycles), which read nothing else.
func factorVars(a *graph.Affines) iter.Seq2[int, []int] {
	return func(yield func(int, []int) bool) {
		var vars []int
		for k := range a.Len() {
			vars = a.AppendVars(k, vars[:0])
			if !yield(k, vars) {
				return
			}
		}
	}
}

// Bytes is the memory the factors' columns hold.
func (g *FactorGraph) Bytes() int64 {
	return g.gaussians.Bytes() + g.sites.Bytes() + g.gaussLabels.Bytes() + g.siteLabels.Bytes()
}
