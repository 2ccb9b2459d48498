package expect

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// Result accessors of docs/language-decisions.md: bare (logz, iterations,
// converged, status) and called (mean, var, sd, prob, b, pred).
var (
	bareAccessors   = map[string]bool{"logz": true, "iterations": true, "converged": true, "status": true}
	calledAccessors = map[string]bool{"mean": true, "var": true, "sd": true, "prob": true, "b": true, "pred": true}
)

func (ev *evaluator) ident(x *ast.Ident) value {
	if bareAccessors[x.Name] {
		ev.usedCur = true
		return ev.accessor(ev.cur, x, nil, x)
	}
	if v, ok := ev.model.Params[x.Name]; ok {
		return modelValue(x, v)
	}
	if v, ok := ev.model.Data[x.Name]; ok {
		return modelValue(x, v)
	}
	if findResult(ev.results, x.Name) != nil {
		fail(x, "%s is a result label; read it with an accessor, e.g. %s.logz or %s.mean(x[0])", x.Name, x.Name, x.Name)
	}
	fail(x, "unknown name %s%s", x.Name, ev.suggest(x.Name))
	return value{}
}

// suggest proposes the nearest accessor, param, data or label name.
func (ev *evaluator) suggest(name string) string {
	var cands []string
	for n := range bareAccessors {
		cands = append(cands, n)
	}
	for n := range ev.model.Params {
		cands = append(cands, n)
	}
	for n := range ev.model.Data {
		cands = append(cands, n)
	}
	for _, r := range ev.results {
		cands = append(cands, r.Label)
	}
	sort.Strings(cands)
	if s := stdlib.Suggest(name, cands); s != "" {
		return "; did you mean " + s + "?"
	}
	return ""
}

// modelValue turns a param or data value into a number or a flat vector.
func modelValue(n ast.Expr, v compile.Value) value {
	if v.Graph != nil || v.Edges != nil || (v.Str != "" && v.Num == nil) {
		fail(n, "%s is not numeric", ast.ExprString(n))
	}
	if len(v.Shape) == 0 && len(v.Num) == 1 {
		return num(v.Num[0])
	}
	return value{kind: vecVal, vec: v.Num}
}

// indexData evaluates NAME[i, ...] of a param or data array.
func (ev *evaluator) indexData(x *ast.IndexExpr) value {
	id, ok := x.X.(*ast.Ident)
	if !ok {
		fail(x, "only params and data can be indexed here; use mean(%s) for a latent", ast.ExprString(x))
	}
	v, ok := ev.model.Data[id.Name]
	if !ok {
		v, ok = ev.model.Params[id.Name]
	}
	if !ok {
		fail(id, "unknown data %s; latents are read with mean(...), var(...), prob(...)", id.Name)
	}
	k := ev.flatIndex(x, v.Shape)
	return num(v.Num[k])
}

// flatIndex evaluates the indices of x and returns the row-major offset
// into an array of the given shape.
func (ev *evaluator) flatIndex(x *ast.IndexExpr, shape []int) int {
	if len(x.Indices) != len(shape) {
		fail(x, "%s has %d dimension(s), indexed with %d", ast.ExprString(x.X), len(shape), len(x.Indices))
	}
	k := 0
	for d, ie := range x.Indices {
		i := ev.intArg(ie)
		if i < 0 || i >= shape[d] {
			fail(ie, "index %d out of range 0..%d", i, shape[d])
		}
		k = k*shape[d] + i
	}
	return k
}

func (ev *evaluator) intArg(e ast.Expr) int {
	if _, ok := e.(*ast.SliceExpr); ok {
		fail(e, "slices are not allowed in expect; index one element")
	}
	f := ev.wantNum(e, ev.eval(e))
	if f != math.Trunc(f) || math.Abs(f) > 1<<40 {
		fail(e, "index %v is not an integer", f)
	}
	return int(f)
}

func (ev *evaluator) call(x *ast.CallExpr) value {
	switch fun := x.Fun.(type) {
	case *ast.Ident:
		if calledAccessors[fun.Name] {
			ev.usedCur = true
			return ev.accessor(ev.cur, fun, x, x)
		}
		if bareAccessors[fun.Name] {
			fail(x, "%s takes no arguments: write %s", fun.Name, fun.Name)
		}
		return ev.math(fun, x)
	case *ast.SelectorExpr:
		return ev.accessor(ev.resultOf(fun), fun.Sel, x, x)
	}
	fail(x, "cannot call %s", ast.ExprString(x.Fun))
	return value{}
}

// resultOf resolves LABEL in LABEL.accessor.
func (ev *evaluator) resultOf(s *ast.SelectorExpr) *infer.Result {
	id, ok := s.X.(*ast.Ident)
	if !ok {
		fail(s.X, "expected a result label before .%s", s.Sel.Name)
	}
	r := findResult(ev.results, id.Name)
	if r == nil && isInferLabel(ev.model, id.Name) {
		skipNotRun(id, id.Name)
	}
	if r == nil {
		var ls []string
		for _, r := range ev.results {
			ls = append(ls, r.Label)
		}
		msg := ""
		if sg := stdlib.Suggest(id.Name, ls); sg != "" {
			msg = "; did you mean " + sg + "?"
		}
		fail(id, "no result labelled %s (results: %s)%s", id.Name, strings.Join(ls, ", "), msg)
	}
	return r
}

