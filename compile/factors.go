package compile

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
	"github.com/fg-infer/fg/stdlib/ad"
)

// plateStmt compiles a ~, factor or for statement (top level or in a plate).
func (c *compiler) plateStmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.TildeStmt:
		c.tildeStmt(s)
	case *ast.FactorStmt:
		c.factorStmt(s)
	case *ast.ForStmt:
		c.forStmt(s)
	case *ast.DataStmt, *ast.ParamStmt, *ast.LatentStmt:
		c.fail(s, "declarations are only allowed at the top level, not inside a for plate")
	default:
		c.fail(s, "this statement is not allowed inside a for plate")
	}
}

// forStmt unrolls a plate: for i in A..B, for b in batches(N, s),
// for (i, j) in edges(G), for (k, i, j) in edges(G). The first error inside
// the body stops the plate (so a bad line is reported once).
func (c *compiler) forStmt(s *ast.ForStmt) {
	for _, v := range s.Vars {
		if msg := c.an.plateVarError(v); msg != "" {
			c.fail(v, "%s", msg)
		}
	}
	if c.net == nil && c.streamPlate(s) {
		return
	}
	n, at := c.plateRangeOf(s)
	vars := c.enterPlate(s)
	defer func() { c.locals = c.locals[:len(c.locals)-len(vars)] }()
	_, isRange := s.Iter.(*ast.RangeExpr)
	if isRange && n > 0 && c.vectorPlate(s, vars[0], int(at(0)[0].num[0]), n) {
		return
	}
	// A vector plate is one statement whose elements the memory budget
	// bounds (chargeElements); an unrolled plate runs its body n times.
	if isRange && n > maxFactors && c.fg.overBudget {
		panic(abort{}) // the model is refused for its memory already
	}
	if isRange {
		func() {
			defer c.triedOnAbort(s)
			c.checkUnroll(s, float64(n))
		}()
	}
	c.nIter += n
	if c.nIter > maxIterations {
		c.fail(s, "plates run more than %d iterations in total", maxIterations)
	}
	if n <= maxFactors-c.nUnroll { // within the factor budget: room for a factor per iteration
		// In Graph, for the discrete factors; a plate that adds none
		// (the continuous factors are the FactorGraph's) leaves no hint
		// behind for a later statement's run.
		c.m.Graph.Reserve(n)
		defer c.m.Graph.Reserve(0)
	}
	c.plates = append(c.plates, plateAt{n: n, at: s.Pos()})
	defer func() { c.plates = c.plates[:len(c.plates)-1] }()
	for it := 0; it < n; it++ {
		c.plates[len(c.plates)-1].it = it
		for k, v := range at(it) {
			vars[k].v = v
		}
		for _, b := range s.Body {
			c.plateStmt(b)
		}
	}
}

// enterPlate binds the variables of plate s, each in its slot of
// c.locals (the symbol analysis made of it), and returns their bindings,
// which the plate's iterations set.
func (c *compiler) enterPlate(s *ast.ForStmt) []*binding {
	vars := make([]*binding, len(s.Vars))
	bs := make([]binding, len(s.Vars))
	for k, v := range s.Vars {
		sym := c.an.byIdent[v]
		if sym == nil || sym.index != len(c.locals) {
			panic(fmt.Sprintf("plate variable `%s` at %s was not analysed where it is lowered", v.Name, c.fset.Position(v.Pos())))
		}
		bs[k].kind = bLoop
		vars[k] = &bs[k]
		c.locals = append(c.locals, local{sym, vars[k]})
	}
	return vars
}

// plateRangeOf is plateRange; when the range is refused, the real latents
// whose elements the plate's ~ statements would have given conditionals
// count as tried (triedOnAbort).
func (c *compiler) plateRangeOf(s *ast.ForStmt) (n int, at func(k int) []val) {
	defer c.triedOnAbort(s)
	return c.plateRange(s)
}

