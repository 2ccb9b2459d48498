package ffep

import (
	"math"
	"sync"

	"github.com/fg-infer/fg/internal/mathx"
)

// Func1 is a one-dimensional log-factor log f(x) with its first and second
// derivatives (g and h may be 0 for the gh, gq and vq schemes, which use
// values only).
type Func1 func(x float64) (v, g, h float64)

// Moments are the moments of the (approximate) tilted distribution
// p̂(x) ∝ N(x; μ, σ²) f(x): log Z = log ∫ N(x; μ, σ²) f(x) dx, mean and variance.
type Moments struct {
	LogZ, Mean, Var float64
}

// Tilted1D returns the tilted moments of the factor f under the cavity
// N(mu, s2) by scheme s. It is the entry point for factors of one
// projection aᵀw in the full-covariance EP engine (infer/ep): the cavity of
// aᵀw is one-dimensional whatever the family of w. For Laplace, quick
// Laplace, GQ and VQ the moments are those of cavity × site (see the
// package comment); for gh(n) they are the Gauss–Hermite sums
//
//	Z ≈ Σ_k (w_k/√π) f(μ + √2 σ x_k),  mean and variance likewise,
//
// computed with log-sum-exp. Errors: ErrImproper (s2 ≤ 0 or a non-positive
// tilted variance), ErrNonFinite, ErrNoConvergence.
func Tilted1D(s Scheme, mu, s2 float64, f Func1) (Moments, error) {
	if !(s2 > 0) || !finite(s2) || !finite(mu) {
		return Moments{}, ErrImproper
	}
	w := workPool.Get().(*work)
	defer workPool.Put(w)
	sd := math.Sqrt(s2)
	m, sdv := []float64{mu}, []float64{sd}
	if err := w.compute(s, potential1(f), m, sdv); err != nil {
		return Moments{}, err
	}
	lz, err := w.s.logZ()
	if err != nil {
		return Moments{}, err
	}
	p := 1 - 2*w.s.B[0]
	return Moments{LogZ: lz, Mean: mu + sd*w.s.A[0]/p, Var: s2 / p}, nil
}

var workPool = sync.Pool{New: func() any { return newWork(1) }}

// potential1 adapts a Func1 to the Potential interface with d = 1.
type potential1 Func1

func (f potential1) LogF(w []float64) float64 {
	v, _, _ := f(w[0])
	return v
}

func (f potential1) Derivs(w, grad, hdiag []float64) float64 {
	v, g, h := f(w[0])
	grad[0], hdiag[0] = g, h
	return v
}

// gh1 sets the (one-coordinate) site from Gauss–Hermite moments with n nodes.
func (w *work) gh1(f Potential, mu, sd float64, n int) error {
	x, wt := hermite(n)
	lw := make([]float64, n)
	lmax := math.Inf(-1)
	for k := range x {
		w.theta[0] = mu + math.Sqrt2*sd*x[k]
		lw[k] = math.Log(wt[k]) + f.LogF(w.theta)
		if math.IsNaN(lw[k]) || math.IsInf(lw[k], 1) {
			return ErrNonFinite
		}
		lmax = math.Max(lmax, lw[k])
	}
	if math.IsInf(lmax, -1) {
		return ErrNonFinite
	}
	var z, mz float64
	for k := range x {
		lw[k] = math.Exp(lw[k] - lmax)
		z += lw[k]
		mz += lw[k] * math.Sqrt2 * x[k]
	}
	mz /= z
	var vz float64
	for k := range x {
		dz := math.Sqrt2*x[k] - mz
		vz += lw[k] * dz * dz
	}
	vz /= z
	t, err := w.s.fromMoments(0, mz, vz)
	if err != nil {
		return err
	}
	w.s.C0 = math.Log(z) + lmax - 0.5*math.Log(math.Pi) - t
	return nil
}

// hermite returns the n Gauss–Hermite nodes and weights (weight function
// e^{−x²}), the project's one table (mathx.Hermite).
func hermite(n int) (x, wt []float64) { return mathx.Hermite(n) }
