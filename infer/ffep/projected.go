package ffep

import (
	"errors"
	"math"
)

// Projected is a potential f(w) = p(y | aᵀw) of one sparse projection, with
// the closed-form log normaliser of its one-dimensional tilted distribution:
// Tilted returns log Z(m, v) = log ∫ p(y | t) N(t; m, v) dt and its first
// two derivatives d1, d2 in m (infer/ep's Likelihood.Tilted with u = 1).
// Projection returns the non-zero coordinates of a and their values.
type Projected interface {
	Potential
	Projection() (idx []int32, a []float64)
	Tilted(m, v float64) (logZ, d1, d2 float64)
}

// ErrNotProjected: scheme exact was asked of a factor that is not Projected.
var ErrNotProjected = errors.New("quad: approx = exact needs factors on one projection aᵀw with closed-form moments (probit, step, normal); use laplace, quick_laplace, gq or vq")

// projected computes the exact site of a Projected factor under the cavity
// N(μ, diag σ²). With t = aᵀw ~ N(m_t, v_t), m_t = Σ a_i μ_i,
// v_t = Σ a_i² σ_i², and Cov(w_i, t) = a_i σ_i², the tilted marginals are
//
//	E z_i = σ_i a_i d1,   Var z_i = 1 + σ_i² a_i² d2    (z_i = (w_i − μ_i)/σ_i),
//
// matched by the site with 1 − 2B_i = 1/Var z_i and A_i = E z_i / Var z_i,
// and C0 chosen so that the site's log ∫ c g equals log Z (package comment).
func (w *work) projected(f Potential, mu, sd []float64) error {
	p, ok := f.(Projected)
	if !ok {
		return ErrNotProjected
	}
	idx, a := p.Projection()
	clear(w.s.A)
	clear(w.s.B)
	if len(idx) == 0 { // a constant factor p(y | 0): the site is a constant
		w.s.C0 = p.LogF(mu)
		return nil
	}
	mt, vt := 0.0, 0.0
	for k, i := range idx {
		mt += a[k] * mu[i]
		vt += a[k] * a[k] * sd[i] * sd[i]
	}
	logZ, d1, d2 := p.Tilted(mt, vt)
	w.s.C0 = logZ
	for k, i := range idx {
		s := sd[i]
		vz := 1 + s*s*a[k]*a[k]*d2
		if !(vz > 0) {
			return ErrImproper
		}
		w.s.B[i] = (1 - 1/vz) / 2
		w.s.A[i] = s * a[k] * d1 / vz
		w.s.C0 -= 0.5*math.Log(vz) + w.s.A[i]*w.s.A[i]*vz/2
	}
	return nil
}