// triedOnAbort, deferred while plate s is checked, counts the real latents
// whose elements its ~ statements would have given conditionals as tried
// (fgState) when the check refuses the plate, so that its error is not
// followed by a "no prior or conditional" one for them.
func (c *compiler) triedOnAbort(s *ast.ForStmt) {
	if r := recover(); r != nil {
		for _, st := range s.Body {
			ast.Inspect(st, func(nd ast.Node) bool {
				if t, ok := nd.(*ast.TildeStmt); ok {
					if ix, ok := t.LHS.(*ast.IndexExpr); ok {
						if id, ok := ix.X.(*ast.Ident); ok {
							if b := c.resolved(id); b != nil && b.kind == bLatent {
								c.fg.tried[b.lat]++
							}
						}
					}
				}
				return true
			})
		}
		panic(r)
	}
}

// plateRange evaluates a plate's range: the number of iterations and the
// values of the plate variables at iteration k.
func (c *compiler) plateRange(s *ast.ForStmt) (int, func(k int) []val) {
	switch it := s.Iter.(type) {
	case *ast.RangeExpr:
		c.wantVars(s, 1, "for i in A..B")
		lo := c.intOf(it.Lo, c.eval(it.Lo), "range start")
		hi := c.intOf(it.Hi, c.eval(it.Hi), "range end")
		n := max(hi-lo, 0) // bounded by forStmt: the unrolled plate's limit or the vector plate's names
		c.growInts(lo + n)
		vs := make([]val, 1)
		return n, func(k int) []val {
			vs[0] = c.intVal(lo + k)
			return vs
		}
	case *ast.CallExpr:
		switch it.FunName() {
		case "batches":
			return c.batchRange(s, it)
		case "edges":
			b, _ := stdlib.Lookup(stdlib.Plate, "edges")
			a := c.bind(it, b)
			g, _ := a.val(0)
			if g.k != kGraph {
				c.fail(a.at(0), "edges: expected a graph, got %s", g.describe())
			}
			if len(s.Vars) != 2 && len(s.Vars) != 3 {
				c.fail(s, "edges(G) binds (i, j) or (k, i, j), got %d variables", len(s.Vars))
			}
			edges := g.g.edges
			c.growInts(max(g.g.n, len(edges)))
			vs := make([]val, len(s.Vars))
			return len(edges), func(k int) []val {
				if len(vs) == 3 {
					vs[0] = c.intVal(k)
				}
				vs[len(vs)-2], vs[len(vs)-1] = c.intVal(edges[k][0]), c.intVal(edges[k][1])
				return vs
			}
		}
	}
	return c.valuesRange(s)
}

// valuesRange is `for k in idx` over a vector of integers (data, a param,
// a list): k takes its values in order, as i does over A..B.
func (c *compiler) valuesRange(s *ast.ForStmt) (int, func(k int) []val) {
	v := c.eval(s.Iter)
	if v.k != kNum || len(v.shape) != 1 {
		c.fail(s.Iter, "a plate ranges over A..B, a vector of integers, batches(N, s) or edges(G); `%s` is %s", c.text(s.Iter), v.describe())
	}
	c.wantVars(s, 1, "for k in idx")
	top := 0
	for i, x := range v.num {
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			c.fail(s.Iter, "a plate over a vector takes integers; element %d of `%s` is %s", i, c.text(s.Iter), fmtNum(x))
		}
		top = max(top, int(x)+1)
	}
	c.growInts(top)
	vs := make([]val, 1)
	return len(v.num), func(k int) []val {
		vs[0] = c.intVal(int(v.num[k]))
		return vs
	}
}

// batchRange is batches(N, s): index vectors [0..s), [s..2s), ...
func (c *compiler) batchRange(s *ast.ForStmt, it *ast.CallExpr) (int, func(k int) []val) {
	b, _ := stdlib.Lookup(stdlib.Plate, "batches")
	a := c.bind(it, b)
	n, size := a.integer(0, 0), a.integer(1, 0)
	if n < 0 || size < 1 {
		c.fail(it, "batches(N, s) needs N ≥ 0 and s ≥ 1, got %d, %d", n, size)
	}
	c.wantVars(s, 1, "for b in batches(N, s)")
	count := math.Ceil(float64(n) / float64(size))
	c.checkUnroll(s, count)
	return int(count), func(k int) []val {
		lo := k * size
		f := make([]float64, 0, size)
		for x := lo; x < min(lo+size, n); x++ {
			f = append(f, float64(x))
		}
		return []val{{k: kNum, shape: []int{len(f)}, num: f, dom: graph.Int}}
	}
}

