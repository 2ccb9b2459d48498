package compile

import (
	"math"
	"slices"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib/ad"
)

// lin is one element of a latent expression as an affine form over graph
// variables: Σ_k coefs[k]·x[ids[k]] + c. Once normalised (norm) the ids are
// distinct, in order of first appearance, and the coefficients non-zero.
//
// Every sym built by selection, negation, + and −, scaling by numbers,
// dot/@ with numbers and sum carries its elements as lins (sym.forms), lazily:
// element k costs the size of its own form, never the size of a latent,
// which is what lets a chain of 10⁵ conditionals compile in linear time.
// The coefficients are accumulated in the order and with the
// operations the jet path uses (stdlib/ad: Scale, lin, DotConst, Sum), so a
// projection built from a lin is bit for bit the gradient the jets give.
type lin struct {
	ids   []int
	coefs []float64
	c     float64
	// d, while learning differentiates, holds the tangents of coefs and
	// c in the learned params (tangents.go); nil when they have none.
	d *linJets
}

// forms returns element access to the sym's elements as affine forms, or
// nil when it is not affine: a pure selection of a real latent is its
// variables (built on demand, so that selecting costs no closure).
func (s *sym) forms() func(k int) lin {
	if s.aff != nil || s.exprs || s.ids == nil || (s.f == nil && !s.sel) {
		return s.aff
	}
	ids := s.ids
	return func(k int) lin { return lin{ids: ids[k : k+1 : k+1], coefs: unitCoef[:1:1]} }
}

// varLin is the form of one variable, x[id]. (A selection's forms are
// views of its id list with the shared coefficient unitCoef: forms are
// read only, every operation on them makes new slices.)
func varLin(id int) lin { return lin{ids: []int{id}, coefs: []float64{1}} }

// unitCoef is the coefficient of the unit forms (read only).
var unitCoef = []float64{1}

// constLin is the form of a number.
func constLin(x float64) lin { return lin{c: x} }

// scale is s·a (the jets' Scale: s times each gradient entry).
func (a lin) scale(s float64) lin {
	out := lin{ids: a.ids, coefs: make([]float64, len(a.coefs)), c: s * a.c}
	for k, x := range a.coefs {
		out.coefs[k] = s * x
	}
	if a.d != nil {
		out.d = a.d.times(ad.Const(s))
	}
	return out.norm()
}

// by is s·a for s the form of a number, with s's tangents.
func (a lin) by(s lin) lin {
	if s.d == nil {
		return a.scale(s.c)
	}
	out := lin{ids: a.ids, coefs: make([]float64, len(a.coefs)), c: s.c * a.c, d: timesJets(a, s)}
	for k, x := range a.coefs {
		out.coefs[k] = s.c * x
	}
	return out.norm()
}

// recip is 1/s for s the form of a number.
func (s lin) recip() lin {
	out := constLin(1 / s.c)
	if s.d != nil {
		out.d = s.d.recip()
	}
	return out
}

// combine is sa·a + sb·b (the jets' lin: sa·G(a), then += sb·G(b)).
func combine(sa float64, a lin, sb float64, b lin) lin {
	out := lin{ids: make([]int, 0, len(a.ids)+len(b.ids)), coefs: make([]float64, 0, len(a.ids)+len(b.ids)),
		c: sa*a.c + sb*b.c}
	for k, id := range a.ids {
		out.ids = append(out.ids, id)
		out.coefs = append(out.coefs, sa*a.coefs[k])
	}
	for k, id := range b.ids {
		out.ids = append(out.ids, id)
		out.coefs = append(out.coefs, sb*b.coefs[k])
	}
	if a.d != nil || b.d != nil {
		out.d = combineJets(sa, a, sb, b)
	}
	return out.norm()
}

// weighted is Σ_k w[k]·terms(k) (the jets' DotConst; Sum with w = nil).
func weighted(n int, w []float64, terms func(k int) lin) lin {
	var out lin
	for k := 0; k < n; k++ {
		t := terms(k)
		wk := 1.0
		if w != nil {
			wk = w[k]
		}
		if t.d != nil || out.d != nil {
			out.d = addJets(out, wk, t)
		}
		out.c += wk * t.c
		for j, id := range t.ids {
			out.ids = append(out.ids, id)
			if w == nil {
				out.coefs = append(out.coefs, t.coefs[j])
			} else {
				out.coefs = append(out.coefs, wk*t.coefs[j])
			}
		}
	}
	return out.norm()
}

// norm merges repeated variables (summing their coefficients in order) and
// drops zero coefficients.
func (a lin) norm() lin {
	if a.d != nil {
		return a.normJets()
	}
	if len(a.ids) <= 1 {
		if len(a.ids) == 1 && a.coefs[0] == 0 {
			return lin{c: a.c}
		}
		return a
	}
	out := lin{ids: make([]int, 0, len(a.ids)), coefs: make([]float64, 0, len(a.ids)), c: a.c}
	var at map[int]int
	if len(a.ids) > 16 {
		at = make(map[int]int, len(a.ids))
	}
	for k, id := range a.ids {
		j := -1
		if at != nil {
			if p, ok := at[id]; ok {
				j = p
			}
		} else {
			for p, q := range out.ids {
				if q == id {
					j = p
					break
				}
			}
		}
		if j >= 0 {
			out.coefs[j] += a.coefs[k]
			continue
		}
		if at != nil {
			at[id] = len(out.ids)
		}
		out.ids = append(out.ids, id)
		out.coefs = append(out.coefs, a.coefs[k])
	}
	n := 0
	for k := range out.ids {
		if out.coefs[k] != 0 {
			out.ids[n], out.coefs[n] = out.ids[k], out.coefs[k]
			n++
		}
	}
	out.ids, out.coefs = out.ids[:n], out.coefs[:n]
	return out
}

