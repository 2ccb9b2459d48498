package compile

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
	"github.com/fg-infer/fg/stdlib/ad"
	"github.com/fg-infer/fg/stdlib/loss"
)

// Exact derivatives of what learning differentiates.
//
// Learning needs, at learned values x, the derivative in every x_k of the
// numbers the learned params reach: kernel hyperparameters, prior means,
// variances and covariances, and likelihood parameters (step's eps,
// normal's var). LearnFunc.Tangents computes them by forward-mode
// automatic differentiation: the learned params are the independent
// variables of stdlib/ad jets (x_k is ad.Var(k, len(x), x_k), a vector
// jet whose gradient is e_k), and the expressions LearnFunc re-evaluates —
// the definitions of the params computed from learned ones, then the
// arguments of the recorded prior and likelihood calls — are evaluated
// on those jets (jetEval) next to their ordinary evaluation, so that every
// number comes with its gradient in all learned params at once. Kernel
// builtins record the jets of their hyperparameters in the KernelSpec
// they build (kernelCall, kernelArith), in the order of its Hyper; the
// named forms of a variance (sd =, precision =) convert a jet as they
// convert a number (stdlib.Form.CanonicalJet).
//
// A sub-expression that reads no learned param is a constant, evaluated
// as compile evaluates it. The arithmetic of a learned one is the
// language's: numbers, + − * / ^ with scalar broadcasting, unary minus,
// lists, indexing, the math builtins (exp, log, abs, sqrt, sum, dot, min,
// max — the ad.Jet functions compile's own evaluation uses) and the
// losses. Anything else that reads a learned param (@, a data builtin, a
// comparison) has no jet: the quantity it reaches carries the reason
// (jetVal.why) and learning differences that quantity alone (infer/run's
// learnBuilder.derivs).

// jetState is the forward-mode state of a compilation that differentiates
// (LearnFunc.Tangents): the jets of the params defined so far, by name
// (the learned params' seeded by setValues), and the places whose numbers
// got no derivative (learnWarnings shows them).
type jetState struct {
	env   map[string]jetVal
	falls []jetFall
}

// jetFall is a place whose numbers have no exact derivative, and why:
// learning takes their central differences.
type jetFall struct {
	at  ast.Node
	msg string
}

// jetVal is a number array with its jets (row-major, shape as in val), or
// the reason it has none: why, positioned, the message msg about at.
type jetVal struct {
	j     []ad.Jet
	shape []int
	why   string
	at    ast.Node
	msg   string
}

func noJet(fset *ast.FileSet, at ast.Node, format string, args ...any) jetVal {
	msg := fmt.Sprintf(format, args...)
	return jetVal{why: fmt.Sprintf("%s: %s", fset.Position(at.Pos()), msg), at: at, msg: msg}
}

// fellBack notes that the numbers of v, which has no jets, are
// differenced (a no-op when v has jets).
func (c *compiler) fellBack(v jetVal) {
	if v.why != "" && v.at != nil {
		c.jet.falls = append(c.jet.falls, jetFall{v.at, v.msg})
	}
}

// fellAt notes that the numbers at node at are differenced, and why.
func (c *compiler) fellAt(at ast.Node, format string, args ...any) {
	c.jet.falls = append(c.jet.falls, jetFall{at, fmt.Sprintf(format, args...)})
}

// constJet is the constant jet array of the values of v.
func constJet(v val) jetVal { return jetVal{j: ad.Consts(v.num), shape: v.shape} }

// readsJet reports whether e names a param that has jets (a learned param
// or one computed from them) where it is evaluated.
func (c *compiler) readsJet(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && !found {
			if b, ok := c.lookup(id.Name); ok && b.kind == bParam {
				_, found = c.jet.env[id.Name]
			}
		}
		return !found
	})
	return found
}

// jetEval evaluates the number expression e on the jets of the learned
// params (see above).
func (c *compiler) jetEval(e ast.Expr) jetVal {
	if !c.readsJet(e) {
		v := c.eval(e)
		if v.k != kNum && v.k != kBool {
			return noJet(c.fset, e, "`%s` is a %s, not numbers", c.text(e), v.describe())
		}
		return constJet(v)
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return c.jetEval(e.X)
	case *ast.Ident:
		return c.jet.env[e.Name]
	case *ast.UnaryExpr:
		if e.Op == ast.OpNeg {
			return jetMap1(c.jetEval(e.X), ad.Jet.Neg)
		}
	case *ast.BinaryExpr:
		return c.jetBinary(e)
	case *ast.ListLit:
		return c.jetList(e)
	case *ast.CallExpr:
		return c.jetCall(e)
	case *ast.IndexExpr:
		return c.jetIndex(e)
	}
	return noJet(c.fset, e, "`%s` has no derivative in the learned params (forward-mode AD covers + − * / ^, lists and the math builtins)", c.text(e))
}