func (c *compiler) wantVars(s *ast.ForStmt, n int, form string) {
	if len(s.Vars) != n || s.Tuple {
		c.fail(s, "this plate binds one variable: %s", form)
	}
}

func (c *compiler) checkUnroll(at ast.Node, n float64) {
	if n > maxFactors {
		c.fail(at, "plate of %g iterations exceeds the limit of %d", n, maxFactors)
	}
}

// addFactor appends a graph factor, enforcing the model's factor limit,
// and returns its number (nextFactor).
func (c *compiler) addFactor(at ast.Node, f graph.Factor) int {
	c.countFactor(at)
	n := c.nextFactor()
	c.m.Graph.AddFactor(f)
	return n
}

// nextFactor is the number the next factor of the model gets: factors are
// numbered in the order they compile, those Graph holds (the discrete
// ones) and those only the real-latent IR holds (offGraph: the continuous
// ones) alike, so that the numbers are the order of Model.Factors
// (Block.Factor, LinearGaussian.Factor, Site.Factor, the dumps' factor=N)
// and the FactorGraph's factors can be ordered by them (graph.FactorGraph.SortByFactor).
func (c *compiler) nextFactor() int { return c.m.Graph.NumFactors() + c.offGraph.Len() }

// addOffGraph numbers a factor that Graph does not hold (the real-latent
// IR does) and returns its number.
func (c *compiler) addOffGraph() int {
	n := c.nextFactor()
	c.offGraph.Add(n)
	return n
}

// countFactor counts a factor about to be added against the model's
// factor limit. The elements of a vector plate of a factor-graph model
// are charged to the memory budget instead (chargeElements), which is
// what the limit stands for: a chain of 10⁷ steps is not refused by it.
func (c *compiler) countFactor(at ast.Node) {
	if c.vec != nil && c.fg.at.IsValid() {
		return
	}
	c.nUnroll++
	if c.nUnroll > maxFactors {
		c.fail(at, "the model unrolls to more than %d factors (a budget of %d MiB at %d bytes a factor)", maxFactors, factorBudget>>20, factorBytes)
	}
}

// tildeStmt is `LHS ~ DIST(args)`: a prior when LHS is a whole latent, a
// likelihood when LHS is data.
func (c *compiler) tildeStmt(s *ast.TildeStmt) {
	if c.net != nil {
		c.netTilde(s)
		return
	}
	call, ok := s.Dist.(*ast.CallExpr)
	if !ok {
		c.fail(s.Dist, "expected a distribution call after ~, e.g. probit(f[i])")
	}
	lhs := c.eval(s.LHS)
	if lhs.k == kSym {
		if lhs.sym.lat >= 0 && !lhs.sym.exprs {
			defer c.poisonOnAbort(lhs.sym.lat)
		}
		if sy := lhs.sym; sy.lat >= 0 && !sy.exprs && len(sy.ids) == c.m.Graph.Latents[sy.lat].Size() && len(c.locals) == 0 {
			c.setPrior(sy.lat, s.LHS, call)
			return
		}
		if !c.elementCategorical(s.LHS, lhs, call) {
			c.conditional(s.LHS, lhs, call, s.Pos())
		}
		return
	}
	if lhs.k != kNum && lhs.k != kBool {
		c.fail(s.LHS, "the left side of ~ must be data or a latent, got %s", lhs.describe())
	}
	b := c.distribution(call)
	k, err := factor.Find(b.Name, factor.Likelihood)
	if err != nil {
		c.fail(call.Fun, "`%s` is a prior; the left side `%s` is data — use a likelihood: %s", b.Name, c.text(s.LHS),
			strings.Join(factor.Names(factor.Likelihood), ", "))
	}
	if c.gatedLikelihood(s, lhs, call, k) {
		return
	}
	if _, ok := k.(factor.Mixture); ok {
		c.mixture(s, lhs, call, b.Name)
		return
	}
	lk, ok := k.(factor.LikelihoodKind)
	if !ok {
		c.fail(call.Fun, "`%s` is a likelihood of the typed factor graph (docs/families.md): its parameter must be a latent of its family or data", b.Name)
	}
	c.likelihood(s, lhs, call, b, lk)
}