// finite reports whether every coefficient and the constant are finite.
func (a lin) finite() bool {
	if math.IsNaN(a.c) || math.IsInf(a.c, 0) {
		return false
	}
	for _, x := range a.coefs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// needAffineArg fails when x spans several latents: the non-affine
// function call (exp, abs, min, a loss) at `at` cannot take it.
func (c *compiler) needAffineArg(at ast.Node, x val) {
	if x.k == kSym && x.sym.lat < 0 {
		c.nonlinear(at, x)
	}
}

// affOf returns element access to v's elements as lins, with scalar
// broadcasting: numbers are constants; nil when v is a latent expression
// that is not affine.
func affOf(v val) func(k int) lin {
	switch v.k {
	case kNum, kBool:
		num := v.num
		if t := v.tan(); t != nil {
			return func(k int) lin { i := min(k, len(num)-1); return lin{c: num[i], d: t.constant(i)} }
		}
		return func(k int) lin { return constLin(num[min(k, len(num)-1)]) }
	case kSym:
		if v.sym.forms() == nil {
			return nil
		}
		if v.size() == 1 {
			f := v.sym.forms()
			return func(int) lin { return f(0) }
		}
		return v.sym.forms()
	}
	return nil
}

// affine2 is the lin of a binary operation on x and y, nil when the result
// is not affine: + and − of affine operands, and * and / by numbers.
func affine2(op ast.Op, x, y val) func(k int) lin {
	fx, fy := affOf(x), affOf(y)
	if fx == nil || fy == nil {
		return nil
	}
	switch op {
	case ast.OpAdd:
		return func(k int) lin { return combine(1, fx(k), 1, fy(k)) }
	case ast.OpSub:
		return func(k int) lin { return combine(1, fx(k), -1, fy(k)) }
	case ast.OpMul:
		switch {
		case x.k != kSym:
			return func(k int) lin { return fy(k).by(fx(k)) }
		case y.k != kSym:
			return func(k int) lin { return fx(k).by(fy(k)) }
		}
	case ast.OpDiv:
		if y.k != kSym {
			return func(k int) lin { return fx(k).by(fy(k).recip()) }
		}
	}
	return nil
}

// mixedLatents reports whether the sym operands involve more than one
// latent (or one of them already does), and otherwise their latent.
func mixedLatents(vs ...val) (lat int, mixed bool) {
	lat = -1
	for _, v := range vs {
		if v.k != kSym {
			continue
		}
		if v.sym.lat < 0 || (lat >= 0 && v.sym.lat != lat) {
			return -1, true
		}
		lat = v.sym.lat
	}
	return lat, false
}

// multiSym is an affine expression over several latents: it has lins and
// no jets (the jet path serves one latent).
// The latents of the operands vs are kept for messages.
func multiSym(shape []int, aff func(k int) lin, vs ...val) val {
	var lats []int
	for _, v := range vs {
		if v.k != kSym {
			continue
		}
		own := v.sym.lats
		if v.sym.lat >= 0 {
			own = []int{v.sym.lat}
		}
		for _, l := range own {
			if !slices.Contains(lats, l) {
				lats = append(lats, l)
			}
		}
	}
	return val{k: kSym, shape: shape, sym: &sym{lat: -1, lats: lats, exprs: true, aff: aff}}
}

// nonlinear fails on an expression over several latents that is not
// affine; a discrete operand gets the discrete-arithmetic message.
func (c *compiler) nonlinear(at ast.Node, vs ...val) {
	var names []string
	for _, v := range vs {
		if v.k != kSym {
			continue
		}
		if v.sym.lat >= 0 {
			if l := &c.m.Graph.Latents[v.sym.lat]; l.Domain != graph.Real {
				c.symFn(at, v)
			}
		}
		names = append(names, c.latentNames(v)...)
	}
	c.fail(at, "`%s` is not affine in the latents %s: an expression over several latents may only add, subtract and scale them by numbers (a·x + b·y + c); a nonlinear relation needs `factor exp(...)` (of one latent)",
		c.text(at), joinQuoted(dedup(names)))
}

// latentNames lists the latents a latent expression involves.
func (c *compiler) latentNames(v val) []string {
	lats := v.sym.lats
	if v.sym.lat >= 0 {
		lats = []int{v.sym.lat}
	}
	out := make([]string, len(lats))
	for i, l := range lats {
		out[i] = c.m.Graph.Latents[l].Name
	}
	return out
}

func dedup(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// mentionsLatent reports whether expression e names a latent (outside the
// names of named arguments).
func (c *compiler) mentionsLatent(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.NamedArg:
			found = c.mentionsLatent(n.Value)
			return false
		case *ast.Ident:
			if b := c.resolved(n); b != nil && b.kind == bLatent && !b.poisoned {
				found = true
			}
		}
		return true
	})
	return found
}
