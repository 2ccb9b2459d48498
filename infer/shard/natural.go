package shard

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
)

// Natural is a Gaussian (or a Gaussian site) in natural parameters,
//
//	g(w) ∝ exp(−½ wᵀ Prec w + Shiftᵀ w).
//
// Sites may have an indefinite or singular Prec; a posterior or a cavity
// must have a positive-definite one (see Moments).
type Natural struct {
	Prec  *mat.SymDense
	Shift []float64
}

// Zero returns the flat site of dimension d (Prec = 0, Shift = 0).
func Zero(d int) Natural {
	return Natural{Prec: mat.NewSymDense(d, nil), Shift: make([]float64, d)}
}

// Dim is the dimension d of w.
func (g Natural) Dim() int { return len(g.Shift) }

// Clone returns a deep copy.
func (g Natural) Clone() Natural {
	p := mat.NewSymDense(g.Dim(), nil)
	p.CopySym(g.Prec)
	return Natural{Prec: p, Shift: append([]float64(nil), g.Shift...)}
}

// Add returns g + h (the product of the Gaussians).
func (g Natural) Add(h Natural) Natural { return g.axpy(1, h) }

// Sub returns g − h (the quotient of the Gaussians).
func (g Natural) Sub(h Natural) Natural { return g.axpy(-1, h) }

// axpy returns g + a·h.
func (g Natural) axpy(a float64, h Natural) Natural {
	out := g.Clone()
	floats.AddScaled(out.Prec.RawSymmetric().Data, a, h.Prec.RawSymmetric().Data)
	floats.AddScaled(out.Shift, a, h.Shift)
	return out
}

// Damp returns the damped replacement (1 − δ)·old + δ·proposal, entry by
// entry of the precision and the shift by the shared damping of every EP
// engine (families.Damp).
func Damp(old, proposal Natural, delta float64) Natural {
	out := Zero(old.Dim())
	families.Damp(out.Prec.RawSymmetric().Data, old.Prec.RawSymmetric().Data, proposal.Prec.RawSymmetric().Data, delta)
	families.Damp(out.Shift, old.Shift, proposal.Shift, delta)
	return out
}

// FromMoments returns the natural parameters of N(mean, cov) through a
// Cholesky factorisation of cov (mean nil is zero).
func FromMoments(mean []float64, cov *mat.SymDense) (Natural, error) {
	d := cov.SymmetricDim()
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return Natural{}, errors.New("shard: prior covariance is not positive definite")
	}
	g := Natural{Prec: mat.NewSymDense(d, nil), Shift: make([]float64, d)}
	if err := ch.InverseTo(g.Prec); err != nil {
		return Natural{}, fmt.Errorf("shard: prior covariance: %w", err)
	}
	if mean != nil {
		var s mat.VecDense
		if err := ch.SolveVecTo(&s, mat.NewVecDense(d, append([]float64(nil), mean...))); err != nil {
			return Natural{}, fmt.Errorf("shard: prior mean: %w", err)
		}
		copy(g.Shift, s.RawVector().Data)
	}
	return g, nil
}

// Moments returns the mean Prec⁻¹ Shift and covariance Prec⁻¹ (from a
// Cholesky factor of Prec) and false when Prec is not positive definite.
func (g Natural) Moments() (mean []float64, cov *mat.SymDense, ok bool) {
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
func (g Natural) LogNormalizer() (float64, bool) {
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

func (g Natural) finite() bool {
	for _, v := range g.Prec.RawSymmetric().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	for _, v := range g.Shift {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