// likelihood compiles observations y ~ LIK(a, params...) (probit, step,
// logistic, normal, student_t, poisson_log, ...) into Gaussian-block sites,
// one per element: the kind's constructor validates the parameters and
// its CheckY the observations.
func (c *compiler) likelihood(s *ast.TildeStmt, y val, call *ast.CallExpr, b *stdlib.Builtin, k factor.LikelihoodKind) {
	a := c.bind(call, b)
	pi := paramIndex(b, k.Projection())
	proj, _ := a.val(pi)
	if proj.k != kSym {
		c.fail(a.at(pi), "the %s argument of %s must depend on a real latent, e.g. f[i] or dot(X[i], w)", ordinal(pi), b.Name)
	}
	lat := proj.sym.lat
	if lat >= 0 {
		if l := &c.m.Graph.Latents[lat]; l.Domain != graph.Real {
			c.fail(a.at(pi), "%s needs a real latent projection; `%s` is %s", b.Name, l.Name, l.Domain)
		}
	}
	n := y.size() // a scalar argument broadcasts over the observations
	if proj.size() != n && proj.size() != 1 {
		c.fail(s, "%s has %d elements but %s has %d", c.text(s.LHS), n, c.text(a.at(pi)), proj.size())
	}
	charged := c.fg.at.IsValid() // a factor-graph model: each site is an AffineSite
	if charged {
		c.chargeElements(s, n)
	}
	var liks []factor.Site
	slotted := c.lf.inSlot(func() { liks = c.newSites(a, k, pi, n, func(e int) string { return c.elemName(s.LHS, y, e) }) })
	if slotted {
		if len(liks) > 1 {
			c.fail(call, "%s: learn does not tune per-element (vector) likelihood parameters; use a scalar param or a plate", b.Name)
		}
		first := 0
		if lat >= 0 {
			first = len(c.sites[lat])
		}
		slot := siteSlot{lat: lat, first: first, n: n, call: call, b: b, k: k}
		plain := !c.readsLocal(siteParams(a, pi)...)
		if !plain {
			slot.locals = c.snapshotLocals()
		}
		c.lf.addSite(slot, plain)
		defer c.lf.siteFactors(c, lat, first, n)
	}
	for i, x := range y.num {
		if lik := liks[min(i, len(liks)-1)]; lik.CheckY(x) != nil {
			c.fail(s.LHS, "%s", c.badObservation(s.LHS, y, i, lik.Support()))
		}
	}
	lik := liks[0]
	forms, block := c.siteForms(a.at(pi), proj)
	var sites []graph.Site
	// A pure selection f[i] is an Index site (no jets, no Site per element).
	sel := forms == nil && proj.sym.ids != nil && !proj.sym.exprs
	if forms == nil && !sel {
		sites = c.affine(a.at(pi), proj) // not affine: the jet path explains why
	}
	if !block {
		c.useFG(a.at(pi), func() string { return fmt.Sprintf("%s argument `%s`", b.Name, c.text(a.at(pi))) })
		if !charged {
			c.chargeElements(s, n)
		}
	}
	// In a model already known to be a factor graph, the sites of a
	// selection go straight into columns (fgState.idx), not a Site each.
	idx := sel && block && lat >= 0 && charged && len(liks) == 1 && !slotted
	switch {
	case idx:
		c.fg.addIdx(lat, n)
	case !block:
		c.fg.sites = growFor(c, c.fg.sites, n)
	case lat >= 0:
		c.sites[lat] = growFor(c, c.sites[lat], n)
	}
	if idx {
		// The statement's Site, shared with the statement before when they
		// are the same (an unrolled plate's statements).
		shared := c.fg.idxShare.site(graph.Site{Lik: lik, Pos: s.Pos(), Index: -1}, graph.Form{}).Shared
		if len(c.fg.idxSites) == 0 || c.fg.idxSites[len(c.fg.idxSites)-1] != shared {
			c.fg.idxSites = append(c.fg.idxSites, shared)
		}
		ids, one := proj.sym.ids, []int{0}
		il := c.siteIndexLabels(b.Name, s.LHS, y)
		label := func(int) string { return "" } // il makes them
		if !il.ok {
			label = labelRun(n, b.Name, func(buf []byte, k int) []byte { return c.appendElemName(buf, s.LHS, y, k) })
		}
		for k := 0; k < n; k++ {
			one[0] = ids[min(k, len(ids)-1)]
			c.countFactor(s)
			f := c.addOffGraph()
			if il.ok {
				c.fg.idxLabels.AddIndexed(il.prefix, il.first+k, il.suffix)
			} else {
				c.fg.idxLabels.Add(label(k))
			}
			c.fg.idx.Add(graph.Affine{Vars: one, Coefs: unitCoef[:1:1], Y: y.num[k], Factor: f, Tag: len(c.fg.idxSites) - 1})
		}
		return
	}
	label := labelRun(n, b.Name, func(buf []byte, k int) []byte { return c.appendElemName(buf, s.LHS, y, k) })
	for k := 0; k < n; k++ {
		if len(liks) > 1 {
			lik = liks[k]
		}
		var site graph.Site
		var form lin
		if forms != nil {
			form = forms[min(k, len(forms)-1)]
		}
		switch {
		case sel:
			ids := proj.sym.ids
			site.Index = ids[min(k, len(ids)-1)] - c.m.Graph.Latents[lat].First
		case sites != nil:
			site = sites[min(k, len(sites)-1)]
		case block:
			site = c.formSite(lat, form)
		}
		site.Lik, site.Y, site.Pos = lik, y.num[k], s.Pos()
		site.Label = label(k)
		c.countFactor(s)
		site.Factor = c.addOffGraph()
		switch {
		case !block:
			site.Index = -1
			c.fg.sites = append(c.fg.sites, fgSite{site: site, aff: form})
		default:
			if site.Index < 0 && sites == nil {
				c.pendingProj(lat, len(c.sites[lat]), form)
			}
			c.sites[lat] = append(c.sites[lat], site)
		}
	}
}

