package compile

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
	"github.com/fg-infer/fg/stdlib/ad"
	"github.com/fg-infer/fg/stdlib/loss"
)

// args are a call's arguments bound to a builtin's parameters.
type args struct {
	c     *compiler
	call  *ast.CallExpr
	b     *stdlib.Builtin
	idx   []int
	extra []int
	forms []*stdlib.Form // per parameter: the named form it was given in, or nil
}

// bind matches call's arguments to builtin b. The binding of a call is
// made once: a plate's statement binds the same call at every iteration
// (args are read only).
func (c *compiler) bind(call *ast.CallExpr, b *stdlib.Builtin) *args {
	if a := c.bound[call]; a != nil && a.b == b {
		return a
	}
	names := make([]string, len(call.Named))
	for i, n := range call.Named {
		names[i] = n.Name.Name
	}
	idx, extra, err := stdlib.Bind(b, len(call.Args), names)
	if err != nil {
		c.fail(call, "%v", err)
	}
	a := &args{c: c, call: call, b: b, idx: idx, extra: extra, forms: make([]*stdlib.Form, len(idx))}
	for i, k := range idx {
		if k >= len(call.Args) {
			a.forms[i] = b.Params[i].Form(names[k-len(call.Args)])
		}
	}
	if c.bound == nil {
		c.bound = map[*ast.CallExpr]*args{}
	}
	c.bound[call] = a
	return a
}

// expr returns the expression bound to parameter i, or nil if omitted.
func (a *args) expr(i int) ast.Expr {
	k := a.idx[i]
	switch {
	case k < 0:
		return nil
	case k < len(a.call.Args):
		return a.call.Args[k]
	}
	return a.call.Named[k-len(a.call.Args)].Value
}

// at is the node to blame for parameter i (the call when omitted).
func (a *args) at(i int) ast.Node {
	if e := a.expr(i); e != nil {
		return e
	}
	return a.call
}

// form is the named form parameter i was given in (`sd =` for normal's
// `var`), or nil for the canonical form.
func (a *args) form(i int) *stdlib.Form {
	if a.idx[i] < 0 {
		return nil
	}
	return a.forms[i]
}

// name is parameter i's name as the call gave it (`sd` for normal's `var`
// given as `sd = 2`), for messages.
func (a *args) name(i int) string {
	if f := a.form(i); f != nil {
		return f.Name
	}
	return a.b.Params[i].Name
}

// val evaluates parameter i in its canonical form: a value given in a
// named form (`sd = 2`) is converted elementwise (to the variance 4).
func (a *args) val(i int) (val, bool) {
	e := a.expr(i)
	if e == nil {
		return val{}, false
	}
	v := a.c.eval(e)
	if f := a.form(i); f != nil {
		v = a.canonical(i, f, v)
	}
	return v, true
}

// canonical converts v, parameter i given in form f, by stdlib's
// Form.Canonical: numbers only, each finite and > 0.
func (a *args) canonical(i int, f *stdlib.Form, v val) val {
	if v.k != kNum {
		a.c.fail(a.at(i), "%s: `%s =` takes a number or a vector of numbers, got %s", a.b.Name, f.Name, v.describe())
	}
	out := v
	out.num = make([]float64, len(v.num))
	t := v.tan().fresh(len(v.num))
	out.setTan(t)
	for k, x := range v.num {
		y, err := f.Canonical(x)
		if err != nil {
			a.c.fail(a.at(i), "%s: %v", a.b.Name, err)
		}
		out.num[k] = y
		if t != nil && t.j != nil {
			t.j[k] = f.CanonicalJet(v.tan().j[k])
		}
	}
	return out
}

// num returns parameter i as a finite scalar, or def when omitted.
func (a *args) num(i int, def float64) float64 {
	v, ok := a.val(i)
	if !ok {
		return def
	}
	if !v.isScalar() || v.k != kNum {
		a.c.fail(a.at(i), "%s: `%s` must be a number, got %s", a.b.Name, a.name(i), v.describe())
	}
	if math.IsNaN(v.num[0]) || math.IsInf(v.num[0], 0) {
		a.c.fail(a.at(i), "%s: `%s` is %v", a.b.Name, a.name(i), v.num[0])
	}
	return v.num[0]
}

