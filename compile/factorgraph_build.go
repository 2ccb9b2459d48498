package compile

import (
	"fmt"
	"slices"
	"sort"
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

// fgBuilder assembles a FactorGraph from the compiled statements.
type fgBuilder struct {
	c     *compiler
	g     *graph.Graph
	fg    *FactorGraph
	owner []int     // per variable: index into pos of its prior, −1 none
	pos   []ast.Pos // the positions of the priors and conditionals
	share siteSharer
	// vslab and cslab hold the variables and coefficients of the
	// conditionals' affine forms, one allocation for all of them.
	vslab []int
	cslab []float64
	iota  []int // 0, 1, …, NumVars−1: the variables of the unit forms
}

// fgBytesPerElement is the memory one factor or one variable of a
// factor-graph model costs from compile to the end of inference: its
// LinearGaussian or AffineSite, the engine's columns (infer/fgraph's Grow)
// and its messages and beliefs. Measured as 380–470 bytes of live heap per
// step (one variable, one factor) of a Gaussian chain at T = 4·10⁵ … 8·10⁵;
// the budget (infer.MemoryBudget) already leaves the garbage collector its
// room, so the charge is the live size, rounded up.
const fgBytesPerElement = 256

// fgNeed is the memory a factor graph of factors factors over vars
// variables takes through inference (fgBytesPerElement each).
func fgNeed(factors, vars int) int64 {
	return (int64(factors) + int64(vars)) * fgBytesPerElement
}

// chargeFactorGraph refuses, before anything is built, a factor graph of
// factors factors over vars variables whose memory would exceed the
// memory budget; the error is at the largest real latent. The statements
// were charged as they compiled (chargeElements): this is the model's
// final count.
func (c *compiler) chargeFactorGraph(factors, vars int) bool {
	need := fgNeed(factors, vars)
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
	c.errAt(at.Pos, at.Pos, "the model is a factor graph of %d factors over %d variables (it is one because of the %s at %s): about %s through inference at %d bytes each, more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
		factors, vars, c.fg.what, c.fset.Position(c.fg.at), infer.FormatBytes(need), fgBytesPerElement, infer.FormatBytes(budget))
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
	factors := c.m.Graph.NumFactors() + n*c.plateLeft()
	vars := c.realElements()
	need := fgNeed(factors, vars)
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
	c.errAt(at, at, "this %s makes the model a factor graph of at least %d factors over %d variables (it is one because of the %s at %s): about %s through inference at %d bytes each, more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
		what, factors, vars, c.fg.what, c.fset.Position(c.fg.at), infer.FormatBytes(need), fgBytesPerElement, infer.FormatBytes(budget))
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
	fg := &FactorGraph{First: make([]int, len(g.Latents))}
	for li := range g.Latents {
		fg.First[li] = -1
		if l := &g.Latents[li]; l.Domain == graph.Real {
			fg.First[li] = fg.NumVars
			fg.NumVars += l.Size()
		}
	}
	nSites := len(c.fg.sites)
	for _, ss := range c.sites {
		nSites += len(ss)
	}
	if !c.chargeFactorGraph(g.NumFactors(), fg.NumVars) {
		return
	}
	fg.Gaussians = make([]LinearGaussian, 0, fg.NumVars)
	b := &fgBuilder{c: c, g: g, fg: fg, owner: make([]int, fg.NumVars)}
	for i := range b.owner {
		b.owner[i] = -1
	}
	for li := range g.Latents {
		if g.Latents[li].Domain == graph.Real {
			b.latent(li)
		}
	}
	nTerms := 0
	for _, d := range c.fg.conds {
		nTerms += 1 + len(d.mean.ids)
	}
	b.vslab, b.cslab = make([]int, 0, nTerms), make([]float64, 0, nTerms)
	for _, d := range c.fg.conds {
		b.conditional(d)
	}
	c.fg.conds = nil // converted: let the collector have them
	for li := range g.Latents {
		if g.Latents[li].Domain == graph.Real {
			b.missing(li)
		}
	}
	b.cycles()
	// The sites last: the conditionals' list is garbage by now, so that
	// the compiler's sites, the Gaussians and the AffineSites are the
	// largest lists alive at once, not also the conditionals.
	fg.Sites = make([]AffineSite, 0, nSites)
	for li := range g.Latents {
		if g.Latents[li].Domain == graph.Real {
			b.latentSites(li)
		}
	}
	for _, s := range c.fg.sites {
		fg.Sites = append(fg.Sites, b.share.site(s.site, b.affine(s.aff)))
	}
	c.fg.sites = nil
	c.gateGraph(fg, b.affine)
	sort.SliceStable(fg.Gaussians, func(i, j int) bool { return fg.Gaussians[i].Factor < fg.Gaussians[j].Factor })
	sort.SliceStable(fg.Sites, func(i, j int) bool { return fg.Sites[i].Factor < fg.Sites[j].Factor })
	c.m.FactorGraph = fg
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

// affine maps a form over graph variables to FactorGraph variables.
func (b *fgBuilder) affine(f lin) Affine {
	a := Affine{Vars: make([]int, len(f.ids)), Coefs: append([]float64(nil), f.coefs...), Const: f.c}
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

// latentSites converts latent li's block sites to AffineSites.
func (b *fgBuilder) latentSites(li int) {
	c, fg := b.c, b.fg
	first := fg.First[li]
	for i, s := range c.sites[li] {
		var a Affine
		switch {
		case s.Index >= 0:
			a = b.unit(first+s.Index, 0)
		case c.fg.proj[li] != nil && c.fg.proj[li][i].ids != nil:
			a = b.affine(c.fg.proj[li][i])
		default:
			for j, x := range s.Proj {
				if x != 0 {
					a.Vars = append(a.Vars, first+j)
					a.Coefs = append(a.Coefs, x)
				}
			}
		}
		s.Index, s.Proj = -1, nil
		fg.Sites = append(fg.Sites, b.share.site(s, a))
	}
	if c.lf == nil || len(c.lf.sites) == 0 { // learn's slots index c.sites; otherwise converted
		delete(c.sites, li)
	}
}

// unit is the form x[v] + c. Its variable is a view of one identity
// array of all the variables and its coefficient a view of one 1, shared
// by every such form (read only, full capacity: an append copies), so that
// 10⁶ single-element sites cost no allocation each.
func (b *fgBuilder) unit(v int, c float64) Affine {
	if b.iota == nil {
		b.iota = make([]int, b.fg.NumVars)
		for i := range b.iota {
			b.iota[i] = i
		}
	}
	return Affine{Vars: b.iota[v : v+1 : v+1], Coefs: unitCoef[:1:1], Const: c}
}

// unitCoef is the coefficient of the unit forms.
var unitCoef = []float64{1}

// prior converts the whole-latent prior p of latent li.
func (b *fgBuilder) prior(li int, p *priorDecl) {
	c, l, fg := b.c, &b.g.Latents[li], b.fg
	first := fg.First[li]
	switch {
	case p.prior.FITC != nil:
		c.refuse(p.pos, fmt.Sprintf("the sparse (FITC) gp prior of `%s`", l.Name))
		b.ownAll(li, p.pos)
	case p.prior.Kind == PriorNormal:
		for e := 0; e < l.Size(); e++ {
			v := first + e
			name := b.g.VarName(l.First + e)
			if !b.own(v, p.pos, l.First+e) {
				continue
			}
			fg.Gaussians = append(fg.Gaussians, LinearGaussian{
				Aff: b.unit(v, 0-p.prior.Mean[e]),
				Var: p.prior.Var[e], Target: v, Factor: p.factor, Label: fmt.Sprintf("%s(%s)", p.prior.Kind, name), Pos: p.pos})
		}
	case p.prior.Kind == PriorMVNormal || p.prior.Kind == PriorGP:
		d := DenseBlock{Latent: li, Name: l.Name, Vars: make([]int, l.Size()), Prior: p.prior, Factor: p.factor, Pos: p.pos}
		for e := range d.Vars {
			d.Vars[e] = first + e
		}
		b.ownAll(li, p.pos)
		fg.Dense = append(fg.Dense, d)
	default:
		c.refuse(p.pos, fmt.Sprintf("the %s prior of `%s`", p.prior.Kind, l.Name))
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

// conditional converts x_t ~ N(mean, v) into the factor N(0; x_t − mean, v).
func (b *fgBuilder) conditional(d condDecl) {
	t := b.varOf(d.target)
	f := b.g.Factor(d.factor)
	if !b.own(t, f.Pos, d.target) {
		return
	}
	n := 1 + len(d.mean.ids)
	at := len(b.vslab)
	b.vslab, b.cslab = append(b.vslab, t), append(b.cslab, 1)
	for k, id := range d.mean.ids {
		if id == d.target {
			b.c.errAt(f.Pos, f.Pos, "the conditional of %s has %s in its own mean: the conditionals form a cycle", b.g.VarName(id), b.g.VarName(id))
			b.vslab, b.cslab = b.vslab[:at], b.cslab[:at]
			return
		}
		b.vslab, b.cslab = append(b.vslab, b.varOf(id)), append(b.cslab, -d.mean.coefs[k])
	}
	a := Affine{Vars: b.vslab[at : at+n : at+n], Coefs: b.cslab[at : at+n : at+n], Const: 0 - d.mean.c}
	b.fg.Gaussians = append(b.fg.Gaussians, LinearGaussian{Aff: a, Var: d.v, Target: t, Factor: d.factor, Label: f.Label, Pos: f.Pos})
}

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

// cycles checks that the conditionals form a directed acyclic graph (each
// factor's target depends on the variables of its mean), so that the
// product of the prior factors is a proper joint Gaussian. Kahn's
// algorithm in O(variables + edges); a cycle is then found by walking from
// a variable left over to one of its parents left over until one repeats.
func (b *fgBuilder) cycles() {
	fg := b.fg
	// The parents of t are the other variables of its conditional's form;
	// the children of v are children[row[v]:row[v+1]] (compressed rows).
	cond := make([]int, fg.NumVars) // the Gaussians index of a variable's conditional
	for i := range cond {
		cond[i] = -1
	}
	indeg := make([]int, fg.NumVars)
	row := make([]int, fg.NumVars+1)
	for gi, lg := range fg.Gaussians {
		t := lg.Target
		cond[t] = gi
		for _, v := range lg.Aff.Vars {
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
	for _, lg := range fg.Gaussians {
		for _, v := range lg.Aff.Vars {
			if v != lg.Target {
				children[fill[v]] = lg.Target
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
		for _, p := range fg.Gaussians[cond[v]].Aff.Vars {
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
		if fg.Gaussians[cond[cyc[k]]].Factor < fg.Gaussians[cond[cyc[at]]].Factor {
			at = k
		}
	}
	cyc = append(cyc[at:], cyc[:at]...)
	var parts []string
	for _, v := range cyc {
		parts = append(parts, fmt.Sprintf("%s (at %s)", b.nameOf(v), b.c.fset.Position(fg.Gaussians[cond[v]].Pos)))
	}
	first := fg.Gaussians[cond[cyc[0]]]
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