// siteForms returns the elements of a likelihood's latent argument as
// affine forms, or nil when the old path serves it: a pure selection
// (Index sites), or an expression that is not affine (the jet path then
// reports why). block reports whether they fit a Gaussian-block site: one
// latent and no constant term (within rounding, as the jet path judged it).
func (c *compiler) siteForms(at ast.Node, proj val) (forms []lin, block bool) {
	if proj.sym.ids != nil && !proj.sym.exprs {
		return nil, true
	}
	f := proj.sym.forms()
	if f == nil {
		if proj.sym.lat < 0 {
			c.nonlinear(at, proj)
		}
		return nil, true
	}
	n := proj.size()
	forms = make([]lin, n)
	block = proj.sym.lat >= 0
	for k := range forms {
		forms[k] = f(k)
		if !forms[k].finite() {
			c.fail(at, "`%s` has an infinite or NaN coefficient or constant (a division by zero?)", c.text(at))
		}
		scale := 0.0
		for _, x := range forms[k].coefs {
			scale = math.Max(scale, math.Abs(x))
		}
		if math.Abs(forms[k].c) > 1e-12*(1+scale) {
			block = false
		}
	}
	return forms, block
}

// formSite is the block site of a form over latent lat with no constant:
// Index for a single element with coefficient 1 (as projSite), otherwise
// Index −1 with the projection kept sparse until the model's form is known
// (pendingProj).
func (c *compiler) formSite(lat int, f lin) graph.Site {
	if len(f.ids) == 1 && f.coefs[0] == 1 {
		return graph.Site{Index: f.ids[0] - c.m.Graph.Latents[lat].First}
	}
	return graph.Site{Index: -1}
}

// pendingProj records the sparse projection of site i of latent lat.
func (c *compiler) pendingProj(lat, i int, f lin) {
	if c.fg.proj[lat] == nil {
		c.fg.proj[lat] = map[int]lin{}
	}
	c.fg.proj[lat][i] = f
}

