package compile

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// expandProjections gives the old-path sites of a block model whose
// projection is not a single element their dense Proj, from the forms
// recorded while they compiled (the coefficients the jet path gives).
// Dense projections cost 8·N bytes a site: past the covariance limit the
// model is refused at the first such site instead of allocating.
func (c *compiler) expandProjections() {
	limit := float64(maxCovBytes)
	if c.opt.maxCovBytes > 0 {
		limit = c.opt.maxCovBytes
	}
	for lat, forms := range c.fg.proj {
		l := &c.m.Graph.Latents[lat]
		if bytes := float64(len(forms)) * float64(l.Size()) * 8; bytes > limit {
			first := -1
			for i := range forms {
				if first < 0 || i < first {
					first = i
				}
			}
			pos := c.sites[lat][first].Pos
			c.errAt(pos, pos, "the %d projections of `%s` that are not single elements need %d dense entries each (%.3g GB in all); the limit is %g GB: index the latent directly (%s[i]) where you can",
				len(forms), l.Name, l.Size(), bytes/(1<<30), limit/(1<<30), l.Name)
			continue
		}
		for i, f := range forms {
			p := make([]float64, l.Size())
			for k, id := range f.ids {
				p[id-l.First] = f.coefs[k]
			}
			c.sites[lat][i].Proj = p
		}
	}
}

// fgBuilder assembles a graph.FactorGraph from the compiled statements.
type fgBuilder struct {
	c     *compiler
	g     *graph.Graph
	fg    *graph.FactorGraph
	owner []int     // per variable: index into pos of its prior, −1 none
	pos   []ast.Pos // the positions of the priors and conditionals
	share siteSharer
	// vars and coefs are the lists of the form being added (the columns
	// copy them).
	vars  []int
	coefs []float64
}

// fgBytesPerElement is the memory one variable, or one factor outside a
// vector plate, of a factor-graph model costs from compile to the end of
// inference, and fgBytesPerVectorFactor one factor of a vector plate (a
// plate statement compiled once: its factors are columns of rules and
// values, graph.Affines, with labels on demand): the graph's and the
// engine's storage, messages and beliefs. A Gaussian chain written with
// vector plates peaks at 77–82 bytes of resident memory per element (one
// variable and two factors a step: 245–247 MB at T = 10⁶, 2.3 GB at 10⁷),
// charged 170; the same chain as an unrolled plate takes more than its
// charge (~600 bytes an element at T = 10⁶, compile's per-statement
// work). The budget (infer.MemoryBudget) already leaves the garbage
// collector its room.
const (
	fgBytesPerElement      = 256
	fgBytesPerVectorFactor = 128
)

// fgNeed is the memory a factor graph of factors factors, vec of them of
// vector plates, over vars variables takes through inference.
func fgNeed(factors, vec, vars int) int64 {
	return (int64(factors-vec)+int64(vars))*fgBytesPerElement + int64(vec)*fgBytesPerVectorFactor
}

// fgRates names the charge per element in messages.
var fgRates = fmt.Sprintf("%d bytes a variable or factor, %d a factor of a vector plate", fgBytesPerElement, fgBytesPerVectorFactor)

// chargeFactorGraph refuses, before anything is built, a factor graph of
// factors factors over vars variables whose memory would exceed the
// memory budget; the error is at the largest real latent. The statements
// were charged as they compiled (chargeElements): this is the model's
// final count.
func (c *compiler) chargeFactorGraph(factors, vars int) bool {
	need := fgNeed(factors, min(c.fg.vecFactors, factors), vars)
	budget := infer.MemoryBudget()
	if need <= budget {
		return true
	}
	if c.fg.overBudget { // a statement was refused: its error says it
		return false
	}
	g := c.m.Graph
	var at *graph.Latent
	for li := range g.Latents {
		if l := &g.Latents[li]; l.Domain == graph.Real && (at == nil || l.Size() > at.Size()) {
			at = l
		}
	}
	c.errAt(at.Pos, at.Pos, "the model is a factor graph of %d factors over %d variables (it is one because of the %s at %s): about %s through inference at %s, more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
		factors, vars, c.fg.what, c.fset.Position(c.fg.at), infer.FormatBytes(need), fgRates, infer.FormatBytes(budget))
	return false
}

