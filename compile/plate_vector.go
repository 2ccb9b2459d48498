package compile

import (
	"math"
	"strconv"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// A plate `for t in A..B { S }` whose body is one `~` statement that uses
// t only to pick elements of one-dimensional names (x[t], x[t - 1],
// y[t + 2], every one within range) is the statement S written over
// vectors: x[A:B] ~ normal(x[A-1:B-1], q). It compiles once, with t bound
// to the vector A, A+1, …, B−1, instead of once per iteration: the
// factors, sites and conditionals are the same, in the same order, with
// the same labels (a site's label names its element, y[3], as the
// unrolled statement did), but the evaluator runs once for the plate
// rather than once per element — a plate of 10⁶ steps is one evaluation
// of its statement, its elements made in one loop (the plate kept as a
// run of elements, not unrolled into statements). Any other plate (several statements, nested plates, calls other
// than the distribution, t in arithmetic outside an index, an index that
// may leave its range) unrolls as before, so that its meaning and its
// messages stay those of the unrolled statements.

// vecPlate is the plate being compiled as one vector statement: its
// variable's name, binding and first value.
type vecPlate struct {
	name string
	b    *binding
	lo   int
	// lhs is the statement's left side X[t + off]; its element k is
	// prefix (X[) followed by lo + off + k and ].
	lhs    *ast.IndexExpr
	prefix string
	off    int
	at     ast.Pos // the for statement's position
}

// vectorPlate compiles range plate s (n iterations from lo, its variable
// bound to b) as one vector statement when its body allows it (see above),
// and reports whether it did.
func (c *compiler) vectorPlate(s *ast.ForStmt, b *binding, lo, n int) bool {
	if n < 2 || len(s.Vars) != 1 || len(s.Body) != 1 || c.opt.unrolled || c.net != nil || c.lf != nil || c.gate.subst != nil || c.vec != nil {
		return false
	}
	st, ok := s.Body[0].(*ast.TildeStmt)
	if !ok {
		return false
	}
	call, ok := st.Dist.(*ast.CallExpr)
	if !ok {
		return false
	}
	v := vecCheck{c: c, name: s.Vars[0].Name, lo: lo, n: n}
	lhs, ok := st.LHS.(*ast.IndexExpr)
	if !ok || !v.index(lhs) || !v.hasVar(lhs) {
		return false // the left side is an element per iteration: y[t], x[t + 1]
	}
	varies, ok := c.vecArgs(lhs, call)
	if !ok {
		return false
	}
	for i, a := range call.Args {
		if !v.expr(a) || (!varies(i, "") && v.hasVar(a)) {
			return false
		}
	}
	for _, a := range call.Named {
		if !v.expr(a.Value) || (!varies(-1, a.Name.Name) && v.hasVar(a.Value)) {
			return false
		}
	}
	off, _ := v.offset(lhs.Indices[0])
	ints := c.intsFrom(lo, n)
	b.v = val{k: kNum, num: ints, shape: []int{n}}
	c.vec = &vecPlate{name: s.Vars[0].Name, b: b, lo: lo, lhs: lhs, prefix: c.render(lhs.X) + "[", off: off, at: s.Pos()}
	defer func() { c.vec = nil }()
	c.tildeStmt(st)
	return true
}

// vecArgs says which arguments of the distribution call of a vector
// plate's statement may vary with the plate variable (by position, or by
// name for a named argument), and ok false when the statement cannot be
// one vector statement (its factors are continuous: the FactorGraph's,
// none in Graph). A conditional on a latent (lhs names one) must be
// normal, whose elements are independent (mvnormal over the plate's
// elements would be one joint); every argument may vary: its per-element
// checks name the element as the unrolled statement does. A likelihood's
// projection may vary, its other parameters not (per-element parameters
// name their element in messages, which the unrolled statement does not).
func (c *compiler) vecArgs(lhs *ast.IndexExpr, call *ast.CallExpr) (varies func(pos int, name string) bool, ok bool) {
	name := call.FunName()
	if b := c.resolved(lhs.X.(*ast.Ident)); b != nil && b.kind == bLatent {
		k, _ := factor.Lookup(name, factor.Prior)
		_, normal := k.(factor.NormalPrior)
		return func(int, string) bool { return true }, normal
	}
	b, err := stdlib.Find(stdlib.Distribution, name)
	if err != nil {
		return nil, false
	}
	k, err := factor.Find(name, factor.Likelihood)
	if err != nil {
		return nil, false
	}
	lk, isLik := k.(factor.LikelihoodKind)
	if !isLik {
		return nil, false
	}
	pi := paramIndex(b, lk.Projection())
	if pi < 0 || pi >= len(b.Params) {
		return nil, false
	}
	return func(pos int, arg string) bool { return pos == pi || (pos < 0 && arg == b.Params[pi].Name) }, true
}

// intsFrom is lo, lo+1, …, lo+n−1, a view of c.ints when it holds them.
func (c *compiler) intsFrom(lo, n int) []float64 {
	c.growInts(lo + n)
	if lo+n <= len(c.ints) {
		return c.ints[lo : lo+n : lo+n]
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(lo + i)
	}
	return out
}

// vecElement renders element k of the left side e of the vector plate's
// statement as the unrolled statement names it (y[3] for y[t] at t = 3):
// e rendered with the plate variable at its k-th value.
func (c *compiler) vecElement(e ast.Expr, k int) string {
	p := c.vec
	all := p.b.v
	p.b.v = c.intVal(p.lo + k)
	defer func() { p.b.v = all }()
	return c.render(e)
}

// appendElemName appends elemName(e, y, k) to b; the left side of a
// vector plate's statement without evaluating its index again.
func (c *compiler) appendElemName(b []byte, e ast.Expr, y val, k int) []byte {
	if p := c.vec; p != nil && e == ast.Expr(p.lhs) && y.size() > 1 {
		b = append(b, p.prefix...)
		b = strconv.AppendInt(b, int64(p.lo+p.off+k), 10)
		return append(b, ']')
	}
	return append(b, c.elemName(e, y, k)...)
}

// vecIndex is index's fast path inside a vector plate for X[t + K]: the
// elements lo+K, …, lo+K+n−1 of one-dimensional X as the general path
// selects them, sharing X's storage (data) or its id list (a latent).
func (c *compiler) vecIndex(e *ast.IndexExpr) (val, bool) {
	p := c.vec
	if p == nil || len(e.Indices) != 1 {
		return val{}, false
	}
	id, ok := e.X.(*ast.Ident)
	if !ok {
		return val{}, false
	}
	k, ok := plateOffset(p.name, e.Indices[0])
	b := c.resolved(id)
	if !ok || b == nil || b.poisoned {
		return val{}, false
	}
	n := len(p.b.v.num)
	first := p.lo + k
	switch {
	case b.kind == bLatent:
		if l := &c.m.Graph.Latents[b.lat]; len(l.Shape) != 1 || first < 0 || first+n > l.Shape[0] {
			return val{}, false
		}
		c.compactUse(id.Pos(), b.lat)
		ids := c.latentIDs(b.lat)
		return c.selection(b.lat, ids[first:first+n:first+n], []int{n}), true
	case b.kind != bLoop && b.v.k == kNum && len(b.v.shape) == 1 && first >= 0 && first+n <= b.v.shape[0]:
		out := val{k: kNum, shape: []int{n}, num: b.v.num[first : first+n : first+n], dom: b.v.dom}
		out.setTan(b.v.tan().span(first, first+n))
		return out, true
	}
	return val{}, false
}

// vecCheck decides whether a plate body can compile as one vector
// statement: the plate variable name, n iterations from lo.
type vecCheck struct {
	c     *compiler
	name  string
	lo, n int
}

// expr reports whether e is built of numbers, names of scalars and
// elements of one-dimensional names with + − * / and unary minus, the
// plate variable appearing only as an index (index).
func (v *vecCheck) expr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.NumberLit:
		return true
	case *ast.Ident:
		return v.scalarName(e)
	case *ast.ParenExpr:
		return v.expr(e.X)
	case *ast.UnaryExpr:
		return e.Op == ast.OpNeg && v.expr(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case ast.OpAdd, ast.OpSub, ast.OpMul, ast.OpDiv:
			return v.expr(e.X) && v.expr(e.Y)
		}
	case *ast.IndexExpr:
		return v.index(e)
	}
	return false
}

