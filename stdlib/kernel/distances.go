package kernel

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Distances are the squared Euclidean distances ‖x_i − x_j‖² between the
// rows of X (upper triangle). An isotropic stationary kernel (se,
// matern32, matern52) depends on a pair of inputs only through
// ‖x − y‖²/ℓ², so these numbers, computed once, serve the Gram matrix and
// its derivatives at every new value of the hyperparameters — evidence
// maximisation evaluates the kernel on the same inputs ten or more times.
type Distances struct {
	x *mat.Dense
	d []float64 // n×n, upper triangle, d[i*n+j] = sqDist(x_i, x_j)
}

// NewDistances computes the squared distances between the rows of X
// (n(n+1)/2 of them, stored in n² floats).
func NewDistances(X *mat.Dense) *Distances {
	n, _ := X.Dims()
	d := make([]float64, n*n)
	for i := 0; i < n; i++ {
		xi := X.RawRowView(i)
		for j := i; j < n; j++ {
			d[i*n+j] = sqDist(xi, X.RawRowView(j))
		}
	}
	return &Distances{x: X, d: d}
}

// Of reports whether d holds the distances of X: the same matrix, or one
// with the same dimensions and elements.
func (d *Distances) Of(X *mat.Dense) bool {
	if d == nil {
		return false
	}
	return d.x == X || mat.Equal(d.x, X)
}

// isotropic is a pair kernel that depends on its inputs only through
// their squared distance: evalGradSq is evalGrad given sqDist(x, y), with
// the same operations (so the same numbers, bit for bit).
type isotropic interface {
	pair
	evalGradSq(d2 float64, g []float64) float64
}

func (k SE) evalGradSq(d2 float64, g []float64) float64 {
	r2 := d2 / (k.Lengthscale * k.Lengthscale)
	v := k.Var * math.Exp(-0.5*r2)
	g[0], g[1] = v*r2, v
	return v
}

func (k Matern32) evalGradSq(d2 float64, g []float64) float64 {
	s := math.Sqrt(3*d2) / k.Lengthscale
	ex := math.Exp(-s)
	v := k.Var * (1 + s) * ex // as Eval
	g[0], g[1] = s*s*(k.Var*ex), v
	return v
}

func (k Matern52) evalGradSq(d2 float64, g []float64) float64 {
	s := math.Sqrt(5*d2) / k.Lengthscale
	ex := math.Exp(-s)
	v := k.Var * (1 + s + s*s/3) * ex // as Eval
	g[0], g[1] = s*s*(1+s)/3*(k.Var*ex), v
	return v
}

// GramGrad is storage for a Gram matrix and its derivatives that
// MatrixGradDist may write over (a Gram matrix of an earlier evaluation
// that is no longer used).
type GramGrad struct {
	K     *mat.SymDense
	Grads []*mat.SymDense
}

// sym returns m when it is n×n, else a new n×n matrix.
func sym(m *mat.SymDense, n int) *mat.SymDense {
	if m != nil && m.SymmetricDim() == n {
		return m
	}
	return mat.NewSymDense(n, nil)
}

// MatrixGradDist is MatrixGrad(k, X) with the squared distances of X taken
// from d (d.Of(X) must hold) when k is se, matern32 or matern52; other
// kernels (and a d of other inputs) go to MatrixGrad. The results are
// MatrixGrad's bit for bit. When reuse is non-nil, its matrices of the
// right size are written over and returned instead of new ones (the
// distance path only).
func MatrixGradDist(k Kernel, X *mat.Dense, d *Distances, reuse *GramGrad) (*mat.SymDense, []*mat.SymDense) {
	iso, ok := k.(isotropic)
	if !ok || !d.Of(X) {
		return MatrixGrad(k, X)
	}
	if reuse == nil {
		reuse = &GramGrad{}
	}
	n, _ := X.Dims()
	K := sym(reuse.K, n)
	out := make([]*mat.SymDense, 2)
	for j := range out {
		var m *mat.SymDense
		if j < len(reuse.Grads) {
			m = reuse.Grads[j]
		}
		out[j] = sym(m, n)
	}
	kr, g0, g1 := K.RawSymmetric().Data, out[0].RawSymmetric().Data, out[1].RawSymmetric().Data
	var g [2]float64
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			at := i*n + j
			kr[at] = iso.evalGradSq(d.d[at], g[:])
			g0[at], g1[at] = g[0], g[1]
		}
	}
	return K, out
}
