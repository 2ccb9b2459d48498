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
)

// Exact derivatives of what learning differentiates.
//
// Learning needs, at learned values x, the derivative in every x_k of the
// numbers the learned params reach: kernel hyperparameters, prior means,
// variances and covariances, and likelihood parameters (step's eps,
// normal's var). LearnFunc.Tangents computes them by forward-mode
// automatic differentiation in compile's one evaluator (eval): the
// learned params are the independent variables of stdlib/ad jets (x_k is
// ad.Var(k, len(x), x_k), a vector jet whose gradient is e_k, seeded by
// setValues), and every number val computed from them carries its jets
// (val.tan), which the operators and builtins compute in the same code
// that computes the numbers: + − * / ^ with scalar broadcasting, unary
// minus, lists, indexing, the math builtins (exp, log, abs, sqrt, sum,
// dot, min, max), the losses and the named forms of a variance (sd =,
// precision =, stdlib.Form.CanonicalJet). Kernel builtins record the jets
// of their hyperparameters in the KernelSpec they build (kernelCall,
// kernelArith), in the order of its Hyper. The affine forms of a latent
// expression (lin) carry the tangents of their coefficients and constant
// (lin.d) through + −, products and quotients by numbers, sum and
// indexing, so that a conditional's mean a·x[t − 1] + d has them too.
// Outside learning no val or form has tangents and eval does no more than
// compute numbers.
//
// Anything else that reads a learned param (@, a data builtin, a
// comparison) computes its numbers without tangents; checked marks them
// as having none there (tangents.lack), the mark travels with what is
// computed from them, and learning differences the quantity it reaches
// alone (infer/run's learnBuilder.derivs), with a compile warning at the
// place (learnWarnings).

// jetState is the forward-mode state of a compilation that differentiates
// (LearnFunc.Tangents): the params that carry tangents (the learned ones
// and those computed from them, learnRec.deps), the count of values
// evaluated with tangents so far (checked), and the places whose numbers
// got no derivative (learnWarnings shows them).
type jetState struct {
	deps  map[string]bool
	seen  int
	falls []jetFall
}

// jetFall is a place whose numbers have no exact derivative, and why:
// learning takes their central differences.
type jetFall struct {
	at  ast.Node
	msg string
}

// fellBack notes that the numbers of t, which has no jets, are
// differenced (a no-op when t has jets).
func (c *compiler) fellBack(t tangents) {
	if t.lack != nil {
		c.jet.falls = append(c.jet.falls, *t.lack)
	}
}

// fellAt notes that the numbers at node at are differenced, and why.
func (c *compiler) fellAt(at ast.Node, format string, args ...any) {
	c.jet.falls = append(c.jet.falls, jetFall{at, fmt.Sprintf(format, args...)})
}

// readsJet reports whether e names a param that has tangents (a learned
// param or one computed from them) where it is evaluated.
func (c *compiler) readsJet(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && !found {
			if b := c.resolved(id); b != nil && b.kind == bParam {
				found = c.jet.deps[id.Name]
			}
		}
		return !found
	})
	return found
}

// tangentsOf is the tangents of v, the value of e, as a consumer of
// numbers reads them: constants when no learned param reaches it.
func (c *compiler) tangentsOf(e ast.Expr, v val) tangents {
	switch {
	case v.k != kNum && v.k != kBool:
		return *lost(e, "`%s` is a %s, not numbers", c.text(e), v.describe())
	case v.tan() == nil:
		return tangents{j: ad.Consts(v.num)}
	}
	return *v.tan()
}

// argTangents are the tangents of parameter i of a call in its canonical
// form (def when omitted).
func (c *compiler) argTangents(a *args, i int, def float64) tangents {
	v, ok := a.val(i)
	if !ok {
		return tangents{j: []ad.Jet{ad.Const(def)}}
	}
	return c.tangentsOf(a.expr(i), v)
}

// paramDefault is builtin parameter p's default value (0 without one).
func paramDefault(p stdlib.Param) float64 {
	def, _ := strconv.ParseFloat(p.Default, 64)
	return def
}