// scalarName reports whether the name id is bound to a scalar: data, a
// param, a latent of one element or another plate's variable — never this
// plate's variable outside an index, nor a vector (which the unrolled
// statement would not broadcast over the iterations).
func (v *vecCheck) scalarName(id *ast.Ident) bool {
	if id.Name == v.name {
		return false
	}
	b := v.c.resolved(id)
	if b == nil || b.poisoned {
		return false
	}
	if b.kind == bLatent {
		return v.c.m.Graph.Latents[b.lat].Size() == 1 && len(v.c.m.Graph.Latents[b.lat].Shape) == 0
	}
	return b.v.k == kNum && len(b.v.shape) == 0 && len(b.v.num) == 1
}

// index reports whether X[i] is one element of a one-dimensional name
// (data, a param or a real latent) with i either free of the plate
// variable (a scalar expression, as expr) or t ± K for an integer K, in
// range for every value of t.
func (v *vecCheck) index(e *ast.IndexExpr) bool {
	id, ok := e.X.(*ast.Ident)
	if !ok || len(e.Indices) != 1 {
		return false
	}
	size, ok := v.size(id)
	if !ok {
		return false
	}
	if !v.hasVar(e) {
		return v.expr(e.Indices[0])
	}
	k, ok := v.offset(e.Indices[0])
	return ok && v.lo+k >= 0 && v.lo+v.n-1+k < size
}

