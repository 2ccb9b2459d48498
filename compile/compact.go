package compile

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// A latent above maxLatent elements is admitted in one form only: the
// weights of a libsvm plate, `latent w: real[cols(X)] ~ normal(m, v)` with
// m and v numbers, read by the streaming engine (infer/stream) as a whole
// (smaller weights take the same form when the model's text allows it:
// compact_scan.go).
// Such a latent is compact (graph.AddCompactLatent): it has no graph
// variables, its prior is two numbers (Prior.Shared) and no prior factor
// lists its elements, so the only per-weight memory of the run is the
// engine's state and the result — streamWeightBytes a weight, charged
// against the memory budget here, before anything is allocated. Any other
// use of its elements is an error at the use (compactUse); a compact
// latent without a libsvm plate is an error at its declaration
// (checkCompact).

// streamWeightBytes is the memory of one streamed weight from compile to
// results: the engine's natural parameters and means, which become the
// result (the variances are written over the parameters, infer/stream).
// TestLibSVMWideWeights measures 24.03 bytes per weight allocated by Load
// and Run at d = 2²⁶.
const streamWeightBytes = 24

// compactLatent declares the latent of s (d, shape: its type) with more
// than maxLatent elements as a compact latent, or fails at its type.
func (c *compiler) compactLatent(s *ast.LatentStmt, d graph.Domain, shape []int) {
	n := sizeOf(shape)
	call, isCall := s.Prior.(*ast.CallExpr)
	var isNormal bool
	if isCall {
		k, _ := factor.Lookup(call.FunName(), factor.Prior)
		_, isNormal = k.(factor.NormalPrior)
	}
	if d != graph.Real || len(shape) != 1 || !isNormal || c.net != nil {
		c.fail(s.Type, "latent `%s` has %g elements; the limit is %g (above it, only the weights of a libsvm plate, declared with their prior as `latent %s: real[cols(X)] ~ normal(0, 1)`)",
			s.Name.Name, n, float64(maxLatent), s.Name.Name)
	}
	if need, budget := int64(n)*streamWeightBytes, infer.MemoryBudget(); need > budget {
		c.fail(s.Type, "latent `%s` has %g elements: about %s through streaming EP at %d bytes each, more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
			s.Name.Name, n, infer.FormatBytes(need), streamWeightBytes, infer.FormatBytes(budget))
	}
	if msg := c.an.declError(s.Name); msg != "" {
		c.fail(s.Name, "%s", msg)
	}
	lat := c.m.Graph.AddCompactLatent(s.Name.Name, int(n), s.Pos())
	c.declare(s.Name, &binding{kind: bLatent, lat: lat})
	c.priorTried[lat] = true
	b := c.distribution(call)
	a := c.bind(call, b)
	mean, vr := c.sharedParam(a, 0, false), c.sharedParam(a, 1, true)
	c.prior[lat] = &priorDecl{prior: graph.Prior{Kind: factor.NormalPrior{}, Mean: []float64{mean}, Var: []float64{vr}, Shared: true},
		factor: -1, pos: call.Pos()}
}

// sharedParam evaluates parameter i of a compact latent's normal prior: a
// number (positive for the variance), shared by every element.
func (c *compiler) sharedParam(a *args, i int, positive bool) float64 {
	v, _ := a.val(i)
	if v.k != kNum || len(v.shape) != 0 {
		c.fail(a.at(i), "normal: the prior of a latent of more than %g elements is shared by all of them: `%s` must be a number, got %s",
			float64(maxLatent), a.name(i), v.describe())
	}
	c.finite(a.at(i), "normal "+a.name(i), v)
	if positive && !(v.num[0] > 0) {
		c.fail(a.at(i), "normal: `%s` must be > 0, got %s", a.name(i), fmtNum(v.num[0]))
	}
	return v.num[0]
}

// compactUse fails at pos when latent lat is compact: its elements are not
// graph variables, so nothing but its libsvm plate and predict may use it.
func (c *compiler) compactUse(pos ast.Pos, lat int) {
	l := &c.m.Graph.Latents[lat]
	if !l.Compact {
		return
	}
	what := fmt.Sprintf("has %d elements, more than the %g of a latent used element by element", l.Size(), float64(maxLatent))
	if l.Size() <= maxLatent {
		what = "is compiled as streamed weights, without graph variables"
	}
	c.errAt(pos, pos, "latent `%s` %s: it can only be the weights w of a libsvm plate, y[i] ~ probit(dot(X[i], w)), and of predictive(w, Xtest)",
		l.Name, what)
	panic(abort{})
}

// checkCompact reports a compact latent that is not the weights of a
// libsvm plate, at its declaration.
//
// A latent of at most maxLatent elements was made compact by choice
// (streamedWeights): when its plate failed, or the model is a factor graph
// (which refuses libsvm plates), it becomes the ordinary latent it stands
// for, so that the errors are those of the model as written.
func (c *compiler) checkCompact(li int) bool {
	l := &c.m.Graph.Latents[li]
	if !l.Compact || (len(c.streams[li]) > 0 && !c.fg.at.IsValid()) {
		return true
	}
	p, ok := c.prior[li]
	if !ok {
		return false // its prior is in error, reported there
	}
	if l.Size() <= maxLatent {
		c.m.Graph.ExpandCompactLatent(li)
		p.prior = graph.Prior{Kind: factor.NormalPrior{}, Mean: repeat(p.prior.Mean[0], l.Size()), Var: repeat(p.prior.Var[0], l.Size())}
		return true
	}
	c.errAt(l.Pos, l.Pos, "latent `%s` has %d elements; the limit is %g, except for the weights of a libsvm plate (y[i] ~ probit(dot(X[i], %s)) in a model without factor-graph constructs)",
		l.Name, l.Size(), float64(maxLatent), l.Name)
	return false
}

// compactPredict compiles predict NAME = predictive(w, Xtest) for a compact
// latent w (its elements are not graph variables, so it is not evaluated
// as an expression): Xtest must be libsvm data. It reports false when the
// first argument is not a compact latent.
func (c *compiler) compactPredict(s *ast.PredictStmt, a *args) bool {
	id, ok := a.expr(0).(*ast.Ident)
	if !ok {
		return false
	}
	b := c.resolved(id)
	if b == nil || b.poisoned || b.kind != bLatent || b.lat >= len(c.m.Graph.Latents) || !c.m.Graph.Latents[b.lat].Compact {
		return false
	}
	bi := c.blockOf(b.lat)
	if bi < 0 {
		panic(abort{}) // its declaration is in error (checkCompact)
	}
	xv, _ := a.val(1)
	if xv.k != kSparse {
		c.fail(a.at(1), "predictive(%s, Xtest): `%s` is the weights of a libsvm plate; Xtest is libsvm(path), got %s", id.Name, id.Name, xv.describe())
	}
	c.sparsePredict(s, a, bi, xv)
	return true
}

// repeat returns n copies of x.
func repeat(x float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}
