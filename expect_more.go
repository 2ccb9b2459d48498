package fg

import (
	"math"
	"strings"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// prediction reads pred(NAME[i]): p(y = +1) where the likelihood defines
// it, else the predictive latent mean; pred(NAME) is the whole vector.
func (ev *evaluator) prediction(r *infer.Result, call *ast.CallExpr) value {
	id, idx := varRef(oneArg(call))
	var p *infer.Prediction
	for i := range r.Predictions {
		if r.Predictions[i].Name == id.Name {
			p = &r.Predictions[i]
		}
	}
	if p == nil {
		fail(id, "result %s has no prediction %s", r.Label, id.Name)
	}
	xs := p.Prob
	if xs == nil {
		xs = p.Mean
	}
	if idx == nil {
		return value{kind: vecVal, vec: xs}
	}
	k := ev.flatIndex(idx, p.Shape)
	if k >= len(xs) {
		fail(call, "prediction %s has %d values", id.Name, len(xs))
	}
	return num(xs[k])
}

// relaxation reads b(FACTOR): the relaxation weight of a factor, 0 when the
// result did not relax it. FACTOR is a factor label string ("step(y[4])"),
// a number k (the k-th likelihood site of the model's Gaussian blocks, or
// the k-th factor of a discrete model), or an expression such as y[4]
// matched against labels of the form kind(y[4]).
func (ev *evaluator) relaxation(r *infer.Result, call *ast.CallExpr) value {
	arg := oneArg(call)
	label := ev.factorLabel(arg)
	for _, x := range r.Relaxation {
		if x.Factor == label {
			return num(x.B)
		}
	}
	return num(0)
}

func (ev *evaluator) factorLabel(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StringLit:
		ev.checkFactor(e, x.Value)
		return x.Value
	case *ast.NumberLit:
		return ev.factorByIndex(x)
	}
	text := ast.ExprString(e)
	var matches []string
	for _, l := range ev.factorLabels() {
		if strings.HasSuffix(l, "("+text+")") {
			matches = append(matches, l)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0]
	case 0:
		fail(e, "no factor on %s; write its label as a string, e.g. b(\"step(y[4])\")", text)
	}
	fail(e, "%s names %d factors (%s); write the label as a string", text, len(matches), strings.Join(matches, ", "))
	return ""
}

// factorLabels lists every factor label the model defines.
func (ev *evaluator) factorLabels() []string {
	var out []string
	if g := ev.model.Graph; g != nil {
		for _, f := range g.Factors {
			out = append(out, f.Label)
		}
	}
	return out
}

// checkFactor rejects a label no factor has (a typo would otherwise read b = 0).
func (ev *evaluator) checkFactor(e ast.Expr, label string) {
	ls := ev.factorLabels()
	if len(ls) == 0 {
		return // no graph to check against
	}
	for _, l := range ls {
		if l == label {
			return
		}
	}
	fail(e, "no factor labelled %q", label)
}

func (ev *evaluator) factorByIndex(x *ast.NumberLit) string {
	k := x.Value
	if k != math.Trunc(k) || k < 0 {
		fail(x, "factor index %s is not a non-negative integer", x.Text)
	}
	var sites []string
	for _, b := range ev.model.Blocks {
		for _, s := range b.Sites {
			sites = append(sites, s.Label)
		}
	}
	if len(sites) == 0 {
		sites = ev.factorLabels()
	}
	if int(k) >= len(sites) {
		fail(x, "factor index %d out of range 0..%d", int(k), len(sites))
	}
	return sites[int(k)]
}

// math evaluates the math builtins of the stdlib registry.
func (ev *evaluator) math(fun *ast.Ident, call *ast.CallExpr) value {
	if len(call.Named) > 0 {
		fail(call.Named[0], "%s takes no named arguments", fun.Name)
	}
	args := make([]value, len(call.Args))
	for i, a := range call.Args {
		args[i] = ev.eval(a)
	}
	if f, ok := elementwise[fun.Name]; ok {
		ev.arity(call, 1, 1)
		return ev.arith(call.Args[0], f, args[0])
	}
	switch fun.Name {
	case "sum":
		ev.arity(call, 1, 1)
		s := 0.0
		for _, x := range ev.asVec(call.Args[0], args[0]) {
			s += x
		}
		return num(s)
	case "dot":
		ev.arity(call, 2, 2)
		a, b := ev.asVec(call.Args[0], args[0]), ev.asVec(call.Args[1], args[1])
		if len(a) != len(b) {
			fail(call, "dot of vectors of lengths %d and %d", len(a), len(b))
		}
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return num(s)
	case "min", "max":
		return ev.minMax(fun.Name, call, args)
	}
	fail(fun, "unknown function %s in expect (math: exp, log, abs, sqrt, sum, dot, min, max; accessors: mean, var, sd, prob, b, pred)", fun.Name)
	return value{}
}

var elementwise = map[string]func(float64) float64{
	"exp": math.Exp, "log": math.Log, "abs": math.Abs, "sqrt": math.Sqrt,
}

func (ev *evaluator) arity(call *ast.CallExpr, lo, hi int) {
	if n := len(call.Args); n < lo || n > hi {
		fail(call, "%s takes %d to %d arguments, got %d", ast.ExprString(call.Fun), lo, hi, n)
	}
}

// minMax is min(x)/max(x) over the elements, or elementwise min(a, b).
func (ev *evaluator) minMax(name string, call *ast.CallExpr, args []value) value {
	ev.arity(call, 1, 2)
	pick := math.Min
	if name == "max" {
		pick = math.Max
	}
	if len(args) == 2 {
		bin := &ast.BinaryExpr{X: call.Args[0], Op: ast.OpAdd, Y: call.Args[1]}
		return ev.arith2With(bin, args[0], args[1], pick)
	}
	xs := ev.asVec(call.Args[0], args[0])
	if len(xs) == 0 {
		fail(call, "%s of an empty vector", name)
	}
	m := xs[0]
	for _, x := range xs[1:] {
		m = pick(m, x)
	}
	return num(m)
}
