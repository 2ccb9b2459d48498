package compile

import (
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// kernelCall builds a KernelSpec. Hyper holds the hyperparameters in
// registry order (se, matern32, matern52: lengthscale, variance; linear:
// lengthscale; ard: lengthscale_1..lengthscale_D, variance; bias, white:
// variance). HyperParams[i] names the param an argument was, when it is a
// bare param name (so `learn` can map params to hyperparameters).
func (c *compiler) kernelCall(a *args) val {
	kind, _ := kernel.KindOf(a.b.Name) // every builtin of stdlib.Kernel is a kernel.Kind
	k := &graph.KernelSpec{Kind: kind}
	addHyper := func(i int, x float64) {
		k.Hyper = append(k.Hyper, x)
		k.HyperParams = append(k.HyperParams, c.paramName(a.expr(i)))
		c.hyperJets(k, a, i, 1)
	}
	switch kind {
	case kernel.KindLinear:
		addHyper(0, a.positive(0, 1))
	case kernel.KindSE, kernel.KindMatern32, kernel.KindMatern52:
		addHyper(0, a.positive(0, 1))
		addHyper(1, a.positive(1, 1))
	case kernel.KindARD:
		ls, _ := a.val(0)
		if ls.k != kNum || len(ls.shape) != 1 || len(ls.num) == 0 {
			c.fail(a.at(0), "ard: lengthscales must be a non-empty vector, got %s", ls.describe())
		}
		c.notePositive(a.expr(0))
		for _, x := range ls.num {
			if !(x > 0) || math.IsInf(x, 0) {
				c.fail(a.at(0), "ard: lengthscales must be > 0, got %s", fmtNum(x))
			}
			k.Hyper = append(k.Hyper, x)
			k.HyperParams = append(k.HyperParams, "")
		}
		c.hyperJets(k, a, 0, 1)
		addHyper(1, a.positive(1, 1))
	case kernel.KindBias, kernel.KindWhite:
		v := a.num(0, 1)
		if v < 0 {
			c.fail(a.at(0), "%s: variance must be ≥ 0, got %s", a.b.Name, fmtNum(v))
		}
		addHyper(0, v)
	}
	return val{k: kKernel, kern: k}
}

// paramName returns the name of a param when e is a bare identifier naming one.
func (c *compiler) paramName(e ast.Expr) string {
	id, ok := e.(*ast.Ident)
	if !ok {
		return ""
	}
	if b := c.resolved(id); b != nil && b.kind == bParam {
		return id.Name
	}
	return ""
}

// kernelArith is k1 + k2, k1 * k2 and c * k (= bias(c) * k).
func (c *compiler) kernelArith(e *ast.BinaryExpr, x, y val) val {
	toK := func(v val, at ast.Expr) graph.KernelSpec {
		if v.k == kKernel {
			return *v.kern
		}
		if v.isScalar() && v.k == kNum && e.Op == ast.OpMul && v.num[0] >= 0 {
			k := graph.KernelSpec{Kind: kernel.KindBias, Hyper: []float64{v.num[0]}, HyperParams: []string{c.paramName(at)}}
			if c.jet != nil {
				k.Jets = appendJets(nil, c.tangentsOf(at, v), 1)
			}
			return k
		}
		c.fail(at, "kernels combine with + and * (or a non-negative number * kernel), got %s", v.describe())
		return graph.KernelSpec{}
	}
	kx, ky := toK(x, e.X), toK(y, e.Y)
	switch e.Op {
	case ast.OpAdd:
		return val{k: kKernel, kern: &graph.KernelSpec{Kind: kernel.KindSum, Args: []graph.KernelSpec{kx, ky}}}
	case ast.OpMul:
		return val{k: kKernel, kern: &graph.KernelSpec{Kind: kernel.KindProd, Args: []graph.KernelSpec{kx, ky}}}
	}
	c.fail(e, "kernels combine with + and *, not %s", e.Op)
	return val{}
}

// kernelDims checks ard's lengthscales against the input dimension.
func (c *compiler) kernelDims(at ast.Node, k *graph.KernelSpec, d int) {
	if k.Kind == kernel.KindARD && len(k.Hyper)-1 != d {
		c.fail(at, "ard has %d lengthscales but the inputs have %d columns", len(k.Hyper)-1, d)
	}
	for i := range k.Args {
		c.kernelDims(at, &k.Args[i], d)
	}
}
