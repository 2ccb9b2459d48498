package families

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// GaussianDense is the Gaussian of a vector w ∈ ℝᵈ (or a Gaussian site on
// it) held by its natural parameters, the dense member of the Gaussian
// family (Gaussian is the scalar one):
//
//	g(w) ∝ exp(−½ wᵀ Prec w + Shiftᵀ w).
//
// Sites may have an indefinite or singular Prec; a posterior or a cavity
// must have a positive-definite one (see Moments).
type GaussianDense struct {
	Prec  *mat.SymDense
	Shift []float64
}

// FlatGaussianDense returns the flat site of dimension d (Prec = 0,
// Shift = 0).
func FlatGaussianDense(d int) GaussianDense {
	return GaussianDense{Prec: mat.NewSymDense(d, nil), Shift: make([]float64, d)}
}

// Dim is the dimension d of w.
func (g GaussianDense) Dim() int { return len(g.Shift) }

// Clone returns a deep copy.
func (g GaussianDense) Clone() GaussianDense {
	p := mat.NewSymDense(g.Dim(), nil)
	p.CopySym(g.Prec)
	return GaussianDense{Prec: p, Shift: append([]float64(nil), g.Shift...)}
}

// Mul returns the product g·h of the Gaussians (the sum of the natural
// parameters).
func (g GaussianDense) Mul(h GaussianDense) GaussianDense { return g.axpy(1, h) }

// Div returns the quotient g/h of the Gaussians (the difference of the
// natural parameters).
func (g GaussianDense) Div(h GaussianDense) GaussianDense { return g.axpy(-1, h) }

// axpy returns g + a·h.
func (g GaussianDense) axpy(a float64, h GaussianDense) GaussianDense {
	out := g.Clone()
	floats.AddScaled(out.Prec.RawSymmetric().Data, a, h.Prec.RawSymmetric().Data)
	floats.AddScaled(out.Shift, a, h.Shift)
	return out
}

// Damp returns the damped step (1 − δ)·g + δ·new from g to new, entry by
// entry of the precision and the shift by the damping of every EP engine
// (Damp on slices, Damped).
func (g GaussianDense) Damp(new GaussianDense, delta float64) GaussianDense {
	out := FlatGaussianDense(g.Dim())
	Damp(out.Prec.RawSymmetric().Data, g.Prec.RawSymmetric().Data, new.Prec.RawSymmetric().Data, delta)
	Damp(out.Shift, g.Shift, new.Shift, delta)
	return out
}

// GaussianDenseFromMoments returns the natural parameters of N(mean, cov)
// through a Cholesky factorisation of cov (mean nil is zero). Its errors
// read "covariance …" or "mean …", for the caller to name the Gaussian.
func GaussianDenseFromMoments(mean []float64, cov *mat.SymDense) (GaussianDense, error) {
	d := cov.SymmetricDim()
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return GaussianDense{}, errors.New("covariance is not positive definite")
	}
	g := GaussianDense{Prec: mat.NewSymDense(d, nil), Shift: make([]float64, d)}
	if err := ch.InverseTo(g.Prec); err != nil {
		return GaussianDense{}, fmt.Errorf("covariance: %w", err)
	}
	if mean != nil {
		var s mat.VecDense
		if err := ch.SolveVecTo(&s, mat.NewVecDense(d, append([]float64(nil), mean...))); err != nil {
			return GaussianDense{}, fmt.Errorf("mean: %w", err)
		}
		copy(g.Shift, s.RawVector().Data)
	}
	return g, nil
}

// Moments returns the mean Prec⁻¹ Shift and covariance Prec⁻¹ (from a
// Cholesky factor of Prec) and false when Prec is not positive definite.
func (g GaussianDense) Moments() (mean []float64, cov *mat.SymDense, ok bool) {
	var ch mat.Cholesky
	if !g.finite() || !ch.Factorize(g.Prec) {
		return nil, nil, false
	}
	cov = mat.NewSymDense(g.Dim(), nil)
	var m mat.VecDense
	if ch.InverseTo(cov) != nil || ch.SolveVecTo(&m, mat.NewVecDense(g.Dim(), append([]float64(nil), g.Shift...))) != nil {
		return nil, nil, false
	}
	return m.RawVector().Data, cov, true
}

// LogNormalizer returns Ψ = log ∫ exp(−½ wᵀΛw + ηᵀw) dw
// = ½ ηᵀΛ⁻¹η − ½ log det Λ + (d/2) log 2π, and false when Λ is not
// positive definite.
func (g GaussianDense) LogNormalizer() (float64, bool) {
	var ch mat.Cholesky
	if !g.finite() || !ch.Factorize(g.Prec) {
		return 0, false
	}
	var m mat.VecDense
	if ch.SolveVecTo(&m, mat.NewVecDense(g.Dim(), append([]float64(nil), g.Shift...))) != nil {
		return 0, false
	}
	d := float64(g.Dim())
	return 0.5*floats.Dot(g.Shift, m.RawVector().Data) - 0.5*ch.LogDet() + 0.5*d*math.Log(2*math.Pi), true
}

func (g GaussianDense) finite() bool {
	for _, v := range g.Prec.RawSymmetric().Data {
		if !finite(v) {
			return false
		}
	}
	for _, v := range g.Shift {
		if !finite(v) {
			return false
		}
	}
	return true
}
