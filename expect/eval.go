package expect

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// valKind is the type of an expect value.
type valKind int

const (
	numVal valKind = iota
	vecVal
	boolVal
	strVal
)

// value is what an expect sub-expression evaluates to: a number, a vector
// (a whole variable's means, say), a boolean or a string (status).
type value struct {
	kind valKind
	num  float64
	vec  []float64
	b    bool
	s    string
}

func (v value) kindName() string {
	return [...]string{"a number", "a vector", "a boolean", "a string"}[v.kind]
}

func (v value) String() string {
	switch v.kind {
	case vecVal:
		return fmt.Sprint(v.vec)
	case boolVal:
		return strconv.FormatBool(v.b)
	case strVal:
		return strconv.Quote(v.s)
	}
	return strconv.FormatFloat(v.num, 'g', 6, 64)
}

func num(x float64) value  { return value{kind: numVal, num: x} }
func boolean(b bool) value { return value{kind: boolVal, b: b} }

// evaluator evaluates one expect condition against a current result.
type evaluator struct {
	model    *compile.Model
	fset     *ast.FileSet // the positions of the expression evaluated
	results  []*infer.Result
	cur      *infer.Result
	usedCur  bool
	observed []string
}

func newEvaluator(m *compile.Model, rs []*infer.Result, cur *infer.Result) *evaluator {
	return &evaluator{model: m, fset: m.Fset, results: rs, cur: cur}
}

// failure carries an error at a node through the recursive evaluation.
type failure struct {
	at   ast.Node
	msg  string
	skip bool // the expect reads a result this run did not produce
}

// skipNotRun aborts the evaluation because it reads the result labelled
// label, an infer line of the model that this run did not execute.
func skipNotRun(n ast.Node, label string) {
	panic(failure{at: n, msg: fmt.Sprintf("result %s was not run", label), skip: true})
}

// fail aborts the evaluation with an error at node n.
func fail(n ast.Node, format string, args ...any) {
	panic(failure{at: n, msg: fmt.Sprintf(format, args...)})
}

// errorAt is an error spanning node n.
func (ev *evaluator) errorAt(n ast.Node, msg string) *ast.Error {
	return &ast.Error{Pos: ev.fset.Position(n.Pos()), End: ev.fset.Position(n.End()), Msg: msg}
}

// safeEval evaluates e, turning the evaluator's internal panics into an
// error; other panics propagate (they are bugs).
func (ev *evaluator) safeEval(e ast.Expr) (v value, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, ok := p.(failure)
			if !ok {
				panic(p)
			}
			e := ev.errorAt(f.at, f.msg)
			err = e
			if f.skip {
				err = errNotRun{e}
			}
		}
	}()
	return ev.eval(e), nil
}

func (ev *evaluator) eval(e ast.Expr) value {
	switch x := e.(type) {
	case *ast.NumberLit:
		return num(x.Value)
	case *ast.BoolLit:
		return boolean(x.Value)
	case *ast.StringLit:
		return value{kind: strVal, s: x.Value}
	case *ast.ParenExpr:
		return ev.eval(x.X)
	case *ast.UnaryExpr:
		return ev.unary(x)
	case *ast.BinaryExpr:
		return ev.binary(x)
	case *ast.Ident:
		return ev.ident(x)
	case *ast.CallExpr:
		return ev.call(x)
	case *ast.SelectorExpr:
		return ev.accessor(ev.resultOf(x), x.Sel, nil, x)
	case *ast.IndexExpr:
		return ev.indexData(x)
	case *ast.ListLit:
		return ev.list(x)
	}
	fail(e, "%s is not allowed in expect", ast.ExprString(e))
	return value{}
}

func (ev *evaluator) unary(x *ast.UnaryExpr) value {
	v := ev.eval(x.X)
	if x.Op == ast.OpNot {
		return boolean(!ev.wantBool(x.X, v))
	}
	return ev.arith(x, func(a float64) float64 { return -a }, v)
}

func (ev *evaluator) wantBool(n ast.Expr, v value) bool {
	if v.kind != boolVal {
		fail(n, "%s is %s, want a boolean", ast.ExprString(n), v.kindName())
	}
	return v.b
}

func (ev *evaluator) wantNum(n ast.Expr, v value) float64 {
	if v.kind != numVal {
		fail(n, "%s is %s, want a number", ast.ExprString(n), v.kindName())
	}
	return v.num
}

// arith applies f elementwise to a number or a vector.
func (ev *evaluator) arith(n ast.Expr, f func(float64) float64, v value) value {
	switch v.kind {
	case numVal:
		return num(f(v.num))
	case vecVal:
		out := make([]float64, len(v.vec))
		for i, a := range v.vec {
			out[i] = f(a)
		}
		return value{kind: vecVal, vec: out}
	}
	fail(n, "%s is %s, want a number", ast.ExprString(n), v.kindName())
	return value{}
}