// chargeElements charges the memory budget, before a statement of a
// factor-graph model makes them, with the n factors (conditionals or
// sites) it adds now and at each of its runs left in the plates being
// unrolled (plateLeft), on top of the graph's factors so far and the
// elements of the real latents: the count chargeFactorGraph makes at the
// end, as far as the statements so far determine it. Past the budget the
// statement is refused at the outermost plate that runs it (the
// statement itself outside plates), before its elements are allocated —
// a 10⁶-step chain under a budget of 300 MiB stops at its plate instead
// of after compiling it.
func (c *compiler) chargeElements(stmt ast.Node, n int) {
	if c.fg.overBudget { // refused once: the later statements only repeat it
		panic(abort{})
	}
	factors := c.nextFactor() + n*c.plateLeft()
	if c.vec != nil { // the statement's factors are a vector plate's
		c.fg.vecFactors += n
	}
	vars := c.realElements()
	need := fgNeed(factors, min(c.fg.vecFactors, factors), vars)
	budget := infer.MemoryBudget()
	if need <= budget {
		return
	}
	at, what := stmt.Pos(), "statement"
	switch {
	case len(c.plates) > 0:
		at, what = c.plates[0].at, "plate"
	case c.vec != nil:
		at, what = c.vec.at, "plate"
	}
	c.fg.overBudget = true
	c.errAt(at, at, "this %s makes the model a factor graph of at least %d factors over %d variables (it is one because of the %s at %s): about %s through inference at %s, more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
		what, factors, vars, c.fg.what, c.fset.Position(c.fg.at), infer.FormatBytes(need), fgRates, infer.FormatBytes(budget))
	panic(abort{})
}

// realElements is the number of elements of the real latents: the
// variables of the model's factor graph (counted once per latent).
func (c *compiler) realElements() int {
	lats := c.m.Graph.Latents
	for ; c.fg.counted < len(lats); c.fg.counted++ {
		if l := &lats[c.fg.counted]; l.Domain == graph.Real {
			c.fg.real += l.Size()
		}
	}
	return c.fg.real
}

// buildFactorGraph makes Model.FactorGraph of a model with a factor-graph
// construct: whole-latent priors become per-element linear-Gaussian factors
// (normal) or dense blocks (mvnormal, gp), conditionals linear-Gaussian
// factors, block sites and affine sites AffineSites. It checks that every
// element of a real latent has exactly one prior or conditional and that
// the conditionals form no cycle, and refuses (with positions) what the
// factor-graph engines do not serve yet.
func (c *compiler) buildFactorGraph() {
	g := c.m.Graph
	fg := graph.NewFactorGraph(g, &c.offGraph)
	if !c.chargeFactorGraph(c.nextFactor(), fg.NumVars) {
		return
	}
	b := &fgBuilder{c: c, g: g, fg: fg, owner: make([]int, fg.NumVars)}
	for i := range b.owner {
		b.owner[i] = -1
	}
	for li := range g.Latents {
		if g.Latents[li].Domain == graph.Real {
			b.latent(li)
		}
	}
	if !b.conditionalColumns(&c.fg.conds) {
		for k, d := range c.fg.conds.All() {
			b.conditional(d, k)
		}
	}
	c.fg.conds, c.fg.condLabels = graph.Affines{}, graph.LabelColumn{} // converted: let the collector have them
	for li := range g.Latents {
		if g.Latents[li].Domain == graph.Real {
			b.missing(li)
		}
	}
	b.cycles()
	// The sites last: the conditionals' list is garbage by now.
	for li := range g.Latents {
		if g.Latents[li].Domain == graph.Real {
			b.latentSites(li)
		}
	}
	if !b.moveIdx() {
		for k, d := range c.fg.idx.All() {
			fg.AppendSite(b.unit(b.varOf(d.Vars[0]), 0), d.Y, d.Factor, fg.SiteTag(c.fg.idxSites[d.Tag]))
			fg.SiteLabels().AppendFrom(&c.fg.idxLabels, k)
		}
	}
	c.fg.idx, c.fg.idxLabels, c.fg.idxSites = graph.Affines{}, graph.LabelColumn{}, nil
	for _, s := range c.fg.sites {
		b.addSite(s.site, b.form(s.aff))
	}
	c.fg.sites = nil
	c.gateGraph(fg, b.affine)
	fg.SortByFactor()
	c.m.FactorGraph = fg
}