// positive returns parameter i, requiring > 0.
func (a *args) positive(i int, def float64) float64 {
	x := a.num(i, def)
	a.c.notePositive(a.expr(i))
	if !(x > 0) {
		a.c.fail(a.at(i), "%s: `%s` must be > 0, got %s", a.b.Name, a.name(i), fmtNum(x))
	}
	return x
}

func (a *args) integer(i int, def int) int {
	v, ok := a.val(i)
	if !ok {
		return def
	}
	return a.c.intOf(a.at(i), v, a.b.Name+": `"+a.name(i)+"`")
}

func (a *args) boolean(i int, def bool) bool {
	v, ok := a.val(i)
	if !ok {
		return def
	}
	if v.k != kBool {
		a.c.fail(a.at(i), "%s: `%s` must be true or false, got %s", a.b.Name, a.name(i), v.describe())
	}
	return v.num[0] != 0
}

func (a *args) str(i int, def string) string {
	v, ok := a.val(i)
	if !ok {
		return def
	}
	if v.k != kStr {
		a.c.fail(a.at(i), "%s: `%s` must be a string, got %s", a.b.Name, a.name(i), v.describe())
	}
	return v.str
}

func (a *args) strs(i int) []string {
	v, ok := a.val(i)
	if !ok {
		return nil
	}
	switch {
	case v.k == kStr:
		return []string{v.str}
	case v.k == kList:
		return v.strs
	case v.k == kNum && len(v.num) == 0:
		return nil
	}
	a.c.fail(a.at(i), "%s: `%s` must be a list of strings, got %s", a.b.Name, a.name(i), v.describe())
	return nil
}

// call evaluates a call of a math, loss, data or kernel builtin.
func (c *compiler) call(e *ast.CallExpr) val {
	id, ok := e.Fun.(*ast.Ident)
	if !ok {
		c.fail(e.Fun, "`%s` is not a function", c.text(e.Fun))
	}
	name := id.Name
	if b := c.resolved(id); b != nil {
		c.fail(e.Fun, "`%s` is a %s, not a function", name, bindNames[b.kind])
	}
	for _, k := range []stdlib.Kind{stdlib.Math, stdlib.Loss, stdlib.Data, stdlib.Kernel} {
		if b, ok := stdlib.Lookup(k, name); ok {
			a := c.bind(e, b)
			switch k {
			case stdlib.Math:
				return c.mathCall(a)
			case stdlib.Loss:
				return c.lossCall(a)
			case stdlib.Data:
				return c.dataCall(a)
			}
			return c.kernelCall(a)
		}
	}
	if bs := stdlib.LookupAny(name); len(bs) > 0 {
		c.fail(e.Fun, "%s", misuse(bs[0]))
	}
	var cands []string
	for _, k := range []stdlib.Kind{stdlib.Math, stdlib.Loss, stdlib.Data, stdlib.Kernel, stdlib.Distribution, stdlib.Potential} {
		cands = append(cands, stdlib.Names(k)...)
	}
	msg := fmt.Sprintf("unknown function `%s`", name)
	msg += didYouMean(name, cands)
	c.fail(e.Fun, "%s", msg)
	return val{}
}

// misuse explains where a builtin of another kind belongs.
func misuse(b *stdlib.Builtin) string {
	switch b.Kind {
	case stdlib.Distribution:
		return fmt.Sprintf("`%s` is a distribution: use it on the right of ~, e.g. y ~ %s", b.Name, b.Signature())
	case stdlib.Potential:
		return fmt.Sprintf("`%s` is a potential: use it in a factor statement, factor %s", b.Name, b.Signature())
	case stdlib.Plate:
		return fmt.Sprintf("`%s` is a plate range: use it in a for statement, for b in %s", b.Name, b.Signature())
	case stdlib.Predict:
		return fmt.Sprintf("`%s` is only allowed in a predict statement", b.Name)
	case stdlib.Accessor:
		return fmt.Sprintf("`%s` reads a result and is only allowed in expect statements", b.Name)
	}
	return fmt.Sprintf("`%s` is a %s and is only allowed in infer options", b.Name, b.Kind)
}