// size is the length of the one-dimensional name id: data, a param or a
// real latent.
func (v *vecCheck) size(id *ast.Ident) (int, bool) {
	b := v.c.resolved(id)
	if b == nil || b.poisoned || id.Name == v.name {
		return 0, false
	}
	if b.kind == bLatent {
		l := &v.c.m.Graph.Latents[b.lat]
		return l.Shape[0], l.Domain == graph.Real && len(l.Shape) == 1
	}
	if b.v.k != kNum || len(b.v.shape) != 1 {
		return 0, false
	}
	return b.v.shape[0], true
}

// offset is K of an index t, t + K, t − K or K + t with K an integer
// literal.
func (v *vecCheck) offset(e ast.Expr) (int, bool) { return plateOffset(v.name, e) }

// plateOffset is K of an index t, t + K, t − K or K + t, t the plate
// variable name and K an integer literal.
func plateOffset(name string, e ast.Expr) (int, bool) {
	isVar := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == name }
	intLit := func(e ast.Expr) (int, bool) {
		n, ok := e.(*ast.NumberLit)
		if !ok || n.Value != math.Trunc(n.Value) || math.Abs(n.Value) > 1<<40 {
			return 0, false
		}
		return int(n.Value), true
	}
	if isVar(e) {
		return 0, true
	}
	be, ok := e.(*ast.BinaryExpr)
	if !ok {
		return 0, false
	}
	switch {
	case be.Op == ast.OpAdd && isVar(be.X):
		return intLit(be.Y)
	case be.Op == ast.OpAdd && isVar(be.Y):
		return intLit(be.X)
	case be.Op == ast.OpSub && isVar(be.X):
		k, ok := intLit(be.Y)
		return -k, ok
	}
	return 0, false
}

// hasVar reports whether the plate variable appears in e.
func (v *vecCheck) hasVar(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == v.name {
			found = true
		}
		return !found
	})
	return found
}