// moveIdx makes the single-element sites compiled into columns
// (fgState.idx) the graph's sites without copying them, when they are the
// first sites and every real latent's variables are its graph variables
// (no other latent before one: varOf is the identity): their forms x[v] are
// already the graph's, and only their tags move (by the number of tags
// before theirs). It reports whether it did.
func (b *fgBuilder) moveIdx() bool {
	c, fg := b.c, b.fg
	if fg.NumSites() > 0 || c.fg.idx.Len() == 0 {
		return false
	}
	if !b.identity() {
		return false
	}
	base := fg.NumTags()
	for t, shared := range c.fg.idxSites {
		if fg.SiteTag(shared) != base+t {
			return false // a tag seen before: the copy below finds the tags added
		}
	}
	fg.MoveSites(&c.fg.idx, &c.fg.idxLabels, base)
	return true
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

// sameParams reports whether a and b are likelihoods of one kind with
// equal parameters (Params): equal values (sameLik) without building
// their maps, else by the maps (a likelihood holding slices, or one
// whose value holds more than its parameters).
func sameParams(a, b graph.SiteKind) bool {
	return sameLik(a, b) || graph.SameKind(a, b) && maps.Equal(a.Params(), b.Params())
}

// addSite appends the site s on the form a (in b.vars, b.coefs or its own).
func (b *fgBuilder) addSite(s graph.Site, a graph.Form) {
	as := b.share.site(s, a)
	b.fg.AppendSite(a, s.Y, s.Factor, b.fg.SiteTag(as.Shared))
	b.fg.SiteLabels().Add(s.Label)
}

// refuse reports a construct the factor-graph engines cannot serve yet.
func (c *compiler) refuse(at ast.Pos, what string) {
	c.errAt(at, at, "%s cannot be combined with a factor-graph model yet; this model is a factor graph because of the %s at %s",
		what, c.fg.what, c.fset.Position(c.fg.at))
}

// varOf is the FactorGraph variable of graph variable id.
func (b *fgBuilder) varOf(id int) int {
	v := b.g.Vars[id]
	return b.fg.First[v.Latent] + v.Index
}

// form maps a form over graph variables to FactorGraph variables, in the
// builder's lists (valid until the next form).
func (b *fgBuilder) form(f lin) graph.Form {
	b.vars, b.coefs = b.vars[:0], b.coefs[:0]
	for k, id := range f.ids {
		b.vars, b.coefs = append(b.vars, b.varOf(id)), append(b.coefs, f.coefs[k])
	}
	return graph.Form{Vars: b.vars, Coefs: b.coefs, Const: f.c}
}

// affine maps a form over graph variables to FactorGraph variables.
func (b *fgBuilder) affine(f lin) graph.Form {
	a := graph.Form{Vars: make([]int, len(f.ids)), Coefs: append([]float64(nil), f.coefs...), Const: f.c}
	for k, id := range f.ids {
		a.Vars[k] = b.varOf(id)
	}
	return a
}

// own records that the prior or conditional at pos covers variable v
// (graph variable id); a second one is an error naming both.
func (b *fgBuilder) own(v int, at ast.Pos, id int) bool {
	if o := b.owner[v]; o >= 0 {
		b.c.errAt(at, at, "%s already has a prior or conditional (at %s); every element of a real latent has exactly one", b.g.VarName(id), b.c.fset.Position(b.pos[o]))
		return false
	}
	if len(b.pos) == 0 || b.pos[len(b.pos)-1] != at {
		b.pos = append(b.pos, at)
	}
	b.owner[v] = len(b.pos) - 1
	return true
}

// latent converts latent li's whole-latent prior (its block sites are
// latentSites').
func (b *fgBuilder) latent(li int) {
	c, l := b.c, &b.g.Latents[li]
	for _, bf := range c.batches[li] {
		c.refuse(bf.Pos, fmt.Sprintf("`factor exp(...)` on `%s` (a mini-batch potential)", l.Name))
		break
	}
	for _, st := range c.streams[li] {
		c.refuse(st.Pos, fmt.Sprintf("the libsvm plate %s", st.Label))
		break
	}
	if p, ok := c.prior[li]; ok {
		b.prior(li, p)
	}
}

// latentSites converts latent li's block sites to sites of the graph.
func (b *fgBuilder) latentSites(li int) {
	c, fg := b.c, b.fg
	first := fg.First[li]
	for i, s := range c.sites[li] {
		var a graph.Form
		switch {
		case s.Index >= 0:
			a = b.unit(first+s.Index, 0)
		case c.fg.proj[li] != nil && c.fg.proj[li][i].ids != nil:
			a = b.form(c.fg.proj[li][i])
		default:
			b.vars, b.coefs = b.vars[:0], b.coefs[:0]
			for j, x := range s.Proj {
				if x != 0 {
					b.vars, b.coefs = append(b.vars, first+j), append(b.coefs, x)
				}
			}
			a = graph.Form{Vars: b.vars, Coefs: b.coefs}
		}
		s.Index, s.Proj = -1, nil
		b.addSite(s, a)
	}
	if c.lf == nil || len(c.lf.sites) == 0 { // learn's slots index c.sites; otherwise converted
		delete(c.sites, li)
	}
}

// unit is the form x[v] + c, in the builder's lists (valid until the
// next form).
func (b *fgBuilder) unit(v int, c float64) graph.Form {
	b.vars, b.coefs = append(b.vars[:0], v), append(b.coefs[:0], 1)
	return graph.Form{Vars: b.vars, Coefs: b.coefs, Const: c}
}

// prior converts the whole-latent prior p of latent li.
func (b *fgBuilder) prior(li int, p *priorDecl) {
	c, l, fg := b.c, &b.g.Latents[li], b.fg
	first := fg.First[li]
	switch {
	case p.prior.FITC != nil:
		c.refuse(p.pos, fmt.Sprintf("the sparse (FITC) gp prior of `%s`", l.Name))
		b.ownAll(li, p.pos)
	case p.prior.Kind.Independent():
		// Labels kind(x[e]), made on demand from the target.
		tag := fg.PriorTag(p.pos, p.prior.Kind, l.First-first)
		for e := 0; e < l.Size(); e++ {
			v := first + e
			if !b.own(v, p.pos, l.First+e) {
				continue
			}
			fg.AppendGaussian(b.unit(v, 0-p.prior.Mean[e]), p.prior.Var[e], p.factor, tag)
			fg.GaussianLabels().AddTagged(1)
		}
	case p.prior.Kind.Family() == graph.Gaussian:
		b.ownAll(li, p.pos)
		fg.Dense = append(fg.Dense, &graph.Block{Latent: li, Name: l.Name, First: first, N: l.Size(), Prior: p.prior, Factor: p.factor,
			Pos: l.Pos, PriorPos: p.pos})
	default:
		c.refuse(p.pos, fmt.Sprintf("the %s prior of `%s`", p.prior.Kind.Name(), l.Name))
		b.ownAll(li, p.pos)
	}
}

// ownAll marks the elements of latent li as covered by the refused prior
// at pos, so that its error is not followed by a "no prior" one.
func (b *fgBuilder) ownAll(li int, pos ast.Pos) {
	l := &b.g.Latents[li]
	for e := 0; e < l.Size(); e++ {
		b.own(b.fg.First[li]+e, pos, l.First+e)
	}
}

// conditional converts x_t ~ N(mean, v) (d: the target, then the mean's
// variables and coefficients over graph variables, its constant, v) into
// the factor N(0; x_t − mean, v).
func (b *fgBuilder) conditional(d graph.Affine, k int) {
	target := d.Vars[0]
	t := b.varOf(target)
	pos := b.c.fg.condPos[d.Tag]
	if !b.own(t, pos, target) {
		return
	}
	a, ok := condFactor(d, b.varOf, b.vars, b.coefs)
	if !ok {
		b.c.errAt(pos, pos, "the conditional of %s has %s in its own mean: the conditionals form a cycle", b.g.VarName(target), b.g.VarName(target))
		return
	}
	b.vars, b.coefs = a.Vars, a.Coefs
	b.fg.AppendGaussian(a, d.Var, d.Factor, b.fg.ConditionalTag(pos))
	b.fg.GaussianLabels().AppendFrom(&b.c.fg.condLabels, k)
}

// conditionalColumns converts the conditionals conds as conditional does
// each, a stretch of columns at a time, when every real latent's
// variables are its graph variables (varOf is the identity) and no
// conditional is refused (a second prior or conditional of an element, an
// element in its own mean): the targets and the means' variables stay the
// columns they are, the means' coefficients and constants become 0 − a and
// −b (a constant stretch stays one number: Column.Map), and only the
// targets' ownership and the tags are recorded an element at a time, from
// the columns read a stretch at a time. It reports whether it converted
// them; otherwise nothing has changed and conditional converts each.
func (b *fgBuilder) conditionalColumns(conds *graph.Affines) bool {
	n := conds.Len()
	if n == 0 || !b.identity() || b.c.opt.perElement {
		return n == 0
	}
	const chunk = 4096
	slots := make([][]int, conds.Slots())
	seen := make([]bool, b.fg.NumVars)
	for lo := 0; lo < n; lo += chunk { // read only: is any refused?
		hi := min(lo+chunk, n)
		for j := range slots {
			slots[j] = conds.VarsCol(j).AppendTo(slots[j][:0], lo, hi)
		}
		for i, t := range slots[0] {
			if b.owner[t] >= 0 || seen[t] {
				return false
			}
			seen[t] = true
			for j := 1; j < len(slots) && slots[j][i] >= 0; j++ {
				if slots[j][i] == t {
					return false
				}
			}
		}
	}
	var tags graph.Column[int32]
	var stmts []int32
	lastStmt, lastTag, lastPos := int32(-1), 0, ast.Pos(0)
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		slots[0] = conds.VarsCol(0).AppendTo(slots[0][:0], lo, hi)
		stmts = conds.TagCol().AppendTo(stmts[:0], lo, hi)
		for i, t := range slots[0] {
			if st := stmts[i]; st != lastStmt {
				lastStmt, lastPos = st, b.c.fg.condPos[st]
				lastTag = b.fg.ConditionalTag(lastPos)
			}
			b.own(t, lastPos, t)
			tags.Add(int32(lastTag))
		}
	}
	conds.MapCoefs(1, condCoef)
	conds.MapConsts(condConst)
	conds.SetTags(tags)
	b.fg.AppendGaussians(conds, &b.c.fg.condLabels)
	return true
}

