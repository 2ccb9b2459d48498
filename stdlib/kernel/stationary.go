package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SE is the squared-exponential kernel
//
//	k(x, y) = Var · exp(−|x − y|² / (2 Lengthscale²))
//
// GPML's covSEiso [log ell, log sf] is SE{ell, sf²}.
// Hyper: [log Lengthscale, log Var]; ∂k/∂log ℓ = k·r²/ℓ², ∂k/∂log Var = k.
type SE struct{ Lengthscale, Var float64 }

// NewSE returns SE{ell, v}; ok is false unless both are positive.
func NewSE(ell, v float64) (Kernel, bool) { return SE{ell, v}, positive(ell, v) }

func (k SE) Eval(x, y []float64) float64 {
	return k.Var * math.Exp(-0.5*sqDist(x, y)/(k.Lengthscale*k.Lengthscale))
}
func (k SE) evalGrad(x, y, g []float64) float64 { return k.evalGradSq(sqDist(x, y), g) }
func (k SE) Matrix(X *mat.Dense) *mat.SymDense  { return matrixOf(k, X) }
func (k SE) Cross(X, Z *mat.Dense) *mat.Dense   { return crossOf(k, X, Z) }
func (k SE) Hyper() []float64 {
	return []float64{math.Log(k.Lengthscale), math.Log(k.Var)}
}
func (k SE) HyperNames() []string              { return []string{"log_lengthscale", "log_var"} }
func (k SE) Grad(X *mat.Dense) []*mat.SymDense { return gradOf(k, X) }
func (k SE) String() string {
	return fmt.Sprintf("se(lengthscale = %g, var = %g)", k.Lengthscale, k.Var)
}
func (k SE) WithHyper(h []float64) (Kernel, error) {
	if err := checkHyper(h, 2); err != nil {
		return nil, err
	}
	return SE{math.Exp(h[0]), math.Exp(h[1])}, nil
}

// ARD is the squared-exponential kernel with one lengthscale per input
// dimension (automatic relevance determination, GPML's covSEard):
//
//	k(x, y) = Var · exp(−½ Σ_d (x_d − y_d)² / ℓ_d²)
//
// Hyper: [log ℓ_1, ..., log ℓ_D, log Var]; ∂k/∂log ℓ_d = k·(x_d − y_d)²/ℓ_d².
type ARD struct {
	Lengthscales []float64
	Var          float64
}

// NewARD returns ARD{ells, v}; ok is false unless every value is positive.
func NewARD(ells []float64, v float64) (Kernel, bool) {
	return ARD{append([]float64(nil), ells...), v}, len(ells) > 0 && positive(append(ells, v)...)
}

func (k ARD) Eval(x, y []float64) float64 {
	var s float64
	for d, l := range k.Lengthscales {
		t := (x[d] - y[d]) / l
		s += t * t
	}
	return k.Var * math.Exp(-0.5*s)
}
func (k ARD) evalGrad(x, y, g []float64) float64 {
	var s float64
	for d, l := range k.Lengthscales {
		t := (x[d] - y[d]) / l
		g[d] = t * t
		s += t * t
	}
	v := k.Var * math.Exp(-0.5*s)
	for d := range k.Lengthscales {
		g[d] *= v
	}
	g[len(k.Lengthscales)] = v
	return v
}
func (k ARD) Matrix(X *mat.Dense) *mat.SymDense { return matrixOf(k, X) }
func (k ARD) Cross(X, Z *mat.Dense) *mat.Dense  { return crossOf(k, X, Z) }
func (k ARD) Hyper() []float64 {
	h := make([]float64, 0, len(k.Lengthscales)+1)
	for _, l := range k.Lengthscales {
		h = append(h, math.Log(l))
	}
	return append(h, math.Log(k.Var))
}
func (k ARD) HyperNames() []string {
	names := make([]string, 0, len(k.Lengthscales)+1)
	for d := range k.Lengthscales {
		names = append(names, fmt.Sprintf("log_lengthscale[%d]", d))
	}
	return append(names, "log_var")
}
func (k ARD) Grad(X *mat.Dense) []*mat.SymDense { return gradOf(k, X) }
func (k ARD) String() string {
	return fmt.Sprintf("ard(lengthscales = %v, var = %g)", k.Lengthscales, k.Var)
}
func (k ARD) WithHyper(h []float64) (Kernel, error) {
	if err := checkHyper(h, len(k.Lengthscales)+1); err != nil {
		return nil, err
	}
	ells := make([]float64, len(k.Lengthscales))
	for d := range ells {
		ells[d] = math.Exp(h[d])
	}
	return ARD{ells, math.Exp(h[len(ells)])}, nil
}