func (c *compiler) mathCall(a *args) val {
	x, _ := a.val(0)
	if a.b.Name != "sum" && a.b.Name != "dot" {
		c.needAffineArg(a.call, x)
	}
	if f, ok := unaryMath[a.b.Name]; ok {
		return c.map1(a.at(0), x, f, nil)
	}
	switch a.b.Name {
	case "sum":
		return c.reduce(a.at(0), x, ad.Sum, true)
	case "dot":
		y, _ := a.val(1)
		return c.dotVals(a.call, x, y)
	case "min", "max":
		f := ad.Min
		if a.b.Name == "max" {
			f = ad.Max
		}
		if y, ok := a.val(1); ok {
			return c.map2(a.call, x, y, f, nil)
		}
		if x.size() == 0 {
			c.fail(a.call, "%s of an empty vector", a.b.Name)
		}
		return c.reduce(a.at(0), x, func(u []ad.Jet) ad.Jet {
			acc := u[0]
			for _, v := range u[1:] {
				acc = f(acc, v)
			}
			return acc
		}, false)
	}
	c.fail(a.call, "unsupported math function %s", a.b.Name)
	return val{}
}

// unaryMath are the elementwise math builtins on jets (of latents in a
// latent expression, of learned params in numbers with tangents).
var unaryMath = map[string]func(ad.Jet) ad.Jet{"exp": ad.Jet.Exp, "log": ad.Jet.Log, "abs": ad.Jet.Abs, "sqrt": ad.Jet.Sqrt}

// reduce applies a vector → scalar function; sum marks ad.Sum, which keeps
// an affine expression affine.
func (c *compiler) reduce(at ast.Node, x val, f func([]ad.Jet) ad.Jet, sum bool) val {
	switch x.k {
	case kNum:
		r := f(x.jets())
		out := numVal(r.V)
		t := x.tan().fresh(1)
		t.set(0, r)
		out.setTan(t)
		return out
	case kSym:
		var aff func(int) lin
		if xa, n := x.sym.forms(), x.size(); xa != nil && sum {
			aff = func(int) lin { return weighted(n, nil, xa) }
		}
		if x.sym.lat < 0 {
			if aff == nil {
				c.nonlinear(at, x)
			}
			return multiSym(nil, aff, x)
		}
		g := c.symFn(at, x)
		return val{k: kSym, sym: &sym{lat: x.sym.lat, exprs: true, aff: aff, f: func(w []ad.Jet) []ad.Jet {
			return []ad.Jet{f(g(w))}
		}}}
	}
	c.fail(at, "expected numbers or a latent expression, got %s", x.describe())
	return val{}
}

// lossParam is a loss's optional positive parameter (quasi01's eps), or 0
// for the losses without one.
func lossParam(a *args) float64 {
	if len(a.b.Params) < 2 {
		return 0
	}
	def, _ := strconv.ParseFloat(a.b.Params[1].Default, 64)
	return a.positive(1, def)
}

// lossCall applies logistic_loss, hinge or quasi01 elementwise.
func (c *compiler) lossCall(a *args) val {
	l, err := loss.ByName(a.b.Name, lossParam(a))
	if err != nil {
		c.fail(a.call, "%v", err)
	}
	x, _ := a.val(0)
	c.needAffineArg(a.call, x)
	out := c.map1(a.at(0), x, func(u ad.Jet) ad.Jet { return loss.OfJet(l, u) }, nil)
	if c.jet != nil && out.k == kNum && len(a.b.Params) > 1 && a.expr(1) != nil && c.readsJet(a.expr(1)) {
		out.setTan(lost(a.at(1), "a loss's `%s` has no derivative in the learned params", a.b.Params[1].Name))
	}
	return out
}