// identity reports whether every real latent's FactorGraph variables are
// its graph variables (varOf(id) = id).
func (b *fgBuilder) identity() bool {
	for li, first := range b.fg.First {
		if first >= 0 && first != b.g.Latents[li].First {
			return false
		}
	}
	return true
}

// condFactor is the factor N(0; x_t − mean, v) of the conditional d over
// graph variables (condAffine's form: target first) as a form over
// FactorGraph variables (varOf), in vars[:0] and coefs[:0]; false when
// the mean reads the target (a cycle).
func condFactor(d graph.Affine, varOf func(int) int, vars []int, coefs []float64) (graph.Form, bool) {
	vars, coefs = append(vars[:0], varOf(d.Vars[0])), append(coefs[:0], 1)
	for k, id := range d.Vars[1:] {
		if id == d.Vars[0] {
			return graph.Form{}, false
		}
		vars, coefs = append(vars, varOf(id)), append(coefs, condCoef(d.Coefs[1+k]))
	}
	return graph.Form{Vars: vars, Coefs: coefs, Const: condConst(d.Const)}, true
}

// condCoef and condConst are a mean's coefficient a and constant b as the
// factor N(0; x_t − mean, v) holds them: −a and 0 − b (+0 for b = ±0).
func condCoef(a float64) float64  { return -a }
func condConst(b float64) float64 { return 0 - b }