func (ev *evaluator) binary(x *ast.BinaryExpr) value {
	switch x.Op {
	case ast.OpAnd:
		return boolean(ev.wantBool(x.X, ev.eval(x.X)) && ev.wantBool(x.Y, ev.eval(x.Y)))
	case ast.OpOr:
		return boolean(ev.wantBool(x.X, ev.eval(x.X)) || ev.wantBool(x.Y, ev.eval(x.Y)))
	}
	a, b := ev.eval(x.X), ev.eval(x.Y)
	if x.Op.IsComparison() {
		return ev.compare(x, a, b)
	}
	return ev.arith2(x, a, b)
}

// arith2 applies + - * / ^ to numbers, or elementwise to equal-length
// vectors and vector–number pairs.
func (ev *evaluator) arith2(x *ast.BinaryExpr, a, b value) value {
	f := binaryOps[x.Op]
	if f == nil {
		fail(x, "operator %s is not allowed in expect", x.Op)
	}
	return ev.arith2With(x, a, b, f)
}

// arith2With combines two numbers, or two vectors elementwise (a length-1
// side broadcasts), with f.
func (ev *evaluator) arith2With(x *ast.BinaryExpr, a, b value, f func(a, b float64) float64) value {
	if a.kind == numVal && b.kind == numVal {
		return num(f(a.num, b.num))
	}
	av, bv := ev.asVec(x.X, a), ev.asVec(x.Y, b)
	n := max(len(av), len(bv))
	if (len(av) != n && len(av) != 1) || (len(bv) != n && len(bv) != 1) {
		fail(x, "length mismatch: %d and %d elements", len(av), len(bv))
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = f(av[min(i, len(av)-1)], bv[min(i, len(bv)-1)])
	}
	return value{kind: vecVal, vec: out}
}

var binaryOps = map[ast.Op]func(a, b float64) float64{
	ast.OpAdd: func(a, b float64) float64 { return a + b },
	ast.OpSub: func(a, b float64) float64 { return a - b },
	ast.OpMul: func(a, b float64) float64 { return a * b },
	ast.OpDiv: func(a, b float64) float64 { return a / b },
	ast.OpPow: math.Pow,
}

func (ev *evaluator) asVec(n ast.Expr, v value) []float64 {
	switch v.kind {
	case numVal:
		return []float64{v.num}
	case vecVal:
		return v.vec
	}
	fail(n, "%s is %s, want a number or vector", ast.ExprString(n), v.kindName())
	return nil
}

// compare evaluates a comparison and records the observed values of its
// non-literal sides. A NaN operand makes the whole expectation fail, with a
// message naming the side that is NaN, whatever the operator: IEEE 754
// makes NaN != NaN true, so `expect x != y` would otherwise pass on a
// failed computation, and `not (x < y)` would pass too.
func (ev *evaluator) compare(x *ast.BinaryExpr, a, b value) value {
	ev.observe(x.X, a)
	ev.observe(x.Y, b)
	if a.kind == numVal && b.kind == numVal {
		ev.notNaN(x.X, a.num)
		ev.notNaN(x.Y, b.num)
		return boolean(cmpNum(x.Op, a.num, b.num))
	}
	if a.kind != b.kind || a.kind == vecVal {
		fail(x, "cannot compare %s with %s", a.kindName(), b.kindName())
	}
	var eq bool
	switch a.kind {
	case boolVal:
		eq = a.b == b.b
	case strVal:
		eq = a.s == b.s
	}
	switch x.Op {
	case ast.OpEq:
		return boolean(eq)
	case ast.OpNe:
		return boolean(!eq)
	}
	fail(x, "%s is not defined for %s", x.Op, a.kindName())
	return value{}
}

// notNaN fails the expectation at e when its value v is NaN.
func (ev *evaluator) notNaN(e ast.Expr, v float64) {
	if math.IsNaN(v) {
		fail(e, "`%s` is NaN; an expectation that compares NaN never passes", ast.ExprString(e))
	}
}

func cmpNum(op ast.Op, a, b float64) bool {
	switch op {
	case ast.OpEq:
		return a == b
	case ast.OpNe:
		return a != b
	case ast.OpLt:
		return a < b
	case ast.OpLe:
		return a <= b
	case ast.OpGt:
		return a > b
	}
	return a >= b
}

func (ev *evaluator) observe(e ast.Expr, v value) {
	switch e.(type) {
	case *ast.NumberLit, *ast.StringLit, *ast.BoolLit:
		return
	}
	if u, ok := e.(*ast.UnaryExpr); ok {
		if _, lit := u.X.(*ast.NumberLit); lit {
			return
		}
	}
	ev.observed = append(ev.observed, ast.ExprString(e)+" = "+v.String())
}

func (ev *evaluator) list(x *ast.ListLit) value {
	out := make([]float64, len(x.Elems))
	for i, e := range x.Elems {
		out[i] = ev.wantNum(e, ev.eval(e))
	}
	return value{kind: vecVal, vec: out}
}

// errNotRun marks an expectation that reads a result the run did not
// produce (e.g. `fg run --only`); it is skipped, neither passed nor failed.
type errNotRun struct{ e *ast.Error }

func (e errNotRun) Error() string { return e.e.Error() }

// isInferLabel reports whether label names one of the model's infer lines
// (those compile.Options.Only skipped included).
func isInferLabel(m *compile.Model, label string) bool {
	return slices.Contains(m.InferLabels(), label)
}
