package compile

import (
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib/ad"
)

// eval evaluates an expression of data, params, loop variables and latents.
// Numbers are computed at once; expressions of a real latent become a sym
// whose closure evaluates them on ad jets (value, gradient, diagonal
// Hessian), which is how `factor exp(EXPR)` potentials and site projections
// are built. While learning differentiates, numbers carry their tangents in
// the learned params (val.tan, tangents.go): the operators and builtins
// below compute them with the values, and checked marks the numbers of an
// expression that lost them.
func (c *compiler) eval(e ast.Expr) val {
	if c.jet != nil {
		seen := c.jet.seen
		return c.checked(e, c.evalExpr(e), seen)
	}
	return c.evalExpr(e)
}

// evalExpr is eval's dispatch.
func (c *compiler) evalExpr(e ast.Expr) val {
	if v, ok := c.gateSubst(e); ok {
		return v
	}
	switch e := e.(type) {
	case *ast.NumberLit:
		return numVal(e.Value)
	case *ast.StringLit:
		return val{k: kStr, str: e.Value}
	case *ast.BoolLit:
		return boolVal(e.Value)
	case *ast.ParenExpr:
		return c.eval(e.X)
	case *ast.ListLit:
		return c.list(e)
	case *ast.Ident:
		return c.ident(e)
	case *ast.UnaryExpr:
		return c.unary(e)
	case *ast.BinaryExpr:
		return c.binary(e)
	case *ast.CallExpr:
		return c.call(e)
	case *ast.IndexExpr:
		return c.index(e)
	case *ast.SelectorExpr:
		c.fail(e, "`%s`: a result selector is only allowed in expect statements", c.text(e))
	case *ast.RangeExpr:
		c.fail(e, "a range A..B is only allowed as the range of a for plate")
	case *ast.SliceExpr:
		c.fail(e, "a slice A:B is only allowed inside [ ]")
	}
	c.fail(e, "unsupported expression")
	return val{}
}

func (c *compiler) ident(id *ast.Ident) val {
	b := c.resolved(id)
	if b == nil {
		c.fail(id, "%s", c.an.undefined(id, c.lowered))
	}
	if b.poisoned {
		panic(abort{})
	}
	if b.kind == bLatent {
		c.compactUse(id.Pos(), b.lat)
		return c.selection(b.lat, c.latentIDs(b.lat), c.m.Graph.Latents[b.lat].Shape)
	}
	if b.kind == bParam {
		c.lf.readParam(id)
	}
	return b.v
}

// latentIDs are the graph variable ids of all the elements of latent lat
// (shared and never modified).
func (c *compiler) latentIDs(lat int) []int {
	ids, ok := c.allIDs[lat]
	if !ok {
		l := &c.m.Graph.Latents[lat]
		if l.Compact { // callers check with compactUse at the use; this is the backstop
			c.compactUse(l.Pos, lat)
		}
		ids = make([]int, l.Size())
		for i := range ids {
			ids[i] = l.First + i
		}
		c.allIDs[lat] = ids
	}
	return ids
}

// selection is the sym of some elements of latent lat.
func (c *compiler) selection(lat int, ids []int, shape []int) val {
	l := &c.m.Graph.Latents[lat]
	s := &sym{lat: lat, ids: ids}
	if l.Domain == graph.Real {
		s.sel, s.first = true, l.First
	}
	return val{k: kSym, shape: append([]int(nil), shape...), sym: s}
}

// list evaluates [a, b, ...]: numbers stack into vectors and matrices
// (every element must have the same shape), strings into a string list.
func (c *compiler) list(e *ast.ListLit) val {
	if len(e.Elems) == 0 {
		return val{k: kNum, shape: []int{0}}
	}
	if nums, ok := numberList(e); ok {
		return val{k: kNum, shape: []int{len(nums)}, num: nums}
	}
	elems := make([]val, len(e.Elems))
	for i, x := range e.Elems {
		elems[i] = c.eval(x)
	}
	if elems[0].k == kStr {
		out := val{k: kList}
		for i, v := range elems {
			if v.k != kStr {
				c.fail(e.Elems[i], "list mixes strings and %s", v.describe())
			}
			out.strs = append(out.strs, v.str)
		}
		return out
	}
	first := elems[0]
	out := val{k: kNum, shape: append([]int{len(elems)}, first.shape...)}
	for i, v := range elems {
		if v.k != kNum && v.k != kBool {
			c.fail(e.Elems[i], "list element is a %s; lists hold numbers or strings", v.describe())
		}
		if !sameShape(v.shape, first.shape) {
			c.fail(e.Elems[i], "ragged list: element %d is a %s, element 0 a %s", i, v.describe(), first.describe())
		}
		out.num = append(out.num, v.num...)
	}
	out.setTan(stacked(elems))
	return out
}

