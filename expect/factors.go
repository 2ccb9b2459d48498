package expect

import (
	"math"
	"strings"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// relaxation reads b(FACTOR): the relaxation weight of a factor, 0 when the
// result did not relax it. FACTOR is a factor label string ("step(y[4])"),
// a number k (the k-th likelihood site of the model's Gaussian blocks or factor graph, or
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
	if ev.model.Graph != nil {
		for _, f := range ev.model.Factors().LabelledFactors() {
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
	for _, b := range ev.model.Blocks() {
		for _, s := range b.Sites {
			sites = append(sites, s.Label)
		}
	}
	if g := ev.model.FactorGraph; g != nil {
		for i := range g.NumSites() {
			sites = append(sites, g.SiteLabel(i))
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
