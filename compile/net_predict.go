package compile

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// NetPredict is a predict statement on a model compiled to the typed
// factor graph: the posterior predictive of a new observation of the
// likelihood Kind, one per element (Factors[e] has the edges of element e
// over the Net's variables and no observation). infer/run evaluates it
// from each engine's posterior (Kind's PredictNet on the moments of the
// edges).
type NetPredict struct {
	Kind    factor.NetPredictive
	Factors []graph.NetFactor
	// Shape is the shape of the predicted quantity: nil for a scalar
	// (predictive(bernoulli(p)) with p a scalar), the broadcast
	// argument's shape otherwise.
	Shape []int
}

// netPredictUsage is how a predict statement reads on a Net model.
const netPredictUsage = "predict takes the likelihood of a new observation: predictive(bernoulli(p)), predictive(binomial(20, p)), predictive(poisson(rate[j])), predictive(normal(mu, 1 / tau))"

// netPredict compiles `predict NAME = predictive(DIST(args))` on a Net
// model: DIST is a likelihood with a predictive rule (bernoulli,
// binomial, poisson, normal), its arguments lowered to edges as those of
// `y ~ DIST(args)` are — scalars, or vectors of one length n (then n
// predictions, scalars broadcasting) — and checked by the kind as a
// factor observing 0. The engines answer it from their posteriors; a
// predictive an engine of the file cannot answer is refused here.
func (c *compiler) netPredict(s *ast.PredictStmt) {
	call, ok := s.Value.(*ast.CallExpr)
	if !ok || call.FunName() != "predictive" || len(call.Args) != 1 || len(call.Named) != 0 {
		c.fail(s.Value, "%s", netPredictUsage)
	}
	inner, ok := call.Args[0].(*ast.CallExpr)
	if !ok {
		c.netPredictLatent(s, call.Args[0])
		return
	}
	b := c.distribution(inner)
	k, ok := netLikelihoodKind(b.Name)
	pk, hasRule := k.(factor.NetPredictive)
	if !ok || !hasRule {
		c.fail(inner.Fun, "predictive of `%s`: the posterior predictive is defined for bernoulli, binomial, poisson and normal on %s", b.Name, netModel)
	}
	c.netPredictName(s)
	if uses := c.selectors(inner); len(uses) > 0 {
		c.fail(uses[0].at, "predictive: a parameter selected by a discrete latent (`%s`) is not supported; predict one branch, e.g. predictive(normal(mu[0], 1 / tau))", c.text(uses[0].at))
	}
	a := c.bind(inner, b)
	ps := c.netParamsOf(inner, k, b)
	n, shape := c.netPredictSize(a, ps)
	edges, args := c.netEdges(a, ps, n, 0)
	if !c.netMentionsLatent(a) {
		c.fail(inner, "`%s` depends on no latent: its predictive is the likelihood itself", c.text(inner))
	}
	net := c.m.Net
	if net == nil {
		return // the model's errors explain it
	}
	varOf := netVarOf(c.m.Graph, net)
	shared := map[*graph.Edge][]graph.Edge{}
	spec := &PredictSpec{Name: s.Name.Name, Block: -1, Pos: s.Pos(), Net: &NetPredict{Kind: pk, Factors: make([]graph.NetFactor, n), Shape: shape}}
	fam := func(v int) graph.Family { return net.Vars[v].Family }
	for e := 0; e < n; e++ {
		f := graph.NetFactor{Kind: k, Edges: edges(e), Label: fmt.Sprintf("predictive(%s)", c.text(inner)), Pos: inner.Pos()}
		for j, ed := range f.Edges {
			f.Edges[j] = mapEdge(ed, varOf, shared)
		}
		if !mapped(f.Edges) {
			c.fail(inner, "predictive: `%s` names a latent without a prior", c.text(inner))
		}
		check := f
		check.Observed, check.Y = true, []float64{0} // 0 is in every likelihood's support
		if err := k.CheckNet(&check, fam); err != nil {
			c.familyError(net, netDecl{f: f, kind: k, at: argNodes(args)}, &f, err)
			panic(abort{})
		}
		spec.Net.Factors[e] = f
	}
	c.netPredictEngines(s, spec.Net)
	c.m.Predicts = append(c.m.Predicts, spec)
}

// netPredictName fails on a predict name declared before.
func (c *compiler) netPredictName(s *ast.PredictStmt) {
	for _, p := range c.m.Predicts {
		if p.Name == s.Name.Name {
			c.fail(s.Name, "predict `%s` declared twice", s.Name.Name)
		}
	}
}

