package compile

import (
	"fmt"
	"slices"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// netArg is one argument of a call as it lowers: its edge, the
// expression bound to it and, once evaluated outside a selection, its
// value (for messages that name a csv line).
type netArg struct {
	p netParam
	e ast.Expr
	i int // the builtin's parameter index
	v *val
	// learned: the value reads a learned param (or one computed from
	// one), so a learn statement moves it (learnEdges).
	learned bool
}

// netArgs binds the arguments of a call to its edges. The variance of
// normal becomes the precision edge when it is written `1 / tau` with tau
// depending on a latent, or `precision = tau`.
func (c *compiler) netArgs(a *args, params []netParam) []*netArg {
	out := make([]*netArg, len(params))
	for j, p := range params {
		i := paramIndex(a.b, p.name)
		e := a.expr(i)
		if p.prec != nil {
			if f := a.form(i); f != nil && f.Name == precisionForm {
				p = *p.prec
			} else if x, ok := reciprocal(e); ok && c.mentionsLatent(x) {
				p, e = *p.prec, x
			}
		}
		if e == nil {
			c.fail(a.call, "%s: `%s` must be given", a.b.Name, p.name)
		}
		out[j] = &netArg{p: p, e: e, i: i}
	}
	return out
}

// netVal evaluates argument ar; a number given in a named form (`sd = 2`
// for a variance) is converted to the parameter's canonical value (the
// variance 4) as args.val does, except `precision =`, which is the
// precision edge itself.
func (c *compiler) netVal(a *args, ar *netArg) val {
	v := c.eval(ar.e)
	if f := a.form(ar.i); f != nil && ar.p.edge != precEdge {
		v = a.canonical(ar.i, f, v)
	}
	return v
}

// argNodes are the expressions of args, in order.
func argNodes(args []*netArg) []ast.Node {
	out := make([]ast.Node, len(args))
	for j, a := range args {
		out[j] = a.e
	}
	return out
}

// precisionForm is the named form of normal's variance that gives its
// precision, `normal(mu, precision = tau)`: the precision edge.
const precisionForm = "precision"

// reciprocal reports whether e is `1 / x` and returns x.
func reciprocal(e ast.Expr) (ast.Expr, bool) {
	b, ok := unparen(e).(*ast.BinaryExpr)
	if !ok || b.Op != ast.OpDiv {
		return nil, false
	}
	if one, ok := unparen(b.X).(*ast.NumberLit); ok && one.Value == 1 {
		return b.Y, true
	}
	return nil, false
}

// netEdges evaluates a call's parameters as the edges of n factors (one
// per element of the left side; scalars broadcast), returning element e's
// edges and the expression to blame for each. K is the length of a
// vector parameter when the left side fixes it (0 otherwise). When an
// argument is indexed by one element z of a cat(K) latent (mu[z[i]],
// A[z[t-1]]), the edges that depend on z become selections with one
// branch per state (the gate of Minka & Winn 2008).
func (c *compiler) netEdges(a *args, ps []netParam, n, K int) (func(e int) []graph.Edge, []*netArg) {
	params := c.netArgs(a, ps)
	uses := c.selectors(a.call)
	if len(uses) == 0 {
		fns := make([]func(int) graph.Edge, len(params))
		for j, ar := range params {
			fns[j] = c.netParamEdge(a, ar, n, K)
		}
		return func(e int) []graph.Edge {
			out := make([]graph.Edge, len(fns))
			for j, f := range fns {
				out[j] = f(e)
			}
			return out
		}, params
	}
	// One selector per statement, as for gated likelihoods (gate.go,
	// whose selectors and checkSelector this reuses).
	for _, u := range uses {
		if len(u.ids) != 1 || n != 1 {
			c.fail(u.at, "a distribution whose parameters `%s` selects is on one element; write it in a plate, e.g. y[i] ~ normal(mu[z[i]], 1 / tau)", c.text(u.at))
		}
	}
	sel := uses[0].ids[0]
	for _, u := range uses[1:] {
		if u.ids[0] != sel {
			c.fail(u.at, "one discrete latent element may select a distribution's parameters; `%s` and `%s` both index here",
				c.text(uses[0].at), c.text(u.at))
		}
	}
	c.checkSelector(uses[0].at, sel)
	states := c.m.Graph.Vars[sel].Card
	c.nUnroll += states - 1 // the branches count against the model's factor limit
	if c.nUnroll > maxFactors {
		c.fail(a.call, "the model unrolls to more than %d factors (a selected factor counts one per branch)", maxFactors)
	}
	branches := make([][]graph.Edge, states)
	for st := range branches {
		branches[st] = c.netBranch(a, params, uses, st, states, K)
	}
	merged := make([]graph.Edge, len(params))
	for j, ar := range params {
		same := true
		for st := 1; st < states && same; st++ {
			same = edgeEqual(branches[st][j], branches[0][j])
		}
		if same {
			merged[j] = branches[0][j]
			continue
		}
		bs := make([]graph.Edge, states)
		for st := range bs {
			bs[st] = branches[st][j]
		}
		merged[j] = graph.Edge{Name: ar.p.edge, Selected: true, Sel: sel, Branches: c.shareBranches(a.call, j, bs)}
	}
	return func(int) []graph.Edge { return merged }, params
}

// shareBranches returns the branches of argument j of call, reusing the
// previous iteration's slice when it holds the same edges: a plate's
// selected rows (A[z[t - 1]]) or means (mu[z[t]]) are the same at every
// step, and the factors share one read-only slice of them.
func (c *compiler) shareBranches(call *ast.CallExpr, j int, bs []graph.Edge) []graph.Edge {
	key := netArgKey{call, j}
	if prev, ok := c.net.branches[key]; ok && len(prev) == len(bs) {
		same := true
		for k := range bs {
			if same = edgeEqual(prev[k], bs[k]); !same {
				break
			}
		}
		if same {
			return prev
		}
	}
	c.net.branches[key] = bs
	return bs
}

// netBranch evaluates the edges with every use of the selector replaced
// by state st (of K states).
func (c *compiler) netBranch(a *args, params []*netArg, uses []selectorUse, st, states, K int) []graph.Edge {
	defer c.inState(uses, st, states)()
	out := make([]graph.Edge, len(params))
	for j, ar := range params {
		out[j] = c.netParamEdge(a, ar, 1, K)(0)
		ar.v = nil // a branch's value: messages name no csv line for it
	}
	return out
}

// netParamEdge evaluates one argument as an edge per element; its data
// are checked by the kind (addNetFactor).
func (c *compiler) netParamEdge(a *args, ar *netArg, n, K int) func(e int) graph.Edge {
	if ar.p.vector {
		return c.netVectorEdge(a, ar, K)
	}
	mark := c.lf.mark()
	v := c.netVal(a, ar)
	ar.v = &v
	switch v.k {
	case kNum, kBool:
		ar.learned = c.lf.mark() > mark
		c.lf.allowIn(mark, ar.e) // data: learning sets it in place at every value (learnRec.nets)
		if v.size() != 1 && v.size() != n {
			c.fail(ar.e, "%s: `%s` must be a number or a vector of %d (one per element), got %s", a.b.Name, ar.p.name, n, v.describe())
		}
		c.finite(ar.e, a.b.Name+" "+ar.p.name, v)
		return func(e int) graph.Edge { return graph.DataEdge(ar.p.edge, v.num[min(e, len(v.num)-1)]) }
	case kSym:
		if !ar.p.latent {
			c.fail(ar.e, "%s: `%s` must be a number (data or a param), not a latent expression", a.b.Name, ar.p.name)
		}
		if v.size() != 1 && v.size() != n {
			c.fail(ar.e, "%s: `%s` must be one element or %d (one per element), got %s", a.b.Name, ar.p.name, n, v.describe())
		}
		if ar.p.affine {
			// A learned coefficient or offset of a mean (b * mu + c):
			// learning sets the edge's coefficients and constant in place
			// at every value (learnRec.nets) and differentiates along them
			// (graph.NetFactor.Affine); one that moves its variables (an
			// index) is refused there, at this factor.
			ar.learned = c.lf.mark() > mark
			c.lf.allowIn(mark, ar.e)
		}
		forms := v.sym.forms()
		if forms == nil && v.sym.ids != nil && !v.sym.exprs {
			ids := v.sym.ids // a discrete selection: buildNet reports its family
			forms = func(k int) lin { return varLin(ids[k]) }
		}
		if forms == nil && ar.p.prec != nil {
			c.fail(ar.e, "%s: the variance `%s` is not one latent: write a latent precision as `1 / tau` (tau ~ gamma(...)) or a latent variance as `s2` (s2 ~ inv_gamma(...))", a.b.Name, c.text(ar.e))
		}
		if forms == nil {
			c.fail(ar.e, "%s: `%s` is not affine in the latents; an argument is a latent (p, rate[j], tau) or, for a mean, an affine expression such as dot(X[i], w) + b", a.b.Name, ar.p.name)
		}
		size := v.size()
		return func(e int) graph.Edge {
			f := forms(min(e, size-1))
			if !f.finite() {
				c.fail(ar.e, "%s: `%s` has an infinite or NaN coefficient or constant (a division by zero?)", a.b.Name, ar.p.name)
			}
			ed := linEdge(ar.p.edge, f)
			if _, single := ed.IsVar(); !single && !ed.IsData() && !ar.p.affine {
				c.fail(ar.e, "%s: the %s is a latent itself (%s), not an expression of latents such as `%s`", a.b.Name, edgeWords(ar.p), edgeExample(ar.p), c.text(ar.e))
			}
			return ed
		}
	}
	c.fail(ar.e, "%s: `%s` must be a number or a latent, got %s", a.b.Name, ar.p.name, v.describe())
	return nil
}

// netVectorEdge evaluates a vector argument (dirichlet's alpha,
// categorical's p): K numbers, the same for every element (a dirichlet
// concentration may be one number, the same for every component), or a
// row of a Dirichlet latent (w, A[k]).
func (c *compiler) netVectorEdge(a *args, ar *netArg, K int) func(e int) graph.Edge {
	mark := c.lf.mark()
	v := c.eval(ar.e)
	ar.v = &v
	if v.k == kNum {
		ar.learned = c.lf.mark() > mark
		c.lf.allowIn(mark, ar.e) // data, as in netParamEdge
	}
	var e graph.Edge
	switch {
	case v.k == kNum && len(v.shape) == 0 && !ar.p.latent && K > 0:
		x := make([]float64, K)
		for i := range x {
			x[i] = v.num[0]
		}
		e = graph.DataEdge(ar.p.edge, x...)
	case v.k == kNum && len(v.shape) == 1:
		if K > 0 && v.shape[0] != K {
			c.fail(ar.e, "%s: `%s` has %d entries; it must have %d", a.b.Name, ar.p.name, v.shape[0], K)
		}
		c.finite(ar.e, a.b.Name+" "+ar.p.name, v)
		e = graph.DataEdge(ar.p.edge, v.num...)
	case v.k == kSym && ar.p.latent:
		e = graph.VarEdge(ar.p.edge, c.rowOf(a, ar, v, K))
	default:
		c.fail(ar.e, "%s: `%s` must be a vector of %s or a row of a dirichlet latent (w, A[k]), got %s", a.b.Name, ar.p.name, entries(K), v.describe())
	}
	return func(int) graph.Edge { return e }
}

// edgeWords names an argument in messages: "`rate`", "precision".
func edgeWords(p netParam) string {
	if p.edge == precEdge {
		return "precision (1 / tau)"
	}
	return "`" + p.name + "`"
}

// edgeExample is a latent written as an argument.
func edgeExample(p netParam) string {
	if p.edge == precEdge {
		return "tau"
	}
	return p.name + "[j]"
}

// entries renders "K numbers" or "numbers".
func entries(K int) string {
	if K > 0 {
		return fmt.Sprintf("%d numbers", K)
	}
	return "numbers"
}

// rowOf checks that v selects one whole row (the last dimension) of a
// latent and returns the row's first graph variable.
func (c *compiler) rowOf(a *args, ar *netArg, v val, K int) int {
	s := v.sym
	if s.lat < 0 || s.exprs || len(s.ids) == 0 {
		c.fail(ar.e, "%s: `%s` must be a row of a dirichlet latent (w, A[k]), not the expression `%s`", a.b.Name, ar.p.name, c.text(ar.e))
	}
	l := &c.m.Graph.Latents[s.lat]
	L := c.lastDim(l)
	first := s.ids[0]
	whole := len(s.ids) == L && (first-l.First)%L == 0
	for j := 1; whole && j < L; j++ {
		whole = s.ids[j] == first+j
	}
	if !whole {
		c.fail(ar.e, "%s: `%s` must be one whole row of a dirichlet latent (w, A[k]); `%s` selects %d elements of `%s`", a.b.Name, ar.p.name, c.text(ar.e), len(s.ids), l.Name)
	}
	if K > 0 && L != K {
		c.fail(ar.e, "%s: `%s` has %d entries; it must have %d", a.b.Name, ar.p.name, L, K)
	}
	return first
}

// assumedFamilies gives each variable of f the family its edge takes
// first (Gaussian in an affine expression, Discrete for a selector), so
// that CheckNet checks f's data before the families are known.
func assumedFamilies(k factor.NetKind, f *graph.NetFactor) func(int) graph.Family {
	type varFam struct {
		v   int
		fam graph.Family
	}
	var fams []varFam // a factor has few variables
	var walk func(e graph.Edge, spec factor.EdgeSpec)
	walk = func(e graph.Edge, spec factor.EdgeSpec) {
		if e.Selected {
			fams = append(fams, varFam{e.Sel, graph.Discrete})
			for _, b := range e.Branches {
				walk(b, spec)
			}
			return
		}
		for _, v := range e.Vars {
			switch {
			case len(e.Vars) > 1 || e.Coefs[0] != 1 || e.Const != 0:
				fams = append(fams, varFam{v, graph.Gaussian})
			case len(spec.Families) > 0:
				fams = append(fams, varFam{v, spec.Families[0]})
			}
		}
	}
	for _, e := range f.Edges {
		if spec, ok := edgeSpec(k, e.Name); ok {
			walk(e, spec)
		}
	}
	return func(v int) graph.Family {
		for _, vf := range fams {
			if vf.v == v {
				return vf.fam
			}
		}
		return graph.Gaussian
	}
}

// netDataError fails with a factor's data error (a *factor.EdgeError from
// its kind's CheckNet) at the argument or observation it is about,
// naming the element and, for csv data, the file and line.
func (c *compiler) netDataError(d netDecl, err error, args []*netArg, e int, obs *netObs) {
	ee, ok := err.(*factor.EdgeError)
	if !ok {
		c.fail(d.at[0], "%s: %v", d.f.Label, err)
	}
	if ee.Edge == "" && obs != nil {
		c.fail(obs.lhs, "%s: %s", c.dataRef(c.render(obs.lhs), obs.y, e), ee.Msg)
	}
	j := 0
	for i, ed := range d.f.Edges {
		if ed.Name == ee.Edge {
			j = i
		}
	}
	msg := ee.Msg
	off := len(d.f.Edges) - len(args) // a prior's x edge has no argument
	if j >= off {
		if ar := args[j-off]; ar.v != nil && len(ar.v.shape) > 0 && (ar.v.fromFile() || !ar.p.vector) {
			i := min(e, ar.v.size()-1)
			if ar.p.vector && ee.Elem >= 0 {
				i = ee.Elem
			}
			msg += " (" + c.dataRef(c.text(ar.e), *ar.v, i) + ")"
		}
	}
	if ee.Branch >= 0 {
		msg += fmt.Sprintf(" in the branch of state %d", ee.Branch)
	}
	c.fail(d.at[j], "%s", msg)
}

// dataRef names element i of data v written as name: y[3], with the csv
// file and line when v came from one.
func (c *compiler) dataRef(name string, v val, i int) string {
	where := name
	if len(v.shape) > 0 {
		where = fmt.Sprintf("%s[%s]", name, unflat(v.shape, i))
	}
	return where + csvLine(v, i)
}

// linEdge is the edge of an affine form: a variable, an affine
// expression, or a number.
func linEdge(name string, f lin) graph.Edge {
	switch {
	case len(f.ids) == 0:
		return graph.DataEdge(name, f.c)
	case len(f.ids) == 1 && f.coefs[0] == 1 && f.c == 0:
		return graph.VarEdge(name, f.ids[0])
	}
	return graph.Edge{Name: name, Vars: slices.Clone(f.ids), Coefs: slices.Clone(f.coefs), Const: f.c}
}

// edgeEqual reports whether two edges are the same.
func edgeEqual(a, b graph.Edge) bool {
	if a.Name != b.Name || a.Const != b.Const || a.Selected != b.Selected || a.Sel != b.Sel ||
		!slices.Equal(a.Vars, b.Vars) || !slices.Equal(a.Coefs, b.Coefs) || !slices.Equal(a.Value, b.Value) ||
		len(a.Branches) != len(b.Branches) {
		return false
	}
	for i := range a.Branches {
		if !edgeEqual(a.Branches[i], b.Branches[i]) {
			return false
		}
	}
	return true
}
