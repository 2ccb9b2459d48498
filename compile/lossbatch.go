package compile

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
	"github.com/fg-infer/fg/stdlib/loss"
)

// lossBatch recognises the mini-batch factor of Roche's linear classifiers
// (roche-numerical-ep.txt eq. 2, §3.2) written as a user potential,
//
//	exp(-beta * sum(LOSS(y[b] * (X[b] @ w))))      or      exp(-sum(LOSS(...)))
//
// with LOSS ∈ {hinge, logistic_loss, quasi01(·, eps)}, the margin written
// y[b] * (X[b] @ w) or (X[b] @ w) * y[b], beta a number, y a data vector of
// s labels, X[b] an s×d data matrix and w the whole real latent (all d
// elements, in order). It returns the equivalent stdlib/loss.Batch
//
//	f(w) = exp(−β Σ_k ℓ(y_k x_kᵀw)),
//
// whose LogF/Derivs are O(s·d) without jets and whose LogFAxes gives the
// 2d+1 points of the GQ/VQ moment schemes in O(s·d) loss evaluations
// (against O(s·d²) jet arithmetic for the generic ad.Potential). Any other
// shape returns nil and keeps the generic path. e has already compiled
// through the generic path, so every sub-expression here is valid.
func (c *compiler) lossBatch(e ast.Expr, l *graph.Latent) *loss.Batch {
	beta, body, ok := c.negScaled(unparen(e))
	if !ok {
		return nil
	}
	sum, ok := c.builtinCall(body, "sum")
	if !ok || len(sum.Args) != 1 || len(sum.Named) != 0 {
		return nil
	}
	lc, ok := unparen(sum.Args[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	lf := c.lossOf(lc)
	if lf == nil {
		return nil
	}
	X, y, ok := c.margin(lc.Args[0], l)
	if !ok {
		return nil
	}
	return &loss.Batch{X: X, Y: y, Beta: beta, Loss: lf}
}

// negScaled splits −body (β = 1) and (−β) * body or body * (−β), with β a
// numeric scalar, into β and body.
func (c *compiler) negScaled(e ast.Expr) (float64, ast.Expr, bool) {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == ast.OpNeg {
		return 1, unparen(u.X), true
	}
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != ast.OpMul {
		return 0, nil, false
	}
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		u, ok := unparen(p[0]).(*ast.UnaryExpr)
		if !ok || u.Op != ast.OpNeg {
			continue
		}
		if v := c.eval(u.X); v.k == kNum && v.isScalar() {
			return v.num[0], unparen(p[1]), true
		}
	}
	return 0, nil, false
}

// builtinCall reports whether e is a call of the builtin name (not
// shadowed by a user name).
func (c *compiler) builtinCall(e ast.Expr, name string) (*ast.CallExpr, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return nil, false
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok || id.Name != name {
		return nil, false
	}
	if c.resolved(id) != nil { // a declared name, not the builtin
		return nil, false
	}
	return call, true
}

// lossOf returns the loss of a call hinge(m), logistic_loss(m) or
// quasi01(m, eps) (eps as lossCall reads it), or nil.
func (c *compiler) lossOf(call *ast.CallExpr) loss.Loss {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	if _, ok := c.builtinCall(call, id.Name); !ok {
		return nil
	}
	b, found := stdlib.Lookup(stdlib.Loss, id.Name)
	if !found {
		return nil
	}
	lf, err := loss.ByName(b.Name, lossParam(c.bind(call, b)))
	if err != nil {
		return nil
	}
	return lf
}

// margin matches y * (X @ w) or (X @ w) * y, y and X each written NAME or
// NAME[...]: y a numeric vector of s entries, X a numeric s×d matrix and w the whole latent l (d elements in
// order). It returns the rows of X and y.
func (c *compiler) margin(e ast.Expr, l *graph.Latent) ([][]float64, []float64, bool) {
	b, ok := unparen(e).(*ast.BinaryExpr)
	if !ok || b.Op != ast.OpMul {
		return nil, nil, false
	}
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		mm, ok := unparen(p[1]).(*ast.BinaryExpr)
		if !ok || mm.Op != ast.OpMatMul || !dataRef(p[0]) || !dataRef(mm.X) {
			continue
		}
		y, X, w := c.eval(p[0]), c.eval(mm.X), c.eval(mm.Y)
		d := l.Size()
		if y.k != kNum || len(y.shape) != 1 || X.k != kNum || len(X.shape) != 2 ||
			X.shape[0] != y.shape[0] || X.shape[1] != d || !c.wholeLatent(w, l) {
			continue
		}
		rows := make([][]float64, X.shape[0])
		for k := range rows {
			rows[k] = append([]float64(nil), X.num[k*d:(k+1)*d]...)
		}
		return rows, append([]float64(nil), y.num...), true
	}
	return nil, nil, false
}

// wholeLatent reports whether v is the pure selection of every element of
// the latent l, in order.
func (c *compiler) wholeLatent(v val, l *graph.Latent) bool {
	if v.k != kSym || v.sym.exprs || len(v.sym.ids) != l.Size() || &c.m.Graph.Latents[v.sym.lat] != l {
		return false
	}
	for i, id := range v.sym.ids {
		if id != l.First+i {
			return false
		}
	}
	return true
}

// dataRef reports whether e is written NAME or NAME[...] (y, y[b], X[b]).
func dataRef(e ast.Expr) bool {
	e = unparen(e)
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ix.X
	}
	_, ok := e.(*ast.Ident)
	return ok
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
