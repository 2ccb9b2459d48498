package compile

import (
	"math"

	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib/ad"
)

// dimSel is the selection in one dimension: a single index (the dimension
// is dropped) or a list of indices (kept).
type dimSel struct {
	one  bool
	idxs []int
}

// index evaluates X[i], X[i, j], X[:, j], X[a:b] and X[b] (b an index
// vector, e.g. a batches() plate variable) on numbers and latents.
func (c *compiler) index(e *ast.IndexExpr) val {
	if v, ok := c.vecIndex(e); ok {
		return v
	}
	if v, ok := c.indexElement(e); ok {
		return v
	}
	x := c.eval(e.X)
	if x.k == kSparse {
		c.sparseMisuse(e.X)
	}
	if x.k != kNum && x.k != kSym {
		c.fail(e.X, "cannot index a %s", x.describe())
	}
	if len(e.Indices) > len(x.shape) {
		c.fail(e, "`%s` has %d dimension(s) (%s), indexed with %d", c.text(e.X), len(x.shape), x.describe(), len(e.Indices))
	}
	offs, shape := c.indexOffsets(e, x.shape)
	if x.k == kNum {
		out := val{k: kNum, shape: shape, num: make([]float64, len(offs)), dom: x.dom}
		out.setTan(x.tan().pick(offs))
		for i, o := range offs {
			out.num[i] = x.num[o]
		}
		return out
	}
	if x.sym.ids != nil && !x.sym.exprs {
		ids := make([]int, len(offs))
		for i, o := range offs {
			ids[i] = x.sym.ids[o]
		}
		return c.selection(x.sym.lat, ids, shape)
	}
	var aff func(k int) lin
	if xa := x.sym.forms(); xa != nil {
		aff = func(k int) lin { return xa(offs[k]) }
	}
	if x.sym.lat < 0 {
		return multiSym(shape, aff, x)
	}
	g := c.symFn(e.X, x)
	return val{k: kSym, shape: shape, sym: &sym{lat: x.sym.lat, exprs: true, aff: aff, f: func(w []ad.Jet) []ad.Jet {
		a := g(w)
		out := make([]ad.Jet, len(offs))
		for i, o := range offs {
			out[i] = a[o]
		}
		return out
	}}}
}

// dimSelection evaluates the d-th index of e against a dimension of size n.
// indexOffsets are the row-major offsets e selects in an array of the
// given shape (at most len(shape) indices), and the result's shape.
func (c *compiler) indexOffsets(e *ast.IndexExpr, shape []int) ([]int, []int) {
	sels := make([]dimSel, len(shape))
	for d := range shape {
		if d < len(e.Indices) {
			sels[d] = c.dimSelection(e, d, shape[d])
		} else {
			sels[d] = dimSel{idxs: seq(0, shape[d])}
		}
	}
	return flatSelect(shape, sels)
}

func (c *compiler) dimSelection(e *ast.IndexExpr, d, n int) dimSel {
	ix := e.Indices[d]
	if s, ok := ix.(*ast.SliceExpr); ok {
		lo, hi := 0, n
		if s.Lo != nil {
			lo = c.intOf(s.Lo, c.eval(s.Lo), "slice bound")
		}
		if s.Hi != nil {
			hi = c.intOf(s.Hi, c.eval(s.Hi), "slice bound")
		}
		if lo < 0 || hi > n || lo > hi {
			c.fail(s, "%s[%d:%d]: slice out of range 0..%d", c.text(e.X), lo, hi, n)
		}
		return dimSel{idxs: seq(lo, hi)}
	}
	v := c.eval(ix)
	c.checkGateIndex(e, ix, n)
	if v.k != kNum {
		c.badIndex(ix, v)
	}
	if len(v.shape) > 1 {
		c.fail(ix, "an index must be a number or an index vector, got %s", v.describe())
	}
	idxs := make([]int, len(v.num))
	for k, x := range v.num {
		i := c.intOf(ix, numVal(x), "index")
		if i < 0 || i >= n {
			c.fail(ix, "%s[%d]: index out of range 0..%d", c.text(e.X), i, n)
		}
		idxs[k] = i
	}
	return dimSel{one: len(v.shape) == 0, idxs: idxs}
}

// intOf returns a scalar as an int, failing on non-integers.
func (c *compiler) intOf(at ast.Node, v val, what string) int {
	if !v.isScalar() || v.k != kNum {
		c.fail(at, "%s must be an integer, got %s", what, v.describe())
	}
	x := v.num[0]
	if x != math.Trunc(x) || math.Abs(x) > 1<<52 {
		c.fail(at, "%s must be an integer, got %s", what, fmtNum(x))
	}
	return int(x)
}

func seq(lo, hi int) []int {
	out := make([]int, 0, max(hi-lo, 0))
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// flatSelect returns the row-major offsets of the selected elements and the
// shape of the result.
func flatSelect(shape []int, sels []dimSel) ([]int, []int) {
	var rshape []int
	n := 1
	for _, s := range sels {
		if !s.one {
			rshape = append(rshape, len(s.idxs))
		}
		n *= len(s.idxs)
	}
	var out []int // nil when nothing is selected, as callers expect
	if n > 0 {
		out = make([]int, 0, n)
	}
	strides := make([]int, len(shape))
	st := 1
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = st
		st *= shape[d]
	}
	var rec func(d, off int)
	rec = func(d, off int) {
		if d == len(shape) {
			out = append(out, off)
			return
		}
		for _, i := range sels[d].idxs {
			rec(d+1, off+i*strides[d])
		}
	}
	rec(0, 0)
	return out, rshape
}
