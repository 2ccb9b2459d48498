package compile

import "github.com/fg-infer/fg/lang/ast"

// maxSharedInts bounds c.ints, the shared backing of plate index values
// (8 bytes each: 128 MiB at most, the size of the largest plate the factor
// budget admits).
const maxSharedInts = maxFactors * 2

// growInts makes c.ints hold 0, 1, ..., n−1 (when n is within
// maxSharedInts), so that intVal serves plate indices below n without an
// allocation per iteration.
func (c *compiler) growInts(n int) {
	if n <= len(c.ints) || n > maxSharedInts {
		return
	}
	ints := make([]float64, n)
	for i := range ints {
		ints[i] = float64(i)
	}
	c.ints = ints
}

// intVal is the scalar value k. Within c.ints it shares its backing array
// (values are never modified in place; the three-index slice keeps an
// append from writing into a neighbour).
func (c *compiler) intVal(k int) val {
	if k >= 0 && k < len(c.ints) {
		return val{k: kNum, num: c.ints[k : k+1 : k+1]}
	}
	return numVal(float64(k))
}

// indexElement is index's fast path for NAME[i, j, ...] with every index a
// scalar integer within range and NAME data, a param, a plate variable or a
// latent: the one element, without the general selection machinery (for
// data it shares NAME's storage; for a latent it is a one-element
// selection sharing the latent's id list). It reports false in every other
// case (slices, index vectors, expressions as NAME, a bad index, a gated
// likelihood's branches), which the general path then evaluates and
// reports.
func (c *compiler) indexElement(e *ast.IndexExpr) (val, bool) {
	id, ok := e.X.(*ast.Ident)
	if !ok || c.gate.subst != nil { // a gate's branch checks its selectors' dimensions (dimSelection)
		return val{}, false
	}
	b := c.resolved(id)
	if b == nil || b.poisoned {
		return val{}, false
	}
	var shape []int
	switch {
	case b.kind == bLatent:
		shape = c.m.Graph.Latents[b.lat].Shape
	case b.v.k == kNum:
		shape = b.v.shape
	default:
		return val{}, false
	}
	off, ok := c.scalarOffset(e.Indices, shape)
	if !ok {
		return val{}, false
	}
	if b.kind == bLatent {
		c.compactUse(id.Pos(), b.lat)
		ids := c.latentIDs(b.lat)
		return c.selection(b.lat, ids[off:off+1:off+1], nil), true
	}
	if b.kind == bParam {
		c.lf.readParam(id)
	}
	out := val{k: kNum, num: b.v.num[off : off+1 : off+1], dom: b.v.dom}
	out.setTan(b.v.tan().span(off, off+1))
	return out, true
}

// scalarOffset is the row-major offset of the element that idx (one scalar
// integer per dimension, each in range) selects in an array of shape.
func (c *compiler) scalarOffset(idx []ast.Expr, shape []int) (int, bool) {
	if len(idx) != len(shape) || len(shape) == 0 {
		return 0, false
	}
	off := 0
	for d, e := range idx {
		if _, isSlice := e.(*ast.SliceExpr); isSlice {
			return 0, false
		}
		v := c.eval(e)
		if v.k != kNum || len(v.shape) != 0 {
			return 0, false
		}
		x := v.num[0]
		i := int(x)
		if float64(i) != x || i < 0 || i >= shape[d] {
			return 0, false
		}
		off = off*shape[d] + i
	}
	return off, true
}
