package compile

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/lang/ast"
)

// kernelCall builds a KernelSpec. Hyper holds the hyperparameters in
// registry order (se, matern32, matern52: lengthscale, variance; linear:
// lengthscale; ard: lengthscale_1..lengthscale_D, variance; bias, white:
// variance). HyperParams[i] names the param an argument was, when it is a
// bare param name (so `learn` can map params to hyperparameters).
func (c *compiler) kernelCall(a *args) val {
	k := &KernelSpec{Kind: a.b.Name}
	addHyper := func(i int, x float64) {
		k.Hyper = append(k.Hyper, x)
		k.HyperParams = append(k.HyperParams, c.paramName(a.expr(i)))
	}
	switch a.b.Name {
	case "linear":
		addHyper(0, a.positive(0, 1))
	case "se", "matern32", "matern52":
		addHyper(0, a.positive(0, 1))
		addHyper(1, a.positive(1, 1))
	case "ard":
		ls, _ := a.val(0)
		if ls.k != kNum || len(ls.shape) != 1 || len(ls.num) == 0 {
			c.fail(a.at(0), "ard: lengthscales must be a non-empty vector, got %s", ls.describe())
		}
		for _, x := range ls.num {
			if !(x > 0) || math.IsInf(x, 0) {
				c.fail(a.at(0), "ard: lengthscales must be > 0, got %s", fmtNum(x))
			}
			k.Hyper = append(k.Hyper, x)
			k.HyperParams = append(k.HyperParams, "")
		}
		addHyper(1, a.positive(1, 1))
	case "bias", "white":
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
	if b, ok := c.lookup(id.Name); ok && b.kind == bParam {
		return id.Name
	}
	return ""
}

// kernelArith is k1 + k2, k1 * k2 and c * k (= bias(c) * k).
func (c *compiler) kernelArith(e *ast.BinaryExpr, x, y val) val {
	toK := func(v val, at ast.Expr) KernelSpec {
		if v.k == kKernel {
			return *v.kern
		}
		if v.isScalar() && v.k == kNum && e.Op == ast.OpMul && v.num[0] >= 0 {
			return KernelSpec{Kind: "bias", Hyper: []float64{v.num[0]}, HyperParams: []string{c.paramName(at)}}
		}
		c.fail(at, "kernels combine with + and * (or a non-negative number * kernel), got %s", v.describe())
		return KernelSpec{}
	}
	kx, ky := toK(x, e.X), toK(y, e.Y)
	switch e.Op {
	case ast.OpAdd:
		return val{k: kKernel, kern: &KernelSpec{Kind: "sum", Args: []KernelSpec{kx, ky}}}
	case ast.OpMul:
		return val{k: kKernel, kern: &KernelSpec{Kind: "prod", Args: []KernelSpec{kx, ky}}}
	}
	c.fail(e, "kernels combine with + and *, not %s", e.Op)
	return val{}
}

// Eval returns k(x, y) for two input rows; same says whether they are the
// same training point (for white noise).
func (k *KernelSpec) Eval(x, y []float64, same bool) float64 {
	switch k.Kind {
	case "linear":
		return dot(x, y) / (k.Hyper[0] * k.Hyper[0])
	case "se":
		return k.Hyper[1] * math.Exp(-sqdist(x, y, nil)/(2*k.Hyper[0]*k.Hyper[0]))
	case "ard":
		d := len(k.Hyper) - 1
		return k.Hyper[d] * math.Exp(-sqdist(x, y, k.Hyper[:d])/2)
	case "matern32":
		r := math.Sqrt(3*sqdist(x, y, nil)) / k.Hyper[0]
		return k.Hyper[1] * (1 + r) * math.Exp(-r)
	case "matern52":
		r := math.Sqrt(5*sqdist(x, y, nil)) / k.Hyper[0]
		return k.Hyper[1] * (1 + r + r*r/3) * math.Exp(-r)
	case "bias":
		return k.Hyper[0]
	case "white":
		if same {
			return k.Hyper[0]
		}
		return 0
	case "sum":
		return k.Args[0].Eval(x, y, same) + k.Args[1].Eval(x, y, same)
	case "prod":
		return k.Args[0].Eval(x, y, same) * k.Args[1].Eval(x, y, same)
	}
	return math.NaN()
}

// Gram returns K[i, j] = k(X[i], X[j]).
func (k *KernelSpec) Gram(X *mat.Dense) *mat.SymDense {
	n, _ := X.Dims()
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			K.SetSym(i, j, k.Eval(X.RawRowView(i), X.RawRowView(j), i == j))
		}
	}
	return K
}

// Cross returns K[i, j] = k(A[i], B[j]) (white noise contributes nothing
// between distinct point sets).
func (k *KernelSpec) Cross(A, B *mat.Dense) *mat.Dense {
	na, _ := A.Dims()
	nb, _ := B.Dims()
	K := mat.NewDense(na, nb, nil)
	for i := 0; i < na; i++ {
		for j := 0; j < nb; j++ {
			K.Set(i, j, k.Eval(A.RawRowView(i), B.RawRowView(j), false))
		}
	}
	return K
}

func dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// sqdist is Σ_d ((x_d − y_d)/ℓ_d)², with ℓ_d = 1 when ls is nil.
func sqdist(x, y, ls []float64) float64 {
	s := 0.0
	for i := range x {
		d := x[i] - y[i]
		if ls != nil {
			d /= ls[i]
		}
		s += d * d
	}
	return s
}

// kernelDims checks ard's lengthscales against the input dimension.
func (c *compiler) kernelDims(at ast.Node, k *KernelSpec, d int) {
	if k.Kind == "ard" && len(k.Hyper)-1 != d {
		c.fail(at, "ard has %d lengthscales but the inputs have %d columns", len(k.Hyper)-1, d)
	}
	for i := range k.Args {
		c.kernelDims(at, &k.Args[i], d)
	}
}