// jetIndex selects elements of a number array with jets, as index does
// (the indices are numbers no learned param reaches).
func (c *compiler) jetIndex(e *ast.IndexExpr) jetVal {
	x := c.jetEval(e.X)
	if x.why != "" {
		return x
	}
	if len(e.Indices) > len(x.shape) || len(x.j) == 0 {
		return noJet(c.fset, e, "`%s` is indexed with %d indices", c.text(e.X), len(e.Indices))
	}
	offs, shape := c.indexOffsets(e, x.shape)
	out := jetVal{j: make([]ad.Jet, len(offs)), shape: shape}
	for i, o := range offs {
		out.j[i] = x.j[o]
	}
	return out
}

// jetMap1 applies f elementwise.
func jetMap1(x jetVal, f func(ad.Jet) ad.Jet) jetVal {
	if x.why != "" {
		return x
	}
	out := jetVal{j: make([]ad.Jet, len(x.j)), shape: x.shape}
	for i, u := range x.j {
		out.j[i] = f(u)
	}
	return out
}

// jetMap2 applies f elementwise with map2's scalar broadcasting.
func (c *compiler) jetMap2(at ast.Node, x, y jetVal, f func(a, b ad.Jet) ad.Jet) jetVal {
	switch {
	case x.why != "":
		return x
	case y.why != "":
		return y
	}
	shape := x.shape
	switch {
	case sameShape(x.shape, y.shape):
	case len(x.shape) == 0:
		shape = y.shape
	case len(y.shape) != 0:
		return noJet(c.fset, at, "shape mismatch")
	}
	n := max(len(x.j), len(y.j))
	if len(x.j) == 0 || len(y.j) == 0 {
		n = 0
	}
	out := jetVal{j: make([]ad.Jet, n), shape: shape}
	for i := range out.j {
		out.j[i] = f(x.j[min(i, len(x.j)-1)], y.j[min(i, len(y.j)-1)])
	}
	return out
}

// jetPow is a^b; with a jet exponent its derivatives are those of
// exp(b·log a), its value math.Pow's (as compile computes it).
func jetPow(a, b ad.Jet) ad.Jet {
	if b.IsConst() {
		return a.Pow(b.V)
	}
	out := b.Mul(a.Log()).Exp()
	out.V = a.Pow(b.V).V
	return out
}

func (c *compiler) jetBinary(e *ast.BinaryExpr) jetVal {
	var f func(a, b ad.Jet) ad.Jet
	switch e.Op {
	case ast.OpAdd:
		f = ad.Jet.Add
	case ast.OpSub:
		f = ad.Jet.Sub
	case ast.OpMul:
		f = ad.Jet.Mul
	case ast.OpDiv:
		f = ad.Jet.Div
	case ast.OpPow:
		f = jetPow
	default:
		return noJet(c.fset, e, "`%s` has no derivative in the learned params (operator %s)", c.text(e), e.Op)
	}
	return c.jetMap2(e, c.jetEval(e.X), c.jetEval(e.Y), f)
}

// jetList stacks numbers into a vector or matrix, as list does.
func (c *compiler) jetList(e *ast.ListLit) jetVal {
	var out jetVal
	for i, x := range e.Elems {
		v := c.jetEval(x)
		if v.why != "" {
			return v
		}
		if i == 0 {
			out.shape = append([]int{len(e.Elems)}, v.shape...)
		} else if !sameShape(v.shape, out.shape[1:]) {
			return noJet(c.fset, x, "ragged list")
		}
		out.j = append(out.j, v.j...)
	}
	return out
}

// jetCall evaluates a math builtin or a loss on jets.
func (c *compiler) jetCall(e *ast.CallExpr) jetVal {
	id, ok := e.Fun.(*ast.Ident)
	if !ok {
		return noJet(c.fset, e, "`%s` has no derivative in the learned params", c.text(e))
	}
	if _, shadowed := c.lookup(id.Name); !shadowed {
		if b, ok := stdlib.Lookup(stdlib.Math, id.Name); ok {
			return c.jetMath(c.bind(e, b))
		}
		if b, ok := stdlib.Lookup(stdlib.Loss, id.Name); ok {
			a := c.bind(e, b)
			if len(b.Params) > 1 && a.expr(1) != nil && c.readsJet(a.expr(1)) {
				return noJet(c.fset, a.at(1), "a loss's `%s` has no derivative in the learned params", b.Params[1].Name)
			}
			l, err := loss.ByName(b.Name, lossParam(a))
			if err != nil {
				c.fail(e, "%v", err)
			}
			return jetMap1(c.jetEval(a.expr(0)), func(u ad.Jet) ad.Jet { return loss.OfJet(l, u) })
		}
	}
	return noJet(c.fset, e, "`%s` has no derivative in the learned params (forward-mode AD covers the math builtins and the losses)", id.Name)
}