// missing reports the elements of latent li that have no prior or
// conditional: one error per latent, at its declaration.
func (b *fgBuilder) missing(li int) {
	c, l := b.c, &b.g.Latents[li]
	if c.fg.tried[li] != c.fg.done[li] {
		return // a conditional on li failed; its error explains the rest
	}
	if _, ok := c.prior[li]; !ok && c.priorTried[li] {
		return
	}
	first := b.fg.First[li]
	var miss []int
	for e := 0; e < l.Size(); e++ {
		if b.owner[first+e] < 0 {
			miss = append(miss, e)
		}
	}
	switch {
	case len(miss) == 0:
	case len(miss) == l.Size():
		c.errAt(l.Pos, l.Pos, "real latent `%s` has no prior; add one, e.g. latent %s: real[...] ~ normal(0, 1), or conditionals on its elements (%s[0] ~ normal(0, 1))", l.Name, l.Name, l.Name)
	default:
		names := make([]string, 0, 3)
		for _, e := range miss[:min(3, len(miss))] {
			names = append(names, b.g.VarName(l.First+e))
		}
		more := ""
		if len(miss) > 3 {
			more = fmt.Sprintf(" and %d more", len(miss)-3)
		}
		c.errAt(l.Pos, l.Pos, "%s%s of `%s` have no prior or conditional; every element of a real latent needs exactly one (e.g. %s ~ normal(0, 1))",
			strings.Join(names, ", "), more, l.Name, names[0])
	}
}