// numberList returns the values of a list whose elements are all number
// literals, possibly negated: a data vector written inline, evaluated
// without a val per element.
func numberList(e *ast.ListLit) ([]float64, bool) {
	out := make([]float64, len(e.Elems))
	for i, x := range e.Elems {
		sign := 1.0
		if u, ok := x.(*ast.UnaryExpr); ok && u.Op == ast.OpNeg {
			sign, x = -1, u.X
		}
		n, ok := x.(*ast.NumberLit)
		if !ok {
			return nil, false
		}
		out[i] = sign * n.Value
	}
	return out, true
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (c *compiler) unary(e *ast.UnaryExpr) val {
	x := c.eval(e.X)
	if e.Op == ast.OpNot {
		if x.k != kBool {
			c.fail(e.X, "not needs a bool, got %s", x.describe())
		}
		return boolVal(x.num[0] == 0)
	}
	return c.map1(e.X, x, func(u ad.Jet) ad.Jet { return u.Neg() }, func(a lin) lin { return a.scale(-1) })
}

// map1 applies f elementwise to a number array or a real latent expression;
// affF, when non-nil, is f on affine forms (f is affine).
func (c *compiler) map1(at ast.Node, x val, f func(ad.Jet) ad.Jet, affF func(lin) lin) val {
	switch x.k {
	case kNum:
		out := val{k: kNum, shape: x.shape, num: make([]float64, len(x.num))}
		t := x.tan().fresh(len(x.num))
		out.setTan(t)
		for i := range x.num {
			r := f(x.jet(i))
			out.num[i] = r.V
			t.set(i, r)
		}
		return out
	case kSym:
		var aff func(k int) lin
		if xa := x.sym.forms(); xa != nil && affF != nil {
			aff = func(k int) lin { return affF(xa(k)) }
		}
		if x.sym.lat < 0 {
			if aff == nil {
				c.nonlinear(at, x)
			}
			return multiSym(x.shape, aff, x)
		}
		g := c.symFn(at, x)
		return val{k: kSym, shape: x.shape, sym: &sym{lat: x.sym.lat, exprs: true, aff: aff, f: func(w []ad.Jet) []ad.Jet {
			a := g(w)
			out := make([]ad.Jet, len(a))
			for i := range a {
				out[i] = f(a[i])
			}
			return out
		}}}
	}
	c.fail(at, "expected numbers or a latent expression, got %s", x.describe())
	return val{}
}

// symFn returns the jet closure of a real-latent expression.
func (c *compiler) symFn(at ast.Node, x val) func([]ad.Jet) []ad.Jet {
	if x.sym.lat < 0 {
		c.nonlinear(at, x)
	}
	f := x.sym.jets()
	if f == nil {
		l := &c.m.Graph.Latents[x.sym.lat]
		c.fail(at, "`%s` is a %s latent: arithmetic on discrete latents is not supported; use a potential (ising, field, table)", l.Name, l.Domain)
	}
	return f
}

// map2 applies f elementwise with scalar broadcasting; either operand may
// be a latent expression. aff, when non-nil, gives the result's elements as
// affine forms (affine2); operands over different latents need it.
func (c *compiler) map2(at ast.Node, x, y val, f func(a, b ad.Jet) ad.Jet, aff func(k int) lin) val {
	for _, v := range []val{x, y} {
		if v.k != kNum && v.k != kSym && v.k != kBool {
			c.fail(at, "expected numbers or a latent expression, got %s", v.describe())
		}
	}
	shape := x.shape
	switch {
	case sameShape(x.shape, y.shape):
	case len(x.shape) == 0:
		shape = y.shape
	case len(y.shape) != 0:
		c.fail(at, "shape mismatch: %s and %s", x.describe(), y.describe())
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	if x.k != kSym && y.k != kSym {
		out := val{k: kNum, shape: shape, num: make([]float64, n)}
		var t *tangents
		if x.tan() != nil || y.tan() != nil {
			t = joined(n, &x, &y)
			out.setTan(t)
		}
		for i := range out.num {
			r := f(x.jet(bi(x, i)), y.jet(bi(y, i)))
			out.num[i] = r.V
			t.set(i, r)
		}
		return out
	}
	lat, mixed := mixedLatents(x, y)
	if mixed {
		if aff == nil {
			c.nonlinear(at, x, y)
		}
		return multiSym(shape, aff, x, y)
	}
	fx, fy := c.jets(at, x), c.jets(at, y)
	return val{k: kSym, shape: shape, sym: &sym{lat: lat, exprs: true, aff: aff, f: func(w []ad.Jet) []ad.Jet {
		a, b := fx(w), fy(w)
		out := make([]ad.Jet, n)
		for i := range out {
			out[i] = f(a[min(i, len(a)-1)], b[min(i, len(b)-1)])
		}
		return out
	}}}
}

// bi is the broadcast index of element i in v (a scalar repeats).
func bi(v val, i int) int {
	if len(v.num) == 1 {
		return 0
	}
	return i
}

// jets returns a closure giving v's elements as jets: constants for
// numbers, the latent expression otherwise.
func (c *compiler) jets(at ast.Node, v val) func([]ad.Jet) []ad.Jet {
	if v.k == kSym {
		return c.symFn(at, v)
	}
	consts := ad.Consts(v.num)
	return func([]ad.Jet) []ad.Jet { return consts }
}

func (c *compiler) binary(e *ast.BinaryExpr) val {
	x, y := c.eval(e.X), c.eval(e.Y)
	switch {
	case e.Op == ast.OpAnd || e.Op == ast.OpOr:
		if x.k != kBool || y.k != kBool {
			c.fail(e, "%s needs two bools, got %s and %s", e.Op, x.describe(), y.describe())
		}
		if e.Op == ast.OpAnd {
			return boolVal(x.num[0] != 0 && y.num[0] != 0)
		}
		return boolVal(x.num[0] != 0 || y.num[0] != 0)
	case e.Op.IsComparison():
		return c.compare(e, x, y)
	case x.k == kKernel || y.k == kKernel:
		return c.kernelArith(e, x, y)
	case e.Op == ast.OpMatMul:
		return c.matmul(e, x, y)
	case x.k == kStr && y.k == kStr && e.Op == ast.OpAdd:
		return val{k: kStr, str: x.str + y.str}
	}
	switch e.Op {
	case ast.OpAdd:
		return c.map2(e, x, y, ad.Jet.Add, affine2(e.Op, x, y))
	case ast.OpSub:
		return c.map2(e, x, y, ad.Jet.Sub, affine2(e.Op, x, y))
	case ast.OpMul:
		return c.map2(e, x, y, ad.Jet.Mul, affine2(e.Op, x, y))
	case ast.OpDiv:
		return c.map2(e, x, y, ad.Jet.Div, affine2(e.Op, x, y))
	case ast.OpPow:
		if y.k == kSym {
			c.fail(e.Y, "an exponent may not depend on a latent")
		}
		return c.map2(e, x, y, pow, nil)
	}
	c.fail(e, "unsupported operator %s", e.Op)
	return val{}
}

// pow is a^b; with derivatives in the exponent (a learned one) they are
// those of exp(b·log a), its value math.Pow's either way.
func pow(a, b ad.Jet) ad.Jet {
	if b.IsConst() {
		return a.Pow(b.V)
	}
	out := b.Mul(a.Log()).Exp()
	out.V = a.Pow(b.V).V
	return out
}

func (c *compiler) compare(e *ast.BinaryExpr, x, y val) val {
	if x.k == kStr && y.k == kStr && (e.Op == ast.OpEq || e.Op == ast.OpNe) {
		return boolVal((x.str == y.str) == (e.Op == ast.OpEq))
	}
	if !x.isScalar() || !y.isScalar() {
		c.fail(e, "%s compares two numbers, got %s and %s", e.Op, x.describe(), y.describe())
	}
	a, b := x.num[0], y.num[0]
	var r bool
	switch e.Op {
	case ast.OpEq:
		r = a == b
	case ast.OpNe:
		r = a != b
	case ast.OpLt:
		r = a < b
	case ast.OpLe:
		r = a <= b
	case ast.OpGt:
		r = a > b
	case ast.OpGe:
		r = a >= b
	}
	return boolVal(r)
}

// matmul is A @ B: matrix·vector, matrix·matrix, vector·vector (a scalar)
// and vector·matrix; a latent vector may be the right (or left) operand.
// Its numbers carry no tangents: learning differences what @ reaches.
func (c *compiler) matmul(e *ast.BinaryExpr, x, y val) val {
	dropped := x.tan() != nil || y.tan() != nil
	x.setTan(nil)
	y.setTan(nil)
	v := c.product(e, x, y)
	if dropped && v.k == kSym {
		v = c.lostForms(e, v, true)
	}
	return v
}

// product is matmul on operands without tangents.
func (c *compiler) product(e *ast.BinaryExpr, x, y val) val {
	if x.k == kSym && y.k == kSym {
		if len(x.shape) == 1 && sameShape(x.shape, y.shape) {
			return c.dotVals(e, x, y)
		}
		c.fail(e, "@ of two latent expressions needs two vectors of the same length")
	}
	switch {
	case len(x.shape) == 2 && len(y.shape) == 1:
		if x.shape[1] != y.shape[0] {
			c.fail(e, "@: %s times %s", x.describe(), y.describe())
		}
		return c.rowsDot(e, x, y)
	case len(x.shape) == 1 && len(y.shape) == 1:
		return c.dotVals(e, x, y)
	case x.k == kNum && y.k == kNum && len(x.shape) == 2 && len(y.shape) == 2:
		return matMatNum(c, e, x, y)
	case len(x.shape) == 1 && len(y.shape) == 2 && y.k == kNum && x.k == kNum:
		return matMatNum(c, e, val{k: kNum, shape: []int{1, x.shape[0]}, num: x.num}, y)
	}
	c.fail(e, "@ needs matrix @ vector, matrix @ matrix or vector @ vector, got %s @ %s", x.describe(), y.describe())
	return val{}
}

// rowsDot is matrix (numbers) @ vector (numbers or latent).
func (c *compiler) rowsDot(at ast.Node, m, v val) val {
	r, k := m.shape[0], m.shape[1]
	if m.k != kNum {
		c.fail(at, "@: the left matrix must be data")
	}
	if v.k == kNum {
		out := make([]float64, r)
		for i := 0; i < r; i++ {
			for j := 0; j < k; j++ {
				out[i] += m.num[i*k+j] * v.num[j]
			}
		}
		return vecVal(out)
	}
	rows := m.num
	var aff func(i int) lin
	if va := v.sym.forms(); va != nil {
		aff = func(i int) lin { return weighted(k, rows[i*k:(i+1)*k], va) }
	}
	if v.sym.lat < 0 {
		return multiSym([]int{r}, aff, v)
	}
	g := c.symFn(at, v)
	return val{k: kSym, shape: []int{r}, sym: &sym{lat: v.sym.lat, exprs: true, aff: aff, f: func(w []ad.Jet) []ad.Jet {
		a := g(w)
		out := make([]ad.Jet, r)
		for i := range out {
			out[i] = ad.DotConst(rows[i*k:(i+1)*k], a)
		}
		return out
	}}}
}

func matMatNum(c *compiler, at ast.Node, x, y val) val {
	r, k, q := x.shape[0], x.shape[1], y.shape[1]
	if y.shape[0] != k {
		c.fail(at, "@: %s times %s", x.describe(), y.describe())
	}
	out := val{k: kNum, shape: []int{r, q}, num: make([]float64, r*q)}
	for i := 0; i < r; i++ {
		for j := 0; j < q; j++ {
			s := 0.0
			for l := 0; l < k; l++ {
				s += x.num[i*k+l] * y.num[l*q+j]
			}
			out.num[i*q+j] = s
		}
	}
	return out
}

// dotVals is the inner product of two vectors of the same length.
func (c *compiler) dotVals(at ast.Node, x, y val) val {
	if len(x.shape) != 1 || !sameShape(x.shape, y.shape) {
		c.fail(at, "dot needs two vectors of the same length, got %s and %s", x.describe(), y.describe())
	}
	if x.k == kNum && y.k == kNum {
		if x.tan() != nil || y.tan() != nil { // the jets' dot, as learning differentiates it
			t := joined(1, &x, &y)
			r := ad.Dot(x.jets(), y.jets())
			t.set(0, r)
			out := numVal(r.V)
			out.setTan(t)
			return out
		}
		s := 0.0
		for i := range x.num {
			s += x.num[i] * y.num[i]
		}
		return numVal(s)
	}
	if x.k == kSym && y.k == kNum {
		x, y = y, x
	}
	if x.k == kNum {
		out := c.dotNum(at, x.num, y)
		if x.tan() != nil { // the weights' tangents are not carried
			out = c.lostForms(at, out, true)
		}
		return out
	}
	lat, mixed := mixedLatents(x, y)
	if mixed {
		c.nonlinear(at, x, y)
	}
	fx, fy := c.symFn(at, x), c.symFn(at, y)
	return val{k: kSym, sym: &sym{lat: lat, exprs: true, f: func(w []ad.Jet) []ad.Jet {
		return []ad.Jet{ad.Dot(fx(w), fy(w))}
	}}}
}

// dotNum is the inner product of the numbers w0 and the latent vector y.
func (c *compiler) dotNum(at ast.Node, w0 []float64, y val) val {
	var aff func(int) lin
	if ya := y.sym.forms(); ya != nil {
		aff = func(int) lin { return weighted(len(w0), w0, ya) }
	}
	if y.sym.lat < 0 {
		return multiSym(nil, aff, y)
	}
	fy := c.symFn(at, y)
	return val{k: kSym, sym: &sym{lat: y.sym.lat, exprs: true, aff: aff, f: func(w []ad.Jet) []ad.Jet {
		return []ad.Jet{ad.DotConst(w0, fy(w))}
	}}}
}

// finite checks that every number of v is finite.
func (c *compiler) finite(at ast.Node, what string, v val) {
	for i, x := range v.num {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if len(v.shape) == 0 {
				c.fail(at, "%s is %v", what, x)
			}
			c.fail(at, "%s: element %d is %v", what, i, x)
		}
	}
}