// newSite evaluates a likelihood's parameters other than the projection
// (param pi) as finite scalars, defaults applied, and builds the site with
// the kind's validating constructor; a complaint about one parameter is
// reported at its argument.
func (c *compiler) newSite(a *args, k factor.LikelihoodKind, pi int) factor.Site {
	lik, params := c.makeSite(a, k, pi, a.num, "")
	c.notePositiveParams(a, k, pi, params)
	return lik
}

// makeSite builds a site of kind k from the values of the parameters other
// than pi (value(i, default)); a complaint about one parameter is reported
// at its argument, after prefix.
func (c *compiler) makeSite(a *args, k factor.LikelihoodKind, pi int, value func(i int, def float64) float64, prefix string) (factor.Site, map[string]float64) {
	vals := c.siteVals[:0]
	for i, p := range a.b.Params {
		if i == pi {
			continue
		}
		def := 0.0
		if p.Default != "" {
			def, _ = strconv.ParseFloat(p.Default, 64)
		}
		vals = append(vals, value(i, def))
	}
	c.siteVals = vals
	if e := c.sitesMade[a.call]; e != nil && sameBits(e.vals, vals) {
		return e.lik, e.params
	}
	params := map[string]float64{}
	j := 0
	for i, p := range a.b.Params {
		if i != pi {
			params[p.Name] = vals[j]
			j++
		}
	}
	lik, err := k.New(params)
	if err != nil {
		at := ast.Node(a.call)
		var pe *factor.ParamError
		if errors.As(err, &pe) {
			at = a.at(paramIndex(a.b, pe.Param))
		}
		c.fail(at, "%s%v", prefix, err)
	}
	c.rememberSite(a.call, vals, lik, params)
	return lik, params
}

// newSites is newSite for a likelihood whose parameters may be vectors of
// one value per observation (y ~ normal(theta, sigma^2)): one site per
// element then (elem names observation e in messages), otherwise one
// shared site.
func (c *compiler) newSites(a *args, k factor.LikelihoodKind, pi, n int, elem func(e int) string) []factor.Site {
	vals := make([]*val, len(a.b.Params))
	per := false
	for i := range a.b.Params {
		if i == pi || a.expr(i) == nil {
			continue
		}
		v, _ := a.val(i)
		if v.k == kNum && len(v.shape) == 1 && n != 1 {
			if v.size() != n {
				c.fail(a.at(i), "%s: `%s` must be a number or a vector of %d (one per observation), got %s", a.b.Name, a.name(i), n, v.describe())
			}
			c.finite(a.at(i), a.b.Name+" "+a.name(i), v)
			vec := v // only vectors escape
			vals[i], per = &vec, true
		}
	}
	if !per {
		return []factor.Site{c.newSite(a, k, pi)}
	}
	scalars := map[int]float64{} // the scalar parameters, evaluated once
	out := make([]factor.Site, n)
	for e := range out {
		value := func(i int, def float64) float64 {
			if vals[i] != nil {
				return vals[i].num[e]
			}
			x, ok := scalars[i]
			if !ok {
				x = a.num(i, def)
				scalars[i] = x
			}
			return x
		}
		out[e], _ = c.makeSite(a, k, pi, value, elem(e)+": ")
	}
	return out
}

// paramIndex is the index of b's parameter called name.
func paramIndex(b *stdlib.Builtin, name string) int {
	for i, p := range b.Params {
		if p.Name == name {
			return i
		}
	}
	panic("compile: " + b.Name + " has no parameter " + name)
}

func ordinal(i int) string {
	return [...]string{"first", "second", "third", "fourth"}[min(i, 3)]
}

// elemName renders element k of the observations y of expression e, with
// plate variables substituted: y[4], y (a scalar), y[k] for a vectorised ~,
// Y[r, c] for a matrix (the indices the table shows).
func (c *compiler) elemName(e ast.Expr, y val, k int) string {
	if c.vec != nil && y.size() > 1 {
		return c.vecElement(e, k)
	}
	base := c.render(e)
	if y.size() == 1 {
		return base
	}
	return fmt.Sprintf("%s[%s]", base, unflat(y.shape, k))
}

