package expect

import (
	"math"

	"github.com/fg-infer/fg/lang/ast"
)

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
