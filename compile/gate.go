package compile

import (
	"fmt"
	"math"
	"slices"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// gateRec is the compile state of gated likelihoods: while a
// branch is evaluated, subst maps each occurrence of the selector (the
// index expression z[i]) to the branch's state k, and card holds its
// number of states for the length check of the indexed dimension.
type gateRec struct {
	subst map[ast.Expr]val
	card  map[ast.Expr]int
	decls []gateDecl
	prior map[int]catPrior // graph variable → its categorical prior (categorical.go)
	// plain marks the likelihood calls found without a selector: whether an
	// index is a latent element does not change between plate iterations,
	// so a plate of 10⁶ observations looks once.
	plain map[*ast.CallExpr]bool
}

// gateDecl is one gated likelihood y ~ LIK(... p[z] ...), compiled: branch
// k is the likelihood with the selector z = k.
type gateDecl struct {
	sel      int // graph variable of the selector element
	y        float64
	branches []gateBranch
	label    string
	factor   int
	pos      ast.Pos
}

// gateBranchBytes is the memory one branch of a gated likelihood costs
// from compile to the end of inference (its compiled AffineSite, the
// engine's branch and its messages): 560 bytes of live heap measured after
// compiling a 64-component mixture on 2000–4000 points, 660 bytes at the
// end of its ep run; rounded up. Charged before the branch is made.
const gateBranchBytes = 768

// gateBranch is one branch: the likelihood with its parameters and its
// projection as an affine form over graph variables (no variables when it
// is a number).
type gateBranch struct {
	site graph.Site
	form lin
}

// selectorUse is an occurrence of discrete latent elements as an index:
// one element (z[i] in mu[z[i]]) or, for vector observations, one per
// observation (z in y ~ normal(mu[z], 1)).
type selectorUse struct {
	at  ast.Expr
	ids []int
}

// selectors returns the index expressions of call's arguments that are
// elements of a discrete latent (z[i] in mu[z[i]], z in mu[z]), evaluating
// each index without reporting errors (the statement's own evaluation
// reports them).
func (c *compiler) selectors(call *ast.CallExpr) []selectorUse {
	var out []selectorUse
	for _, arg := range call.Args {
		ast.Inspect(arg, func(n ast.Node) bool {
			ix, ok := n.(*ast.IndexExpr)
			if !ok {
				return true
			}
			for _, e := range ix.Indices {
				if _, slice := e.(*ast.SliceExpr); slice {
					continue
				}
				if ids, ok := c.discreteElements(e); ok {
					out = append(out, selectorUse{e, ids})
				}
			}
			return true
		})
	}
	return out
}

// discreteElements reports whether e evaluates to elements of a discrete
// latent (a scalar or vector selection), and which.
func (c *compiler) discreteElements(e ast.Expr) ([]int, bool) {
	n := len(c.errs)
	v := c.evalSafe(e)
	c.errs = c.errs[:n]
	if v == nil || v.k != kSym || v.sym.exprs || len(v.sym.ids) == 0 || len(v.shape) > 1 {
		return nil, false
	}
	return v.sym.ids, c.m.Graph.Vars[v.sym.ids[0]].Domain.Discrete()
}

// gatedLikelihood compiles y ~ LIK(...) whose arguments are indexed by one
// element z of a cat(K) latent with a categorical prior: a gated factor
// (Minka & Winn 2008) with one branch per state, branch k being the
// likelihood with z replaced by k — y[i] ~ normal(mu[z[i]], 1),
// probit(dot(X[i], w[z[i]])), normal(dot(X[i], w), s2[z[i]]). Vector
// observations take a vector of selectors, one per element, as a plate
// would: y ~ normal(mu[z], 1) is y[i] ~ normal(mu[z[i]], 1) for every i
// (each branch is evaluated once for all elements; a scalar latent
// broadcasts). It reports false when no argument is indexed by a discrete
// latent.
func (c *compiler) gatedLikelihood(s *ast.TildeStmt, y val, call *ast.CallExpr, k factor.Kind) bool {
	if c.gate.plain[call] {
		return false
	}
	uses := c.selectors(call)
	if len(uses) == 0 {
		if c.gate.plain == nil {
			c.gate.plain = map[*ast.CallExpr]bool{}
		}
		c.gate.plain[call] = true
		return false
	}
	sels := uses[0].ids
	for _, u := range uses[1:] {
		if !slices.Equal(u.ids, sels) {
			c.fail(u.at, "one discrete latent element may select a likelihood's parameters; `%s` and `%s` both index here",
				c.text(uses[0].at), c.text(u.at))
		}
	}
	c.checkSelector(uses[0].at, sels[0])
	lk, ok := k.(factor.LikelihoodKind)
	if !ok {
		c.fail(call.Fun, "`%s` cannot be selected by a discrete latent; a gated likelihood is one of probit, step, normal, ...", call.FunName())
	}
	n := y.size()
	if len(sels) != n {
		if len(sels) == 1 {
			c.fail(s.LHS, "a likelihood selected by `%s` observes one element; write it in a plate, e.g. y[i] ~ normal(mu[z[i]], 1)", c.text(uses[0].at))
		}
		c.fail(uses[0].at, "`%s` selects %d observations but %s has %d elements; one selector per observation", c.text(uses[0].at), len(sels), c.text(s.LHS), n)
	}
	K := c.m.Graph.Vars[sels[0]].Card
	if K > infer.MaxStates {
		c.fail(uses[0].at, "`%s` has %d states; a selector of gated likelihoods has at most %d (one branch per state)", c.text(uses[0].at), K, infer.MaxStates)
	}
	c.nUnroll += n*K - 1 // the branches count against the model's factor limit
	if c.nUnroll > maxFactors {
		c.fail(s, "the model unrolls to more than %d factors (a gated likelihood counts one per branch)", maxFactors)
	}
	c.nBranches += int64(n * K)
	if need, budget := c.nBranches*gateBranchBytes, infer.MemoryBudget(); need > budget {
		c.fail(s, "the gated likelihoods reach %d branches (one per state of each selector), about %s through inference at %d bytes each, more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
			c.nBranches, infer.FormatBytes(need), gateBranchBytes, infer.FormatBytes(budget))
	}
	branches := make([][]gateBranch, K) // [state][element]
	for st := range branches {
		branches[st] = c.gateBranches(s, y, call, lk, uses, st, K)
	}
	for i, sel := range sels {
		d := gateDecl{sel: sel, y: y.num[i], pos: s.Pos(), branches: make([]gateBranch, K)}
		for st := range branches {
			d.branches[st] = branches[st][i]
		}
		d.label = fmt.Sprintf("%s(%s | %s)", call.FunName(), c.elemName(s.LHS, y, i), c.m.Graph.VarName(sel))
		c.countFactor(s)
		d.factor = c.addOffGraph() // held by FactorGraph.Gates only

		c.gate.decls = append(c.gate.decls, d)
		c.useFG(s, func() string { return "gated likelihood " + d.label })
	}
	return true
}

// checkSelector checks that graph variable id can select branches: an
// element of a cat(K) latent.
func (c *compiler) checkSelector(at ast.Expr, id int) {
	v := c.m.Graph.Vars[id]
	if v.Domain != graph.Cat {
		c.fail(at, "`%s` is %s; a discrete latent that selects a likelihood's parameters is cat(K) with a categorical prior", c.text(at), v.Domain)
	}
}

// inState replaces every use of the selectors by state st (of K states)
// until the returned function is called.
func (c *compiler) inState(uses []selectorUse, st, K int) (restore func()) {
	c.gate.subst, c.gate.card = map[ast.Expr]val{}, map[ast.Expr]int{}
	for _, u := range uses {
		c.gate.subst[u.at], c.gate.card[u.at] = numVal(float64(st)), K
	}
	return func() { c.gate.subst, c.gate.card = nil, nil }
}

// gateBranches evaluates the likelihood with every use of the selectors
// replaced by state st: branch st of each observation (the projection is
// one element, broadcast, or one per observation).
func (c *compiler) gateBranches(s *ast.TildeStmt, y val, call *ast.CallExpr, lk factor.LikelihoodKind, uses []selectorUse, st, K int) []gateBranch {
	defer c.inState(uses, st, K)()
	b := c.distribution(call)
	a := c.bind(call, b)
	pi := paramIndex(b, lk.Projection())
	proj, _ := a.val(pi)
	lik := c.newSite(a, lk, pi)
	n := y.size()
	for i, x := range y.num {
		if lik.CheckY(x) != nil {
			c.fail(s.LHS, "%s", c.badElement(c.render(s.LHS), y, i, lik.Support()))
		}
	}
	if proj.size() != 1 && proj.size() != n {
		want := "one element"
		if n > 1 {
			want = fmt.Sprintf("one element or %d", n)
		}
		c.fail(a.at(pi), "the %s argument of %s must be %s when `%s` = %d, got %s", ordinal(pi), b.Name, want, c.text(uses[0].at), st, proj.describe())
	}
	forms := c.branchForms(a.at(pi), b.Name, proj)
	out := make([]gateBranch, n)
	for i := range out {
		site := graph.Site{Lik: lik, Y: y.num[i], Pos: s.Pos(), Index: -1,
			Label: fmt.Sprintf("%s(%s | %s = %d)", b.Name, c.elemName(s.LHS, y, i), c.selectorName(uses[0], i), st)}
		out[i] = gateBranch{site: site, form: forms[min(i, len(forms)-1)]}
	}
	return out
}

// selectorName names observation i's selector: the index as written, or
// the element of a selector vector.
func (c *compiler) selectorName(u selectorUse, i int) string {
	if len(u.ids) == 1 {
		return c.text(u.at)
	}
	return c.m.Graph.VarName(u.ids[i])
}

// branchForms is a branch's projection as affine forms, one per element:
// numbers, or affine expressions of real latents.
func (c *compiler) branchForms(at ast.Node, name string, proj val) []lin {
	out := make([]lin, proj.size())
	switch proj.k {
	case kNum:
		for i := range out {
			out[i] = constLin(proj.num[i])
		}
		return out
	case kSym:
		if proj.sym.lat >= 0 {
			if l := &c.m.Graph.Latents[proj.sym.lat]; l.Domain != graph.Real {
				c.fail(at, "%s needs a real latent projection; `%s` is %s", name, c.text(at), l.Domain)
			}
		}
		if f := proj.sym.forms(); f != nil {
			for i := range out {
				out[i] = f(i)
			}
			return out
		}
		if proj.sym.lat < 0 {
			c.nonlinear(at, proj)
		}
		c.affine(at, proj) // one latent, not affine: the jet path explains why
		c.fail(at, "`%s` is not affine in the latents", c.text(at))
	}
	c.fail(at, "the projection of %s must be a real latent expression or a number, got %s", name, proj.describe())
	return nil
}

// gateSubst returns the value that a selector occurrence takes in the
// branch being evaluated.
func (c *compiler) gateSubst(e ast.Expr) (val, bool) {
	if c.gate.subst == nil {
		return val{}, false
	}
	v, ok := c.gate.subst[e]
	return v, ok
}

// checkGateIndex fails when selector occurrence ix (cat(K)) indexes a
// dimension of n ≠ K elements of e.X.
func (c *compiler) checkGateIndex(e *ast.IndexExpr, ix ast.Expr, n int) {
	if K, ok := c.gate.card[ix]; ok && K != n {
		c.fail(ix, "`%s` has %d states but indexes a dimension of %d elements of `%s`; they must be equal", c.text(ix), K, n, c.text(e.X))
	}
}

// badIndex fails on an index that is not a number or an index vector,
// saying where a discrete latent may index.
func (c *compiler) badIndex(ix ast.Expr, v val) {
	if v.k == kSym && !v.sym.exprs && len(v.sym.ids) == 1 && c.m.Graph.Vars[v.sym.ids[0]].Domain.Discrete() {
		c.fail(ix, "`%s` is a discrete latent: it may select the parameters of a likelihood, as in y[i] ~ normal(mu[z[i]], 1) with z ~ categorical(p), but cannot index here", c.text(ix))
	}
	if v.k == kSym && !v.sym.exprs && len(v.sym.ids) > 1 && c.m.Graph.Vars[v.sym.ids[0]].Domain.Discrete() {
		c.fail(ix, "`%s` is a vector of %d discrete latents; one element selects the parameters of one observation: write the likelihood in a plate, e.g. for i in 0..%d { y[i] ~ normal(mu[%s[i]], 1) }",
			c.text(ix), len(v.sym.ids), len(v.sym.ids), c.text(ix))
	}
	c.fail(ix, "an index must be a number or an index vector, got %s", v.describe())
}

// gateGraph adds the discrete variables and the gates to fg: every element
// of a cat latent with a categorical prior becomes a DiscreteVar, and each
// gate's branches AffineSites (affine maps a branch's projection to
// FactorGraph variables). A selector without a categorical prior, or with
// other discrete factors, is an error at the gated statement.
func (c *compiler) gateGraph(fg *FactorGraph, affine func(lin) graph.Form) {
	if len(c.gate.decls) == 0 || c.nBranches*gateBranchBytes > infer.MemoryBudget() {
		return // none, or a plate stopped at the memory budget (that error stands alone)
	}
	g := c.m.Graph
	index := map[int]int{}   // graph variable → index in fg.Discrete
	failed := map[int]bool{} // latents reported (or poisoned): one message each
	for li := range g.Latents {
		l := &g.Latents[li]
		if !l.Domain.Discrete() {
			continue
		}
		if c.poisoned(li) {
			failed[li] = true
			continue
		}
		for e := 0; e < l.Size(); e++ {
			p, ok := c.gate.prior[l.First+e]
			if !ok {
				c.errAt(l.Pos, l.Pos, "%s", c.noSelectorPrior(li, l.First+e))
				failed[li] = true
				break
			}
			index[l.First+e] = len(fg.Discrete)
			fg.Discrete = append(fg.Discrete, graph.DiscreteVar{Var: l.First + e, Prior: p.p})
		}
	}
	for _, d := range c.gate.decls {
		z, ok := index[d.sel]
		if !ok {
			continue // its latent's error above
		}
		gt := graph.Gate{Selector: z, Factor: d.factor, Label: d.label, Pos: d.pos}
		var share siteSharer
		for _, b := range d.branches {
			s := b.site
			s.Factor = d.factor
			gt.Branches = append(gt.Branches, share.site(s, affine(b.form)))
		}
		fg.Gates = append(fg.Gates, gt)
	}
	c.otherDiscreteFactors(fg)
}

// noSelectorPrior explains that element id of discrete latent li has no
// categorical prior, naming a gated likelihood it selects when there is one.
func (c *compiler) noSelectorPrior(li, id int) string {
	g := c.m.Graph
	l := &g.Latents[li]
	typ := l.Domain.String()
	if l.Domain == graph.Cat {
		typ = fmt.Sprintf("cat(%d)", l.Card)
	}
	if len(l.Shape) > 0 {
		typ += shapeStr(l.Shape)
	}
	fix := fmt.Sprintf("add one, e.g. latent %s: %s ~ categorical(p), or %s[i] ~ categorical(p) in a plate", l.Name, typ, l.Name)
	for _, d := range c.gate.decls {
		if g.Vars[d.sel].Latent == li {
			return fmt.Sprintf("`%s` selects the parameters of %s but has no categorical prior; %s", g.VarName(d.sel), d.label, fix)
		}
	}
	return fmt.Sprintf("`%s` is a discrete latent without a categorical prior in a model with gated likelihoods, whose engines take discrete latents only as selectors (cat(K) with a categorical prior on every element); %s", g.VarName(id), fix)
}

// otherDiscreteFactors refuses factors other than the categorical priors
// and the gates on the selectors: the gate engines keep the discrete
// variables independent given the continuous ones.
func (c *compiler) otherDiscreteFactors(fg *FactorGraph) {
	g := c.m.Graph
	sel := map[int]bool{}
	for _, d := range fg.Discrete {
		sel[d.Var] = true
	}
	for fi, f := range g.Factors() {
		if _, cat := f.Kind.(factor.Categorical); cat {
			continue
		}
		for _, v := range f.Vars {
			if sel[v] {
				c.errAt(f.Pos, f.Pos, "%s is on `%s`, which selects the parameters of likelihoods; such a latent may have only its categorical prior and the likelihoods it selects",
					g.FactorLabel(fi), g.VarName(v))
				return
			}
		}
	}
}

// ConditionallyGaussian reports whether every site and every branch of g's
// gates is a Gaussian observation (factor.Normal): given the discrete
// latents the posterior is then Gaussian, and exact enumerates them.
func (g *FactorGraph) ConditionallyGaussian() bool {
	normal := func(s graph.Site) bool {
		_, ok := s.Lik.(factor.Normal)
		return ok
	}
	for s := range g.SharedSites() {
		if !normal(*s) {
			return false
		}
	}
	for _, gt := range g.Gates {
		for _, b := range gt.Branches {
			if !normal(*b.Shared) {
				return false
			}
		}
	}
	return true
}

// maxEnumerationWork bounds configurations × (real elements)³ of exact's
// enumeration (about an hour on one core).
const maxEnumerationWork = 1e13

// The checks of an infer line against a factor graph with gated
// likelihoods (infer/run's gated engines serve it): ep runs infer/fgraph under
// family = factorized with kl, alpha or relaxed_kl; exact enumerates the selectors'
// configurations (at most infer.MaxConfigurations) when the model is
// conditionally Gaussian and integrates at most infer.MaxQuadDim real
// elements otherwise; mcmc samples a dense joint of at most infer.MaxJoint.

// checkGatesExact checks exact on gated likelihoods.
func (c *compiler) checkGatesExact(s *ast.InferStmt) {
	fg := c.m.FactorGraph
	switch n := fg.configurations(); {
	case !fg.ConditionallyGaussian() && fg.NumVars > infer.MaxQuadDim:
		c.errorf(s.Method, "exact integrates a model with gated non-Gaussian likelihoods by quadrature over at most %d real latent elements, the selectors summed out; this one has %d: use infer mcmc as the gold standard",
			infer.MaxQuadDim, fg.NumVars)
	case fg.ConditionallyGaussian() && n > infer.MaxConfigurations:
		c.errorf(s.Method, "exact enumerates the configurations of the %d selectors, at most %d (2^20); this model has %.4g: use infer mcmc as the gold standard",
			len(fg.Discrete), infer.MaxConfigurations, n)
	case fg.ConditionallyGaussian() && n*math.Pow(float64(fg.NumVars), 3) > maxEnumerationWork:
		c.errorf(s.Method, "exact would factor a %d×%d Gaussian for each of %.4g selector configurations (more than %.0e flops): use infer mcmc as the gold standard",
			fg.NumVars, fg.NumVars, n, maxEnumerationWork)
	case fg.NumVars > infer.MaxJoint:
		c.errorf(s.Method, "exact needs a dense Gaussian over at most %d real latent elements; this model has %d", infer.MaxJoint, fg.NumVars)
	}
}

// checkGatesMCMC checks mcmc on gated likelihoods.
func (c *compiler) checkGatesMCMC(s *ast.InferStmt) {
	fg := c.m.FactorGraph
	if fg.NumVars > infer.MaxJoint {
		c.errorf(s.Method, "mcmc samples the joint Gaussian prior of at most %d latent elements; this model has %d", infer.MaxJoint, fg.NumVars)
	}
}

// checkGatesEP checks the options of ep on gated likelihoods and sets the
// family to factorized.
func (c *compiler) checkGatesEP(s *ast.InferStmt, spec *InferSpec, eng Engine) {
	fg := c.m.FactorGraph
	c.blockOnlyOptions(s, spec, eng)
	if at := optionValue(s, "family"); at != ast.Node(s) && spec.Family == infer.FamilyFull {
		c.errorf(at, "gated likelihoods run under family = factorized (belief propagation on the selectors, EP on the real latents): a gate's tilted distribution is a mixture over several projections, which one joint Gaussian has no site for")
	}
	spec.Family = infer.FamilyFactorized
	c.check1(optionValue(s, "schedule"), infer.CheckSchedule("ep on gated likelihoods", spec.Settings.Schedule, infer.GatedSchedules))
	if len(fg.Dense) > 0 {
		c.errorf(s.Method, "gated likelihoods run under family = factorized, which keeps one belief per element; the %s prior of `%s` is a dense Gaussian over several elements",
			fg.Dense[0].Prior.Kind.Name(), fg.Dense[0].Name)
	}
}

// configurations is the number of joint configurations of g's discrete
// variables (as a float: it may overflow an int).
func (g *FactorGraph) configurations() float64 {
	n := 1.0
	for _, d := range g.Discrete {
		n *= float64(len(d.Prior))
	}
	return n
}
