package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Linear is the dot-product kernel k(x, y) = Var·xᵀy. GPML's covLINiso
// [log ell] is Linear{Var: 1/ell²}. Hyper: [log Var].
type Linear struct{ Var float64 }

// NewLinear returns Linear{v}; ok is false unless v > 0.
func NewLinear(v float64) (Kernel, bool) { return Linear{v}, positive(v) }

func (k Linear) Eval(x, y []float64) float64 { return k.Var * dot(x, y) }
func (k Linear) evalGrad(x, y, g []float64) float64 {
	v := k.Eval(x, y)
	g[0] = v
	return v
}
func (k Linear) Matrix(X *mat.Dense) *mat.SymDense {
	n, _ := X.Dims()
	K := mat.NewSymDense(n, nil)
	K.SymOuterK(k.Var, X)
	return K
}
func (k Linear) Cross(X, Z *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	m, _ := Z.Dims()
	C := mat.NewDense(n, m, nil)
	C.Mul(X, Z.T())
	C.Scale(k.Var, C)
	return C
}
func (k Linear) Hyper() []float64     { return []float64{math.Log(k.Var)} }
func (k Linear) HyperNames() []string { return []string{"log_var"} }
func (k Linear) WithHyper(h []float64) (Kernel, error) {
	if err := checkHyper(h, 1); err != nil {
		return nil, err
	}
	return Linear{math.Exp(h[0])}, nil
}
func (k Linear) Grad(X *mat.Dense) []*mat.SymDense { return []*mat.SymDense{k.Matrix(X)} }
func (k Linear) String() string                    { return fmt.Sprintf("linear(var = %g)", k.Var) }

// Bias is the constant kernel k(x, y) = Var. Hyper: [log Var].
type Bias struct{ Var float64 }

// NewBias returns Bias{v}; ok is false unless v > 0.
func NewBias(v float64) (Kernel, bool) { return Bias{v}, positive(v) }

func (k Bias) Eval(x, y []float64) float64 { return k.Var }
func (k Bias) evalGrad(x, y, g []float64) float64 {
	g[0] = k.Var
	return k.Var
}
func (k Bias) Matrix(X *mat.Dense) *mat.SymDense { return matrixOf(k, X) }
func (k Bias) Cross(X, Z *mat.Dense) *mat.Dense  { return crossOf(k, X, Z) }
func (k Bias) Hyper() []float64                  { return []float64{math.Log(k.Var)} }
func (k Bias) HyperNames() []string              { return []string{"log_var"} }
func (k Bias) Grad(X *mat.Dense) []*mat.SymDense { return gradOf(k, X) }
func (k Bias) String() string                    { return fmt.Sprintf("bias(var = %g)", k.Var) }
func (k Bias) WithHyper(h []float64) (Kernel, error) {
	if err := checkHyper(h, 1); err != nil {
		return nil, err
	}
	return Bias{math.Exp(h[0])}, nil
}

// White is independent noise: k(x, y) = Var when x and y are the same input.
// In a Gram matrix that is the diagonal (K = Var·I, GPML's covNoise); in a
// cross matrix between training and test inputs it is zero. Eval compares the
// vectors element-wise. Hyper: [log Var].
type White struct{ Var float64 }

// NewWhite returns White{v}; ok is false unless v > 0.
func NewWhite(v float64) (Kernel, bool) { return White{v}, positive(v) }

func (k White) Eval(x, y []float64) float64 {
	for i := range x {
		if x[i] != y[i] {
			return 0
		}
	}
	return k.Var
}
func (k White) Matrix(X *mat.Dense) *mat.SymDense {
	n, _ := X.Dims()
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		K.SetSym(i, i, k.Var)
	}
	return K
}
func (k White) Cross(X, Z *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	m, _ := Z.Dims()
	return mat.NewDense(n, m, nil)
}
func (k White) Hyper() []float64                  { return []float64{math.Log(k.Var)} }
func (k White) HyperNames() []string              { return []string{"log_var"} }
func (k White) Grad(X *mat.Dense) []*mat.SymDense { return []*mat.SymDense{k.Matrix(X)} }
func (k White) String() string                    { return fmt.Sprintf("white(var = %g)", k.Var) }
func (k White) WithHyper(h []float64) (Kernel, error) {
	if err := checkHyper(h, 1); err != nil {
		return nil, err
	}
	return White{math.Exp(h[0])}, nil
}
