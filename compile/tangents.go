package compile

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib/ad"
)

// The tangents of the one evaluator: while learning differentiates
// (learn_jets.go), a val's numbers and the affine forms of a latent
// expression carry their derivatives in the learned params, computed by
// the operators and builtins (eval.go, call.go, affine.go) with the values.

// tangents are the derivatives in the learned params of a val's numbers:
// one jet per number (row-major), whose value is the number, or, when
// they have none, the place that lost them (lack).
type tangents struct {
	j    []ad.Jet
	lack *jetFall
}

// lost is the tangents of numbers without a derivative, lost at node at.
func lost(at ast.Node, format string, args ...any) *tangents {
	return &tangents{lack: &jetFall{at, fmt.Sprintf(format, args...)}}
}

// fresh is the tangents of n numbers computed elementwise from numbers
// with tangents t, to set: nil when t is (constants), t's lack when it
// has one.
func (t *tangents) fresh(n int) *tangents {
	if t == nil || t.lack != nil {
		return t
	}
	return &tangents{j: make([]ad.Jet, n)}
}

// set sets the jet of number i (a no-op without jets).
func (t *tangents) set(i int, r ad.Jet) {
	if t != nil && t.j != nil {
		t.j[i] = r
	}
}

// pick is the tangents of the numbers at offsets offs.
func (t *tangents) pick(offs []int) *tangents {
	if t == nil || t.lack != nil {
		return t
	}
	out := &tangents{j: make([]ad.Jet, len(offs))}
	for i, o := range offs {
		out.j[i] = t.j[o]
	}
	return out
}

// span is the tangents of the numbers lo..hi−1.
func (t *tangents) span(lo, hi int) *tangents {
	if t == nil || t.lack != nil {
		return t
	}
	return &tangents{j: t.j[lo:hi:hi]}
}

// joined is the tangents of n numbers computed from the numbers of xs
// (some with tangents): the first lack among them, or n jets to set.
func joined(n int, xs ...*val) *tangents {
	for _, x := range xs {
		if t := x.tan(); t != nil && t.lack != nil {
			return t
		}
	}
	return &tangents{j: make([]ad.Jet, n)}
}

// stacked is the tangents of the numbers of elems one after another (a
// list), nil when none has any.
func stacked(elems []val) *tangents {
	var out *tangents
	for i := range elems {
		if t := elems[i].tan(); t != nil {
			if t.lack != nil {
				return t
			}
			out = &tangents{}
		}
	}
	if out != nil {
		for i := range elems {
			out.j = append(out.j, elems[i].jets()...)
		}
	}
	return out
}

// tan is the tangents of v's numbers: nil outside learning, and for
// numbers no learned param reaches (constants).
func (v *val) tan() *tangents {
	if v.src == nil {
		return nil
	}
	return v.src.tan
}

// setTan sets the tangents of v's numbers (srcInfo holds them).
func (v *val) setTan(t *tangents) {
	if t == v.tan() {
		return
	}
	s := srcInfo{tan: t}
	if v.src != nil {
		s = *v.src
		s.tan = t
	}
	v.src = &s
}

// jet is number i of v as a jet: with its tangent, or a constant.
func (v *val) jet(i int) ad.Jet {
	if t := v.tan(); t != nil && t.j != nil {
		return t.j[i]
	}
	return ad.Const(v.num[i])
}

// jets are v's numbers as jets (shared: read only).
func (v *val) jets() []ad.Jet {
	if t := v.tan(); t != nil && t.j != nil {
		return t.j
	}
	return ad.Consts(v.num)
}

// checked is v, the value of e while learning differentiates, with
// tangents that can be trusted: numbers computed from values with
// tangents (some evaluated since the count seen) that have none lost them
// at e — an operation without a derivative (@, a comparison, a data
// builtin); tangents whose values are not the numbers (an operation that
// changed the numbers and kept its operand's tangents) are dropped there
// too.
func (c *compiler) checked(e ast.Expr, v val, seen int) val {
	if v.k == kSym && c.jet.seen != seen {
		c.jet.seen++
		return c.lostForms(e, v, false)
	}
	if v.k != kNum && v.k != kBool {
		return v
	}
	switch t := v.tan(); {
	case t == nil:
		if c.jet.seen == seen {
			return v // a constant
		}
		v.setTan(c.lostAt(e))
	case t.lack == nil && !sameValues(v.num, t.j):
		v.setTan(c.lostAt(e))
	}
	c.jet.seen++
	return v
}

// lostForms is v, a latent expression computed from values with tangents,
// with the tangents of its affine forms lost at e: those of the forms
// that have none, or of all when all is set (an operation that dropped
// some, @ of learned numbers and latents).
func (c *compiler) lostForms(e ast.Node, v val, all bool) val {
	f := v.sym.forms()
	if f == nil {
		return v
	}
	var lack *linJets
	s := *v.sym
	s.aff = func(k int) lin {
		l := f(k)
		if all || l.d == nil {
			if lack == nil {
				lack = &linJets{lack: c.lostAt(e.(ast.Expr)).lack}
			}
			l.d = lack
		}
		return l
	}
	v.sym = &s
	return v
}

// sameValues reports whether the jets' values are the numbers.
func sameValues(num []float64, j []ad.Jet) bool {
	if len(num) != len(j) {
		return false
	}
	for i, x := range num {
		if j[i].V != x && !(math.IsNaN(x) && math.IsNaN(j[i].V)) {
			return false
		}
	}
	return true
}