// jetMath is mathCall on jets.
func (c *compiler) jetMath(a *args) jetVal {
	x := c.jetEval(a.expr(0))
	if f, ok := unaryMath[a.b.Name]; ok {
		return jetMap1(x, f)
	}
	reduce := func(f func([]ad.Jet) ad.Jet) jetVal {
		if x.why != "" {
			return x
		}
		return jetVal{j: []ad.Jet{f(x.j)}}
	}
	switch a.b.Name {
	case "sum":
		return reduce(ad.Sum)
	case "dot":
		y := c.jetEval(a.expr(1))
		if y.why != "" {
			return y
		}
		return reduce(func(u []ad.Jet) ad.Jet { return ad.Dot(u, y.j) })
	case "min", "max":
		f := ad.Min
		if a.b.Name == "max" {
			f = ad.Max
		}
		if a.expr(1) != nil {
			return c.jetMap2(a.call, x, c.jetEval(a.expr(1)), f)
		}
		if x.why == "" && len(x.j) == 0 {
			return noJet(c.fset, a.call, "%s of an empty vector", a.b.Name)
		}
		return reduce(func(u []ad.Jet) ad.Jet {
			acc := u[0]
			for _, v := range u[1:] {
				acc = f(acc, v)
			}
			return acc
		})
	}
	return noJet(c.fset, a.call, "`%s` has no derivative in the learned params", a.b.Name)
}

// jetArg is parameter i of a call on jets, in its canonical form (def
// when omitted).
func (c *compiler) jetArg(a *args, i int, def float64) jetVal {
	e := a.expr(i)
	if e == nil {
		return jetVal{j: []ad.Jet{ad.Const(def)}}
	}
	v := c.jetEval(e)
	if f := a.form(i); f != nil {
		v = jetMap1(v, f.CanonicalJet)
	}
	return v
}

// paramDefault is builtin parameter p's default value (0 without one).
func paramDefault(p stdlib.Param) float64 {
	def, _ := strconv.ParseFloat(p.Default, 64)
	return def
}

// defineJet records the jets of dependent param name = e, whose value v
// was just computed: numbers get theirs from jetEval; a kernel carries its
// hyperparameters' in its KernelSpec.
func (j *jetState) define(c *compiler, name string, e ast.Expr, v val) {
	switch v.k {
	case kNum, kBool:
		j.env[name] = c.jetEval(e)
	default:
		j.env[name] = noJet(c.fset, e, "param %s is a %s", name, v.describe())
	}
}

// hyperJets notes, when differentiating, the jets of the hyperparameters
// argument i of a (def when omitted) just appended to k.Hyper: NaN for
// those without one.
func (c *compiler) hyperJets(k *graph.KernelSpec, a *args, i int, def float64) {
	if c.jet != nil {
		v := c.jetArg(a, i, def)
		c.fellBack(v)
		k.Jets = appendJets(k.Jets, v, len(k.Hyper)-len(k.Jets))
	}
}

// appendJets appends the n jets of v to js, or n NaN constants when v has
// none (or not n).
func appendJets(js []ad.Jet, v jetVal, n int) []ad.Jet {
	if v.why == "" && len(v.j) == n {
		return append(js, v.j...)
	}
	for range n {
		js = append(js, ad.Const(math.NaN()))
	}
	return js
}

// flatJets appends the jets of k's hyperparameters to out in the order
// of the flattened kernel (the leaves' Hyper, depth first). A kernel
// evaluated without differentiating (a param no learned one reaches) is
// constant.
func flatJets(k *graph.KernelSpec, out []ad.Jet) []ad.Jet {
	if k.Kind.Composite() {
		for i := range k.Args {
			out = flatJets(&k.Args[i], out)
		}
		return out
	}
	if k.Jets == nil {
		return append(out, ad.Consts(k.Hyper)...)
	}
	return appendJets(out, jetVal{j: k.Jets}, len(k.Hyper))
}

// LearnTangents are the derivatives at some learned values x of what
// the learned params reach in a model of Gaussian blocks, with their
// values: jets whose gradients G[k] are ∂/∂x_k (LearnFunc.Tangents).
type LearnTangents struct {
	Priors []PriorTangent
	Sites  []SiteTangent
	falls  []jetFall
}