// Matern32 is the Matérn ν = 3/2 kernel, with s = √3·|x − y|/ℓ:
//
//	k = Var·(1 + s)·e^(−s),   ∂k/∂log ℓ = Var·s²·e^(−s).
//
// Hyper: [log Lengthscale, log Var].
type Matern32 struct{ Lengthscale, Var float64 }

// NewMatern32 returns Matern32{ell, v}; ok is false unless both are positive.
func NewMatern32(ell, v float64) (Kernel, bool) { return Matern32{ell, v}, positive(ell, v) }

func (k Matern32) Eval(x, y []float64) float64 {
	s := math.Sqrt(3*sqDist(x, y)) / k.Lengthscale
	return k.Var * (1 + s) * math.Exp(-s)
}
func (k Matern32) evalGrad(x, y, g []float64) float64 { return k.evalGradSq(sqDist(x, y), g) }
func (k Matern32) Matrix(X *mat.Dense) *mat.SymDense  { return matrixOf(k, X) }
func (k Matern32) Cross(X, Z *mat.Dense) *mat.Dense   { return crossOf(k, X, Z) }
func (k Matern32) Hyper() []float64 {
	return []float64{math.Log(k.Lengthscale), math.Log(k.Var)}
}
func (k Matern32) HyperNames() []string              { return []string{"log_lengthscale", "log_var"} }
func (k Matern32) Grad(X *mat.Dense) []*mat.SymDense { return gradOf(k, X) }
func (k Matern32) String() string {
	return fmt.Sprintf("matern32(lengthscale = %g, var = %g)", k.Lengthscale, k.Var)
}
func (k Matern32) WithHyper(h []float64) (Kernel, error) {
	if err := checkHyper(h, 2); err != nil {
		return nil, err
	}
	return Matern32{math.Exp(h[0]), math.Exp(h[1])}, nil
}

// Matern52 is the Matérn ν = 5/2 kernel, with s = √5·|x − y|/ℓ:
//
//	k = Var·(1 + s + s²/3)·e^(−s),   ∂k/∂log ℓ = Var·s²(1 + s)/3·e^(−s).
//
// Hyper: [log Lengthscale, log Var].
type Matern52 struct{ Lengthscale, Var float64 }

// NewMatern52 returns Matern52{ell, v}; ok is false unless both are positive.
func NewMatern52(ell, v float64) (Kernel, bool) { return Matern52{ell, v}, positive(ell, v) }

func (k Matern52) Eval(x, y []float64) float64 {
	s := math.Sqrt(5*sqDist(x, y)) / k.Lengthscale
	return k.Var * (1 + s + s*s/3) * math.Exp(-s)
}
func (k Matern52) evalGrad(x, y, g []float64) float64 { return k.evalGradSq(sqDist(x, y), g) }
func (k Matern52) Matrix(X *mat.Dense) *mat.SymDense  { return matrixOf(k, X) }
func (k Matern52) Cross(X, Z *mat.Dense) *mat.Dense   { return crossOf(k, X, Z) }
func (k Matern52) Hyper() []float64 {
	return []float64{math.Log(k.Lengthscale), math.Log(k.Var)}
}
func (k Matern52) HyperNames() []string              { return []string{"log_lengthscale", "log_var"} }
func (k Matern52) Grad(X *mat.Dense) []*mat.SymDense { return gradOf(k, X) }
func (k Matern52) String() string {
	return fmt.Sprintf("matern52(lengthscale = %g, var = %g)", k.Lengthscale, k.Var)
}
func (k Matern52) WithHyper(h []float64) (Kernel, error) {
	if err := checkHyper(h, 2); err != nil {
		return nil, err
	}
	return Matern52{math.Exp(h[0]), math.Exp(h[1])}, nil
}
