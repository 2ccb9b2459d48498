// Package expect evaluates fg's `expect` statements against inference
// results: the result accessors (mean, var, prob, logz, b, pred, ...),
// arithmetic and math builtins, comparisons and and/or/not, with errors at
// the position of the offending sub-expression. `fg test`, `fg run --check`,
// the REPL, fgtest and the fg package's Results.Expects use it.
//
// A comparison with a NaN operand fails the expectation (docs/language.md):
// an expectation involving NaN never passes.
package expect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// Result is the outcome of one `expect` statement evaluated against
// one result.
type Result struct {
	Pos    ast.Position // position of the expect statement
	Source string       // the condition as written (normalised spacing)
	// Label is the result the unqualified accessors (mean, logz, ...) read;
	// "" when the condition reads none and was evaluated once.
	Label string
	Pass  bool
	// Skipped is set when the expect reads a result of the model that this
	// run did not produce (`fg run --only`, `:run LABEL`); Pass is then false
	// but the expectation counts as neither passed nor failed.
	Skipped bool
	// Observed lists the value of every compared side that is not a
	// literal, e.g. "abs(mean(w[0]) - exact.mean(w[0])) = 0.0312".
	Observed string
	// Err is why the condition could not be evaluated (unknown name, index
	// out of range, a result without that variable, ...); Pass is then false.
	Err error
}

// String renders "PASS pos: expect SOURCE [for LABEL] (observed)" or FAIL.
func (r Result) String() string {
	verdict := "PASS"
	switch {
	case r.Skipped:
		verdict = "SKIP"
	case !r.Pass:
		verdict = "FAIL"
	}
	s := fmt.Sprintf("%s %s: expect %s", verdict, r.Pos, r.Source)
	if r.Label != "" {
		s += " [" + r.Label + "]"
	}
	switch {
	case r.Err != nil:
		s += ": " + r.Err.Error()
	case r.Observed != "":
		s += " (" + r.Observed + ")"
	}
	return s
}

// Eval evaluates the model's expect statements against results. An
// expect with `for LABEL` is evaluated against that result only; one
// without is evaluated against every result, or once when it reads no
// unqualified accessor (e.g. it only compares exact.mean(...) to a number).
func Eval(m *compile.Model, rs []*infer.Result) []Result {
	var out []Result
	for _, spec := range m.Expects {
		out = append(out, evalSpec(m, rs, spec)...)
	}
	return out
}

func evalSpec(m *compile.Model, rs []*infer.Result, spec *compile.ExpectSpec) []Result {
	base := Result{Pos: m.Fset.Position(spec.Pos), Source: ast.ExprString(spec.Expr)}
	if spec.For != "" {
		r := findResult(rs, spec.For)
		if r == nil {
			base.Label = spec.For
			if isInferLabel(m, spec.For) {
				base.Skipped, base.Err = true, fmt.Errorf("result %s was not run", spec.For)
				return []Result{base}
			}
			base.Err = fmt.Errorf("no result labelled %q (results: %s)", spec.For, labels(rs))
			return []Result{base}
		}
		return []Result{evalOne(m, rs, r, spec.Expr, base).Result}
	}
	if len(rs) == 0 {
		base.Err = fmt.Errorf("no results to check (the model has no infer line)")
		return []Result{base}
	}
	var out []Result
	for i, r := range rs {
		er := evalOne(m, rs, r, spec.Expr, base)
		if i == 0 && !er.readsCurrent {
			er.Label = ""
			return []Result{er.Result}
		}
		out = append(out, er.Result)
	}
	return out
}

// evalResult is an Result plus whether the evaluation read the
// current result.
type evalResult struct {
	Result
	readsCurrent bool
}

func evalOne(m *compile.Model, rs []*infer.Result, cur *infer.Result, e ast.Expr, base Result) evalResult {
	ev := newEvaluator(m, rs, cur)
	res := evalResult{Result: base}
	res.Label = cur.Label
	v, err := ev.safeEval(e)
	res.readsCurrent = ev.usedCur
	res.Observed = strings.Join(ev.observed, "; ")
	switch {
	case err != nil:
		res.Err = err
		var nr errNotRun
		res.Skipped = errors.As(err, &nr)
	case v.kind != boolVal:
		res.Err = ev.errorAt(e, "expect needs a condition (true/false), got "+v.kindName())
	default:
		res.Pass = v.b
	}
	return res
}

func findResult(rs []*infer.Result, label string) *infer.Result {
	for _, r := range rs {
		if r.Label == label {
			return r
		}
	}
	return nil
}

func labels(rs []*infer.Result) string {
	if len(rs) == 0 {
		return "none"
	}
	var ls []string
	for _, r := range rs {
		ls = append(ls, strconv.Quote(r.Label))
	}
	return strings.Join(ls, ", ")
}

// Value is an expression evaluated against one result (Label is "" when
// the expression reads no unqualified accessor).
type Value struct {
	Label string
	Value string // the value as text: a number, true/false, a quoted string or a vector
	Err   error
}

// EvalExpr evaluates an expression in the language of expect statements
// (e.g. `mean(w[0])`, `ep.logz - mcmc.logz`, `prob(x[3]) > 0.5`) against
// every result, or once when it reads no unqualified accessor. fset holds
// x's positions (x is not the model's). The REPL prints these for
// expressions typed at the prompt.
func EvalExpr(m *compile.Model, rs []*infer.Result, fset *ast.FileSet, x ast.Expr) []Value {
	if len(rs) == 0 {
		return []Value{{Err: fmt.Errorf("no results (run the model first)")}}
	}
	var out []Value
	for i, cur := range rs {
		ev := newEvaluator(m, rs, cur)
		ev.fset = fset
		v, err := ev.safeEval(x)
		val := Value{Label: cur.Label, Err: err}
		if err == nil {
			val.Value = v.String()
		}
		if i == 0 && !ev.usedCur {
			val.Label = ""
			return []Value{val}
		}
		out = append(out, val)
	}
	return out
}

// Failed reports whether any expect result failed (a skipped one does not).
func Failed(es []Result) bool {
	for _, e := range es {
		if !e.Pass && !e.Skipped {
			return true
		}
	}
	return false
}