// render prints an index expression with its scalar indices evaluated.
func (c *compiler) render(e ast.Expr) string {
	ix, ok := e.(*ast.IndexExpr)
	if !ok {
		return c.text(e)
	}
	parts := make([]string, len(ix.Indices))
	for i, x := range ix.Indices {
		parts[i] = c.text(x)
		if _, isSlice := x.(*ast.SliceExpr); isSlice {
			continue
		}
		if id, ok := x.(*ast.Ident); ok { // a plate variable, as eval gives it
			if b := c.resolved(id); b != nil && b.kind == bLoop && b.v.isScalar() {
				parts[i] = fmtNum(b.v.num[0])
				continue
			}
		}
		if v := c.evalSafe(x); v != nil && v.isScalar() {
			parts[i] = fmtNum(v.num[0])
		}
	}
	return c.render(ix.X) + "[" + strings.Join(parts, ", ") + "]"
}

// affine turns each element of a real-latent expression into a projection
// aᵀw. A pure selection w[i] gives Index i; otherwise the expression is
// evaluated on jets at w = 0 and at two fixed pseudo-random points: it is
// affine iff every diagonal second derivative vanishes, the gradient is the
// same at all three points and the values agree with the linear model. The
// gradient is the projection; a non-zero constant term is an error.
func (c *compiler) affine(at ast.Node, v val) []graph.Site {
	s := v.sym
	l := &c.m.Graph.Latents[s.lat]
	n := v.size()
	out := make([]graph.Site, n)
	if s.ids != nil && !s.exprs {
		for k, id := range s.ids {
			out[k] = graph.Site{Index: id - l.First}
		}
		return out
	}
	N := l.Size()
	if float64(N)*float64(n) > 5e7 {
		c.fail(at, "projection of %d elements on a latent of %d is too large to analyse; index the latent directly (f[i])", n, N)
	}
	pts := [3][]float64{make([]float64, N), make([]float64, N), make([]float64, N)}
	r := stdlib.RandomSeq(12345)
	for j := 0; j < N; j++ {
		pts[1][j], pts[2][j] = r.NormFloat64(), r.NormFloat64()
	}
	var res [3][]ad.Jet
	for p := range pts {
		res[p] = s.jets()(ad.Vars(pts[p]))
	}
	for k := 0; k < n; k++ {
		g := res[0][k].G
		if g == nil {
			g = make([]float64, N)
		}
		if msg := nonAffine(res, k, g, pts); msg != "" {
			c.fail(at, "`%s` must be linear in `%s` (a projection such as dot(X[i], %s) or %s[i]); %s", c.text(at), l.Name, l.Name, l.Name, msg)
		}
		off, scale := res[0][k].V, 0.0
		for _, x := range g {
			scale = math.Max(scale, math.Abs(x))
		}
		if math.Abs(off) > 1e-12*(1+scale) {
			c.fail(at, "`%s` has a constant term %g; a projection aᵀ%s has none", c.text(at), off, l.Name)
		}
		out[k] = projSite(g)
	}
	return out
}

// nonAffine explains why element k is not affine, or returns "".
func nonAffine(res [3][]ad.Jet, k int, g []float64, pts [3][]float64) string {
	for p := range res {
		u := res[p][k]
		if u.G == nil {
			continue
		}
		for j := range u.G {
			if math.Abs(u.H[j]) > 1e-9*(1+math.Abs(g[j])) {
				return "it has curvature"
			}
			if math.Abs(u.G[j]-g[j]) > 1e-9*(1+math.Abs(g[j])) {
				return "its slope changes"
			}
		}
		pred := res[0][k].V
		for j := range g {
			pred += g[j] * pts[p][j]
		}
		if math.Abs(pred-u.V) > 1e-9*(1+math.Abs(u.V)) {
			return "it is not linear"
		}
	}
	return ""
}

// projSite is Index j for a projection e_j, Proj otherwise.
func projSite(g []float64) graph.Site {
	nz, at := 0, -1
	for j, x := range g {
		if x != 0 {
			nz++
			at = j
		}
	}
	if nz == 1 && g[at] == 1 {
		return graph.Site{Index: at}
	}
	return graph.Site{Index: -1, Proj: append([]float64(nil), g...)}
}