// hyperJets notes, when differentiating, the jets of the hyperparameters
// argument i of a (def when omitted) just appended to k.Hyper: NaN for
// those without one.
func (c *compiler) hyperJets(k *graph.KernelSpec, a *args, i int, def float64) {
	if c.jet != nil {
		t := c.argTangents(a, i, def)
		c.fellBack(t)
		k.Jets = appendJets(k.Jets, t, len(k.Hyper)-len(k.Jets))
	}
}

// appendJets appends the n jets of t to js, or n NaN constants when t has
// none (or not n).
func appendJets(js []ad.Jet, t tangents, n int) []ad.Jet {
	if t.lack == nil && len(t.j) == n {
		return append(js, t.j...)
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
	return appendJets(out, tangents{j: k.Jets}, len(k.Hyper))
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
// one NaN: learning differences those (and the compile warning says
// where, learnWarnings).
type PriorTangent struct {
	Latent                int
	Mean, Var, Cov, Hyper []ad.Jet
}

// SiteTangent is the derivative of the likelihood parameters of the N
// sites First.. of latent Latent's block (one call): each parameter's
// jets, one shared by the sites or one per site; a parameter without
// derivatives is missing.
type SiteTangent struct {
	Latent, First, N int
	Params           map[string][]ad.Jet
}

// differentiating is a compiler that evaluates f's model again with the
// tangents of the learned params (check: without Gram matrices); setValues
// seeds them.
func (f *LearnFunc) differentiating(check bool) *compiler {
	c := f.compiler(check)
	c.jet = &jetState{deps: f.st.rec.deps}
	return c
}

// Tangents returns the derivatives at learned values x (LearnFunc order)
// of the priors and likelihood parameters the learned params reach, by
// forward-mode AD (see above), for a model of Gaussian blocks (At's
// blocks path); it is an error for another model.
func (f *LearnFunc) Tangents(x []float64) (t *LearnTangents, err error) {
	if f.m.Blocks() == nil {
		return nil, fmt.Errorf("learn: the model is not a set of Gaussian blocks")
	}
	c := f.differentiating(true)
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
		st := SiteTangent{Latent: s.lat, First: s.first, N: s.n, Params: map[string][]ad.Jet{}}
		pi := paramIndex(s.b, s.k.Projection())
		for j, p := range s.b.Params {
			if j == pi {
				continue
			}
			v := c.argTangents(a, j, paramDefault(p))
			if v.lack != nil {
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
		v := c.argTangents(a, i, 0)
		switch {
		case v.lack != nil:
			c.fellBack(v)
		case len(v.j) == 1:
			out := make([]ad.Jet, n)
			for e := range out {
				out[e] = v.j[0]
			}
			return out
		case len(v.j) == n:
			return v.j
		}
		return nil
	}
	switch k.(type) {
	case factor.NormalPrior:
		t.Mean, t.Var = perElement(0), perElement(1)
	case factor.MVNormal:
		t.Mean = perElement(0)
		if v := c.argTangents(a, 1, 0); v.lack == nil && len(v.j) == n*n {
			t.Cov = v.j
		} else {
			c.fellBack(v)
		}
	case factor.GP:
		kv, _ := a.val(0)
		if kv.k != kKernel {
			break
		}
		t.Hyper = flatJets(kv.kern, nil)
		t.Mean = make([]ad.Jet, n)
		for i := 1; i < len(a.b.Params); i++ {
			if e := a.expr(i); e != nil && c.readsJet(e) {
				// The inputs (or inducing inputs): differenced, so
				// that learning reports what it cannot change.
				t.Mean, t.Hyper = nil, appendJets(nil, tangents{}, len(t.Hyper))
			}
		}
	}
	return t
}

// HasTangents reports whether Tangents differentiates the model: one of
// Gaussian blocks (a factor graph or a typed factor graph is differenced).
func (f *LearnFunc) HasTangents() bool { return f.m.Blocks() != nil }