// lostAt is the lack of the numbers of e, whose operation has no
// derivative in the learned params.
func (c *compiler) lostAt(e ast.Expr) *tangents {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		return lost(e, "`%s` has no derivative in the learned params (operator %s)", c.text(e), e.Op)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok {
			return lost(e, "`%s` has no derivative in the learned params (forward-mode AD covers the math builtins and the losses)", id.Name)
		}
	}
	return lost(e, "`%s` has no derivative in the learned params (forward-mode AD covers + − * / ^, lists and the math builtins)", c.text(e))
}

// linJets are the tangents of an affine form's coefficients (one jet per
// coefficient, in its order) and constant, or the place that lost them.
type linJets struct {
	coefs []ad.Jet
	c     ad.Jet
	lack  *jetFall
}

// constant is the tangents of number i as the constant of a form.
func (t *tangents) constant(i int) *linJets {
	if t.lack != nil {
		return &linJets{lack: t.lack}
	}
	return &linJets{c: t.j[i]}
}

// coefJet is coefficient k of l with its tangents (a constant without).
func (l lin) coefJet(k int) ad.Jet {
	if l.d != nil && l.d.lack == nil {
		return l.d.coefs[k]
	}
	return ad.Const(l.coefs[k])
}

// constJet is l's constant with its tangents.
func (l lin) constJet() ad.Jet {
	if l.d != nil && l.d.lack == nil {
		return l.d.c
	}
	return ad.Const(l.c)
}

// lackOf is the lack of tangents of the first of ls that has one.
func lackOf(ls ...lin) *linJets {
	for _, l := range ls {
		if l.d != nil && l.d.lack != nil {
			return l.d
		}
	}
	return nil
}

// times is s times the coefficients and constant of t.
func (t *linJets) times(s ad.Jet) *linJets {
	if t.lack != nil {
		return t
	}
	out := &linJets{coefs: make([]ad.Jet, len(t.coefs)), c: t.c.Mul(s)}
	for k, u := range t.coefs {
		out.coefs[k] = u.Mul(s)
	}
	return out
}

// recip is the tangents of 1/c for the constant c of a number's form.
func (t *linJets) recip() *linJets {
	if t.lack != nil {
		return t
	}
	return &linJets{c: t.c.Recip()}
}

// timesJets are the tangents of s·a (by) before norm.
func timesJets(a, s lin) *linJets {
	if l := lackOf(a, s); l != nil {
		return l
	}
	sc := s.constJet()
	out := &linJets{coefs: make([]ad.Jet, len(a.coefs)), c: a.constJet().Mul(sc)}
	for k := range a.coefs {
		out.coefs[k] = a.coefJet(k).Mul(sc)
	}
	return out
}

// scaledJet is s·u, u itself when s is 1.
func scaledJet(u ad.Jet, s float64) ad.Jet {
	if s == 1 {
		return u
	}
	return u.Mul(ad.Const(s))
}

// combineJets are the tangents of sa·a + sb·b (combine) before norm.
func combineJets(sa float64, a lin, sb float64, b lin) *linJets {
	if l := lackOf(a, b); l != nil {
		return l
	}
	out := &linJets{coefs: make([]ad.Jet, 0, len(a.coefs)+len(b.coefs))}
	for k := range a.coefs {
		out.coefs = append(out.coefs, scaledJet(a.coefJet(k), sa))
	}
	for k := range b.coefs {
		out.coefs = append(out.coefs, scaledJet(b.coefJet(k), sb))
	}
	out.c = scaledJet(a.constJet(), sa).Add(scaledJet(b.constJet(), sb))
	return out
}

// addJets are the tangents of sum + wk·t (weighted's step, before sum's
// numbers take t's).
func addJets(sum lin, wk float64, t lin) *linJets {
	if l := lackOf(sum, t); l != nil {
		return l
	}
	out := sum.d
	if out == nil {
		out = &linJets{coefs: ad.Consts(sum.coefs), c: ad.Const(sum.c)}
	}
	for k := range t.coefs {
		out.coefs = append(out.coefs, scaledJet(t.coefJet(k), wk))
	}
	out.c = out.c.Add(scaledJet(t.constJet(), wk))
	return out
}

// normJets is norm of a form with tangents: a coefficient's tangents are
// merged and dropped with it.
func (a lin) normJets() lin {
	d := a.d
	if d.lack != nil {
		a.d = nil
		out := a.norm()
		out.d = d
		return out
	}
	out := lin{c: a.c, d: &linJets{c: d.c}}
	at := map[int]int{}
	for k, id := range a.ids {
		if j, ok := at[id]; ok {
			out.coefs[j] += a.coefs[k]
			out.d.coefs[j] = out.d.coefs[j].Add(d.coefs[k])
			continue
		}
		at[id] = len(out.ids)
		out.ids = append(out.ids, id)
		out.coefs = append(out.coefs, a.coefs[k])
		out.d.coefs = append(out.d.coefs, d.coefs[k])
	}
	n := 0
	for k := range out.ids {
		if out.coefs[k] != 0 {
			out.ids[n], out.coefs[n], out.d.coefs[n] = out.ids[k], out.coefs[k], out.d.coefs[k]
			n++
		}
	}
	out.ids, out.coefs, out.d.coefs = out.ids[:n], out.coefs[:n], out.d.coefs[:n]
	return out
}