// netPredictLatent compiles the short form `predict NAME =
// predictive(LATENT)`: per element x of the latent (a scalar, an
// element, or a vector of them), the new observation of the likelihood
// its observations share — every observed factor with x as a whole edge
// (bernoulli(p), poisson(rate[g[i]]), normal(mu, 1 / tau)) must have the
// same kind and the same edges, or the statement is refused, naming two
// that differ, with the explicit form predictive(DIST(args)) to write.
func (c *compiler) netPredictLatent(s *ast.PredictStmt, at ast.Expr) {
	c.netPredictName(s)
	v := c.eval(at)
	if v.k != kSym || v.sym.lat < 0 || v.sym.exprs || v.sym.ids == nil {
		c.fail(at, "on %s, %s; predictive(LATENT) takes a latent or elements of one, whose observations share a likelihood", netModel, netPredictUsage)
	}
	net := c.m.Net
	if net == nil {
		return // the model's errors explain it
	}
	varOf := netVarOf(c.m.Graph, net)
	spec := &PredictSpec{Name: s.Name.Name, Block: -1, Pos: s.Pos(), Net: &NetPredict{Factors: make([]graph.NetFactor, len(v.sym.ids)), Shape: v.shape}}
	for e, id := range v.sym.ids {
		nv := varOf[id]
		name := c.m.Graph.VarName(id)
		var first *graph.NetFactor
		for fi := range net.Factors {
			f := &net.Factors[fi]
			if nv < 0 || !f.Observed || !onEdge(f, nv) {
				continue
			}
			if first == nil {
				first = f
				continue
			}
			if !graph.SameKind(f.Kind, first.Kind) || !sameEdges(f.Edges, first.Edges) {
				c.fail(at, "predictive(%s): the observations of `%s` have different likelihoods (%s at %s, %s at %s); write the new observation's likelihood, predictive(DIST(args))",
					c.text(at), name, first.Label, c.fset.Position(first.Pos), f.Label, c.fset.Position(f.Pos))
			}
		}
		if first == nil {
			c.fail(at, "predictive(%s): no observation has `%s` as a parameter of its likelihood; write the new observation's likelihood, e.g. predictive(bernoulli(p)) or predictive(normal(dot(x, w) + b, 1 / tau))", c.text(at), name)
		}
		for _, ed := range first.Edges {
			if ed.Selected {
				c.fail(at, "predictive(%s): the observations of `%s` (%s at %s) have a parameter selected by a discrete latent, `%s`; a predictive over the selector's states is not supported",
					c.text(at), name, first.Label, c.fset.Position(first.Pos), net.Vars[ed.Sel].Name)
			}
		}
		pk, ok := first.Kind.(factor.NetPredictive)
		if !ok {
			c.fail(at, "predictive(%s): the observations of `%s` are %s, which has no posterior predictive here (bernoulli, binomial, poisson and normal have)", c.text(at), name, first.Kind.Name())
		}
		f := *first
		f.Observed, f.Y = false, nil
		f.Label = fmt.Sprintf("predictive(%s)", name)
		spec.Net.Kind, spec.Net.Factors[e] = pk, f
	}
	for _, f := range spec.Net.Factors[1:] {
		if !graph.SameKind(f.Kind, spec.Net.Kind) {
			c.fail(at, "predictive(%s): its elements' observations have different likelihoods (%s and %s); predict them one by one", c.text(at), spec.Net.Kind.Name(), f.Kind.Name())
		}
	}
	c.netPredictEngines(s, spec.Net)
	c.m.Predicts = append(c.m.Predicts, spec)
}

// onEdge reports whether Net variable v is a whole edge of f.
func onEdge(f *graph.NetFactor, v int) bool {
	for _, e := range f.Edges {
		if u, ok := e.IsVar(); ok && u == v {
			return true
		}
	}
	return false
}

// sameEdges reports whether two factors' edges are equal.
func sameEdges(a, b []graph.Edge) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !edgeEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// netPredictSize is the number of predictions: the common length of the
// arguments that are vectors (1 when all are scalars).
func (c *compiler) netPredictSize(a *args, ps []netParam) (n int, shape []int) {
	n = 1
	for _, ar := range c.netArgs(a, ps) {
		if ar.p.vector {
			continue
		}
		v := c.eval(ar.e)
		if len(v.shape) > 0 && shape == nil {
			shape = v.shape
		}
		if m := v.size(); m != 1 {
			if n != 1 && m != n {
				c.fail(ar.e, "predictive: `%s` has %d elements, another argument %d", c.text(ar.e), m, n)
			}
			n, shape = m, v.shape
		}
	}
	return n, shape
}

// netVarOf maps every graph variable to its Net variable (a Dirichlet
// row's elements to the row's variable), −1 where there is none.
func netVarOf(g *graph.Graph, net *graph.Net) []int {
	varOf := make([]int, len(g.Vars))
	for i := range varOf {
		varOf[i] = -1
	}
	for v, nv := range net.Vars {
		first := g.Latents[nv.Latent].First
		if nv.Family == graph.Dirichlet {
			for j := 0; j < nv.Dim; j++ {
				varOf[first+nv.Elem*nv.Dim+j] = v
			}
			continue
		}
		varOf[first+nv.Elem] = v
	}
	return varOf
}

// netPredictEngines refuses a predictive that an infer line's engine
// cannot answer: exact and mcmc report each variable's marginal mean and
// variance (and E[1/τ] of a Gamma or inverse Gamma latent), so they
// answer a predictive whose edges are data or one variable each
// (Var[c·x + c₀] = c² Var[x]), but not the variance of an affine mean over
// several latents (it needs their covariances). ep (kl, alpha(a),
// alpha(0)) answers all of them from its posterior approximation, a
// product of its beliefs.
func (c *compiler) netPredictEngines(s *ast.PredictStmt, np *NetPredict) {
	var why string
	for _, f := range np.Factors {
		for _, e := range f.Edges {
			if len(e.Vars) > 1 {
				why = fmt.Sprintf("its %s is an affine expression of several latents, whose variance needs their joint posterior", e.Name)
			}
		}
	}
	if why == "" {
		return
	}
	for _, in := range c.m.Infers {
		if in.Method == infer.MethodExact || in.Method == infer.MethodMCMC {
			c.fail(s, "predict %s: %s cannot answer this predictive: %s; exact and mcmc report each latent's marginal mean and variance (the infer line at %s)",
				s.Name.Name, in.Method, why, c.fset.Position(in.Pos))
		}
	}
}
