package exact

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/gauss"
)

// frame is an affine whitening w = c + L u with L lower triangular
// (L Lᵀ = Σ), and the Gaussian N(c, Σ) it defines.
type frame struct {
	d      int
	c      []float64
	l      []float64 // d×d row-major, lower triangle used
	logDet float64   // log |det L| = Σ log L_ii
	jitter float64   // δ: L Lᵀ = cov + δI (gauss.CholeskyJitter), 0 unless cov is numerically singular
}

// newFrame validates mean and cov and factors cov = L Lᵀ by Cholesky (with
// the jitter of gauss.CholeskyJitter when cov is numerically singular, as
// infer/mcmc does).
func newFrame(mean []float64, cov *mat.SymDense) (*frame, error) {
	d := len(mean)
	if d == 0 {
		return nil, errors.New("exact: empty mean (dimension 0)")
	}
	if cov == nil {
		return nil, errors.New("exact: nil covariance")
	}
	if n := cov.SymmetricDim(); n != d {
		return nil, fmt.Errorf("exact: mean has length %d but covariance is %d×%d", d, n, n)
	}
	for i, v := range mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("exact: mean[%d] = %v", i, v)
		}
	}
	lt, jitter, err := gauss.CholeskyJitter(cov)
	if err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	f := &frame{d: d, c: append([]float64(nil), mean...), l: make([]float64, d*d), jitter: jitter}
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			f.l[i*d+j] = lt.At(i, j)
		}
		f.logDet += math.Log(f.l[i*d+i])
	}
	return f, nil
}

// toW sets w = c + L u.
func (f *frame) toW(u, w []float64) {
	d := f.d
	for i := 0; i < d; i++ {
		s := f.c[i]
		for j := 0; j <= i; j++ {
			s += f.l[i*d+j] * u[j]
		}
		w[i] = s
	}
}

// toU solves L u = w − c by forward substitution (no inverse is formed).
func (f *frame) toU(w, u []float64) {
	d := f.d
	for i := 0; i < d; i++ {
		s := w[i] - f.c[i]
		for j := 0; j < i; j++ {
			s -= f.l[i*d+j] * u[j]
		}
		u[i] = s / f.l[i*d+i]
	}
}

// logDensity is log N(w; c, L Lᵀ); u is scratch of length d.
func (f *frame) logDensity(w, u []float64) float64 {
	f.toU(w, u)
	q := 0.0
	for _, v := range u {
		q += v * v
	}
	return -0.5*q - f.logDet - 0.5*float64(f.d)*math.Log(2*math.Pi)
}

// lMat returns L as a dense matrix.
func (f *frame) lMat() *mat.Dense {
	return mat.NewDense(f.d, f.d, append([]float64(nil), f.l...))
}

// momentsToW maps moments in u (mean mu, covariance cu) to w:
// mean c + L mu and covariance L cu Lᵀ.
func (f *frame) momentsToW(mu []float64, cu *mat.SymDense) ([]float64, *mat.SymDense) {
	mean := make([]float64, f.d)
	f.toW(mu, mean)
	l := f.lMat()
	var t mat.Dense
	t.Mul(l, cu)
	var full mat.Dense
	full.Mul(&t, l.T())
	cov := mat.NewSymDense(f.d, nil)
	for i := 0; i < f.d; i++ {
		for j := i; j < f.d; j++ {
			cov.SetSym(i, j, 0.5*(full.At(i, j)+full.At(j, i)))
		}
	}
	return mean, cov
}