// PriorTangent is the derivative of the prior of latent Latent: its
// mean (n elements), and its variances (normal: n), covariance (mvnormal:
// n×n row-major) or flattened kernel hyperparameters (gp), as the prior
// kind has. A part without derivatives is nil, a hyperparameter without
// one NaN (learning differences those); Why says why, for messages.
type PriorTangent struct {
	Latent                int
	Mean, Var, Cov, Hyper []ad.Jet
	Why                   string
}

// SiteTangent is the derivative of the likelihood parameters of the N
// sites First.. of latent Latent's block (one call): each parameter's
// jets, one shared by the sites or one per site; Why[name], when set,
// says why parameter name has none.
type SiteTangent struct {
	Latent, First, N int
	Params           map[string][]ad.Jet
	Why              map[string]string
}

// Tangents returns the derivatives at learned values x (LearnFunc order)
// of the priors and likelihood parameters the learned params reach, by
// forward-mode AD (see above), for a model of Gaussian blocks (At's
// blocks path); it is an error for another model.
func (f *LearnFunc) Tangents(x []float64) (t *LearnTangents, err error) {
	if f.m.Blocks() == nil {
		return nil, fmt.Errorf("learn: the model is not a set of Gaussian blocks")
	}
	c := f.compiler(true)
	c.jet = &jetState{env: map[string]jetVal{}}
	defer c.catchAbort(&err)
	if err := f.setValues(c, x); err != nil {
		return nil, err
	}
	out := &LearnTangents{}
	rec := f.st.rec
	for _, p := range rec.priors {
		out.Priors = append(out.Priors, c.priorTangent(c.bind(p.call, p.b), p.lat, p.k))
	}
	for i := range rec.sites {
		s := &rec.sites[i]
		c.locals = s.locals
		a := c.bind(s.call, s.b)
		st := SiteTangent{Latent: s.lat, First: s.first, N: s.n, Params: map[string][]ad.Jet{}, Why: map[string]string{}}
		pi := paramIndex(s.b, s.k.Projection())
		for j, p := range s.b.Params {
			if j == pi {
				continue
			}
			v := c.jetArg(a, j, paramDefault(p))
			if v.why != "" {
				st.Why[p.Name] = v.why
				c.fellBack(v)
				continue
			}
			st.Params[p.Name] = v.j
		}
		out.Sites = append(out.Sites, st)
	}
	c.locals, out.falls = nil, c.jet.falls
	return out, nil
}

// priorTangent is the derivative of prior call a of latent lat, of kind k.
func (c *compiler) priorTangent(a *args, lat int, k factor.Kind) PriorTangent {
	n := c.m.Graph.Latents[lat].Size()
	t := PriorTangent{Latent: lat}
	perElement := func(i int) []ad.Jet {
		v := c.jetArg(a, i, 0)
		switch {
		case v.why != "":
			t.Why = v.why
			c.fellBack(v)
		case len(v.j) == 1:
			out := make([]ad.Jet, n)
			for e := range out {
				out[e] = v.j[0]
			}
			return out
		case len(v.j) == n:
			return v.j
		default:
			t.Why = fmt.Sprintf("%s: %d values for %d elements", a.b.Name, len(v.j), n)
		}
		return nil
	}
	switch k.(type) {
	case factor.NormalPrior:
		t.Mean, t.Var = perElement(0), perElement(1)
	case factor.MVNormal:
		t.Mean = perElement(0)
		if v := c.jetArg(a, 1, 0); v.why != "" || len(v.j) != n*n {
			t.Why = v.why
			c.fellBack(v)
			if t.Why == "" {
				t.Why = fmt.Sprintf("mvnormal: %d covariance jets for %d×%d", len(v.j), n, n)
			}
		} else {
			t.Cov = v.j
		}
	case factor.GP:
		kv, _ := a.val(0)
		if kv.k != kKernel {
			t.Why = "gp: the kernel is not a kernel"
			break
		}
		t.Hyper = flatJets(kv.kern, nil)
		t.Mean = make([]ad.Jet, n)
		for i := 1; i < len(a.b.Params); i++ {
			if e := a.expr(i); e != nil && c.readsJet(e) {
				// The inputs (or inducing inputs): differenced, so
				// that learning reports what it cannot change.
				t.Why = fmt.Sprintf("%s: gp's `%s` reads a learned param", c.fset.Position(e.Pos()), a.b.Params[i].Name)
				t.Mean, t.Hyper = nil, appendJets(nil, jetVal{}, len(t.Hyper))
			}
		}
	default:
		t.Why = fmt.Sprintf("a %s prior has no derivative", a.b.Name)
	}
	return t
}

// HasTangents reports whether Tangents differentiates the model: one of
// Gaussian blocks (a factor graph or a typed factor graph is differenced).
func (f *LearnFunc) HasTangents() bool { return f.m.Blocks() != nil }