// accessor reads result r: name is the accessor, call its call (nil for a
// bare accessor), n the node errors point at.
func (ev *evaluator) accessor(r *infer.Result, name *ast.Ident, call *ast.CallExpr, n ast.Node) value {
	if bareAccessors[name.Name] {
		if call != nil {
			fail(call, "%s takes no arguments", name.Name)
		}
		return ev.bare(r, name)
	}
	if !calledAccessors[name.Name] {
		fail(name, "unknown accessor %s (accessors: logz, iterations, converged, status, mean, var, sd, prob, b, pred)", name.Name)
	}
	if call == nil {
		fail(n, "%s needs an argument, e.g. %s(x[0])", name.Name, name.Name)
	}
	switch name.Name {
	case "b":
		return ev.relaxation(r, call)
	case "pred":
		return ev.prediction(r, call)
	case "prob":
		return ev.prob(r, call)
	}
	return ev.moment(r, name.Name, call)
}

func (ev *evaluator) bare(r *infer.Result, name *ast.Ident) value {
	switch name.Name {
	case "logz":
		if !r.HasEvidence {
			fail(name, "%s has no log evidence", r.Label)
		}
		return num(r.LogEvidence)
	case "iterations":
		return num(float64(r.Iterations))
	case "converged":
		return boolean(r.Status == infer.Converged || r.Status == infer.Done)
	}
	return value{kind: strVal, s: r.Status.String()}
}

func oneArg(call *ast.CallExpr) ast.Expr {
	if len(call.Args) != 1 || len(call.Named) != 0 {
		fail(call, "%s takes one argument", ast.ExprString(call.Fun))
	}
	return call.Args[0]
}

// varRef splits NAME or NAME[i, ...] into the name and the index node.
func varRef(e ast.Expr) (*ast.Ident, *ast.IndexExpr) {
	switch x := e.(type) {
	case *ast.Ident:
		return x, nil
	case *ast.IndexExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id, x
		}
	}
	fail(e, "expected a latent element such as x[0], got %s", ast.ExprString(e))
	return nil, nil
}

func (ev *evaluator) variable(r *infer.Result, id *ast.Ident) *infer.Variable {
	if v, ok := r.Variables.Find(id.Name); ok {
		return &v
	}
	fail(id, "result %s has no variable %s (it has: %s)", r.Label, id.Name, r.Variables.NameList())
	return nil
}

// moment reads mean, var or sd of a continuous latent element (or the whole
// vector when no index is given).
func (ev *evaluator) moment(r *infer.Result, which string, call *ast.CallExpr) value {
	id, idx := varRef(oneArg(call))
	v := ev.variable(r, id)
	if v.Discrete {
		fail(call, "%s is discrete; use prob(%s)", id.Name, ast.ExprString(call.Args[0]))
	}
	xs := v.Mean
	if which != "mean" {
		xs = v.Var
	}
	pick := func(x float64) float64 {
		if which == "sd" {
			return math.Sqrt(x)
		}
		return x
	}
	if idx == nil {
		if len(v.Shape) == 0 && len(xs) == 1 {
			return num(pick(xs[0]))
		}
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = pick(x)
		}
		return value{kind: vecVal, vec: out}
	}
	k := ev.flatIndex(idx, v.Shape)
	if k >= len(xs) {
		fail(call, "result %s has no %s for %s", r.Label, which, ast.ExprString(idx))
	}
	return num(pick(xs[k]))
}

// prob reads P(x = s) of a discrete element; s defaults to the last state
// (+1, true, K−1) and is matched against the state labels.
func (ev *evaluator) prob(r *infer.Result, call *ast.CallExpr) value {
	if len(call.Args) < 1 || len(call.Args) > 2 || len(call.Named) > 0 {
		fail(call, "prob takes a latent element and optionally a state: prob(x[0]) or prob(x[0], -1)")
	}
	id, idx := varRef(call.Args[0])
	v := ev.variable(r, id)
	if !v.Discrete {
		fail(call, "%s is continuous; use mean(...) or var(...)", id.Name)
	}
	k := 0
	if idx != nil {
		k = ev.flatIndex(idx, v.Shape)
	}
	if k >= len(v.Probs) || len(v.Probs[k]) == 0 {
		fail(call, "result %s has no probabilities for %s", r.Label, ast.ExprString(call.Args[0]))
	}
	p := v.Probs[k]
	s := len(p) - 1
	if len(call.Args) == 2 {
		s = ev.state(v, call.Args[1], len(p))
	}
	return num(p[s])
}

// state finds the index of the state written e: a number or boolean
// matched against the state labels, or a state index when there are none.
func (ev *evaluator) state(v *infer.Variable, e ast.Expr, n int) int {
	want := ev.eval(e)
	for i, lab := range v.States {
		switch want.kind {
		case boolVal:
			if lab == strconv.FormatBool(want.b) {
				return i
			}
		case strVal:
			if lab == want.s {
				return i
			}
		case numVal:
			if f, err := strconv.ParseFloat(lab, 64); err == nil && f == want.num {
				return i
			}
		}
	}
	if len(v.States) == 0 && want.kind == numVal && want.num == math.Trunc(want.num) && want.num >= 0 && int(want.num) < n {
		return int(want.num)
	}
	fail(e, "%s is not a state of %s (states: %s)", want, v.Name, strings.Join(v.States, ", "))
	return 0
}

// prediction reads pred(NAME[i]): p(y = +1) where the likelihood defines
// it, else the predictive latent mean; pred(NAME) is the whole vector, or
// the number of a scalar prediction.
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
	xs := p.Point()
	if idx == nil {
		if len(p.Shape) == 0 && len(xs) == 1 { // a scalar prediction
			return num(xs[0])
		}
		return value{kind: vecVal, vec: xs}
	}
	k := ev.flatIndex(idx, p.Shape)
	if k >= len(xs) {
		fail(call, "prediction %s has %d values", id.Name, len(xs))
	}
	return num(xs[k])
}
