// Package kernel holds covariance functions (kernels) for Gaussian-process
// and Bayesian linear blocks: linear, squared exponential (se), ARD squared
// exponential, Matérn 3/2 and 5/2, bias, white noise, and their sums and
// products.
//
// Every kernel is a value type with exported, positive hyperparameters and a
// validating constructor returning (Kernel, bool). Hyperparameters are
// exchanged with optimisers on the log scale, as in GPML: Hyper returns
// h = log θ, WithHyper builds the kernel at new log values, and Grad returns
// the Gram-matrix derivatives ∂K/∂h_j, which evidence maximisation needs
// (GPML's covariance functions with the "derivative" argument).
//
// GPML mapping (the reference runs in data/reference/gpml):
//
//	covSEiso  [log ell, log sf]:  k = sf² exp(−|x−x'|²/(2 ell²))  = SE{Lengthscale: ell, Var: sf²}
//	covLINiso [log ell]:          k = xᵀx'/ell²                    = Linear{Var: 1/ell²}
//
// FromGPML builds these from GPML's log hyperparameter vectors.
package kernel

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Kernel is a positive semi-definite covariance function k(x, y) on R^D.
type Kernel interface {
	// Eval returns k(x, y).
	Eval(x, y []float64) float64
	// Matrix returns the Gram matrix K_ij = k(x_i, x_j) of the rows of X.
	Matrix(X *mat.Dense) *mat.SymDense
	// Cross returns the n×m matrix k(x_i, z_j) between the rows of X and Z.
	// Noise kernels (White) contribute zero to cross covariances.
	Cross(X, Z *mat.Dense) *mat.Dense
	// Hyper returns the log hyperparameters h = log θ.
	Hyper() []float64
	// HyperNames names the entries of Hyper, e.g. "log_lengthscale".
	HyperNames() []string
	// WithHyper returns the same kernel with log hyperparameters h; it fails
	// when len(h) is wrong or a value is not finite.
	WithHyper(h []float64) (Kernel, error)
	// Grad returns ∂K/∂h_j for every log hyperparameter h_j, as Gram matrices
	// over the rows of X.
	Grad(X *mat.Dense) []*mat.SymDense
	fmt.Stringer
}

// pair is a kernel defined pointwise: its Gram matrix, cross matrix and
// gradients are assembled from eval and evalGrad.
type pair interface {
	Eval(x, y []float64) float64
	// evalGrad returns k(x, y) and writes ∂k/∂h_j into g.
	evalGrad(x, y, g []float64) float64
	Hyper() []float64
}

func matrixOf(k pair, X *mat.Dense) *mat.SymDense {
	n, _ := X.Dims()
	K := mat.NewSymDense(n, nil)
	raw := K.RawSymmetric()
	for i := 0; i < n; i++ {
		xi, row := X.RawRowView(i), raw.Data[i*raw.Stride:]
		for j := i; j < n; j++ {
			row[j] = k.Eval(xi, X.RawRowView(j))
		}
	}
	return K
}

func crossOf(k pair, X, Z *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	m, _ := Z.Dims()
	C := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		xi := X.RawRowView(i)
		row := C.RawRowView(i)
		for j := 0; j < m; j++ {
			row[j] = k.Eval(xi, Z.RawRowView(j))
		}
	}
	return C
}

func gradOf(k pair, X *mat.Dense) []*mat.SymDense {
	_, g := matrixGradOf(k, X, false)
	return g
}

// matrixGradOf returns ∂K/∂h_j for every log hyperparameter of k and, when
// gram is set, the Gram matrix K, from one evalGrad per pair of rows.
func matrixGradOf(k pair, X *mat.Dense, gram bool) (*mat.SymDense, []*mat.SymDense) {
	n, _ := X.Dims()
	p := len(k.Hyper())
	out := make([]*mat.SymDense, p)
	rows := make([][]float64, p)
	for j := range out {
		out[j] = mat.NewSymDense(n, nil)
	}
	var K *mat.SymDense
	var krow []float64
	if gram {
		K = mat.NewSymDense(n, nil)
	}
	g := make([]float64, p)
	for i := 0; i < n; i++ {
		for j, o := range out {
			raw := o.RawSymmetric()
			rows[j] = raw.Data[i*raw.Stride:]
		}
		if gram {
			raw := K.RawSymmetric()
			krow = raw.Data[i*raw.Stride:]
		}
		xi := X.RawRowView(i)
		for l := i; l < n; l++ {
			v := k.evalGrad(xi, X.RawRowView(l), g)
			for j, r := range rows {
				r[l] = g[j]
			}
			if gram {
				krow[l] = v
			}
		}
	}
	return K, out
}

// MatrixGrad returns k.Matrix(X) and k.Grad(X) together: for a kernel
// defined pointwise (se, ard, matern, bias) each pair of rows is
// evaluated once for both (one exponential for se instead of two), and
// sums and products combine their terms' as Matrix and Grad do. The
// results are equal bit for bit to the two calls (evalGrad returns the
// value Eval computes, by the same operations).
func MatrixGrad(k Kernel, X *mat.Dense) (*mat.SymDense, []*mat.SymDense) {
	switch k := k.(type) {
	case Linear: // Matrix is one product XXᵀ, not pointwise
	case pair:
		return matrixGradOf(k, X, true)
	case Sum:
		return k.matrixGrad(X)
	case Prod:
		return k.matrixGrad(X)
	}
	return k.Matrix(X), k.Grad(X)
}

func checkHyper(h []float64, want int) error {
	if len(h) != want {
		return fmt.Errorf("kernel: %d hyperparameters given, want %d", len(h), want)
	}
	for _, v := range h {
		if v != v || v > 700 || v < -700 {
			return fmt.Errorf("kernel: log hyperparameter %g out of range", v)
		}
	}
	return nil
}

func positive(vs ...float64) bool {
	for _, v := range vs {
		if !(v > 0) || v > 1e300 {
			return false
		}
	}
	return true
}

func sqDist(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		d := xi - y[i]
		s += d * d
	}
	return s
}

func dot(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		s += xi * y[i]
	}
	return s
}