// parentsPrecede reports whether every conditional's other variables come
// before its target (vars[0]) in the variables' order — a chain or a
// hierarchy declared top down — so that they cannot form a cycle.
func parentsPrecede(a *graph.Affines) bool {
	for _, vars := range a.FactorVars() {
		for _, v := range vars[1:] {
			if v >= vars[0] {
				return false
			}
		}
	}
	return true
}

// cycles checks that the conditionals form a directed acyclic graph (each
// factor's target depends on the variables of its mean), so that the
// product of the prior factors is a proper joint Gaussian. Kahn's
// algorithm in O(variables + edges); a cycle is then found by walking from
// a variable left over to one of its parents left over until one repeats.
func (b *fgBuilder) cycles() {
	fg := b.fg
	gs := fg.GaussianForms()
	if parentsPrecede(gs) {
		return // the variables' order is a topological order
	}
	// The parents of t are the other variables of its conditional's form;
	// the children of v are children[row[v]:row[v+1]] (compressed rows).
	cond := make([]int, fg.NumVars) // the Gaussians index of a variable's conditional
	for i := range cond {
		cond[i] = -1
	}
	indeg := make([]int, fg.NumVars)
	row := make([]int, fg.NumVars+1)
	for gi, vars := range gs.FactorVars() {
		t := vars[0] // the target
		cond[t] = gi
		for _, v := range vars {
			if v != t {
				row[v+1]++
				indeg[t]++
			}
		}
	}
	for v := range fg.NumVars {
		row[v+1] += row[v]
	}
	children, fill := make([]int, row[fg.NumVars]), slices.Clone(row[:fg.NumVars])
	for _, vars := range gs.FactorVars() {
		for _, v := range vars[1:] {
			if v != vars[0] {
				children[fill[v]] = vars[0]
				fill[v]++
			}
		}
	}
	queue := make([]int, 0, fg.NumVars)
	for v, d := range indeg {
		if d == 0 {
			queue = append(queue, v)
		}
	}
	for k := 0; k < len(queue); k++ {
		v := queue[k]
		for _, ch := range children[row[v]:row[v+1]] {
			if indeg[ch]--; indeg[ch] == 0 {
				queue = append(queue, ch)
			}
		}
	}
	if len(queue) == fg.NumVars {
		return
	}
	start := -1
	for v, d := range indeg {
		if d > 0 {
			start = v
			break
		}
	}
	step := map[int]int{}
	path := []int{}
	for v := start; ; {
		if at, seen := step[v]; seen {
			path = path[at:]
			break
		}
		step[v] = len(path)
		path = append(path, v)
		for _, p := range fg.Gaussian(cond[v]).Aff.Vars {
			if p != v && indeg[p] > 0 {
				v = p
				break
			}
		}
	}
	// path runs from child to parent; print it parent first, starting at
	// the conditional written first.
	cyc := make([]int, len(path))
	at := 0
	for k := range path {
		cyc[k] = path[len(path)-1-k]
		if gs.Factor(cond[cyc[k]]) < gs.Factor(cond[cyc[at]]) {
			at = k
		}
	}
	cyc = append(cyc[at:], cyc[:at]...)
	var parts []string
	for _, v := range cyc {
		g := fg.Gaussian(cond[v])
		parts = append(parts, fmt.Sprintf("%s (at %s)", b.nameOf(v), b.c.fset.Position(g.Pos)))
	}
	first := fg.Gaussian(cond[cyc[0]])
	b.c.errAt(first.Pos, first.Pos, "the conditionals form a cycle: %s → %s; a directed model needs an order in which each element's mean uses earlier elements only",
		strings.Join(parts, " → "), b.nameOf(cyc[0]))
}

// nameOf renders FactorGraph variable v as x[3].
func (b *fgBuilder) nameOf(v int) string {
	for li, f := range b.fg.First {
		if f >= 0 && v >= f && v < f+b.g.Latents[li].Size() {
			return b.g.VarName(b.g.Latents[li].First + v - f)
		}
	}
	return fmt.Sprint(v)
}
