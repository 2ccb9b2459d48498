package ffep

import (
	"errors"
	"math"

	"github.com/fg-infer/fg/families"
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

// GaussianProjected is a Projected factor that is Gaussian in its
// projection, p(y | t) = N(y; t, r): GaussianSite is the factor itself as a
// site in t, τ = 1/r, ν = y/r (families.GaussianSiter with its observation),
// and ok is false when the factor has none. Its members' sites are then
// exact at any noise (projectedGaussian).
type GaussianProjected interface {
	GaussianSite() (site families.Gaussian, ok bool)
}

// ErrNotProjected: scheme exact was asked of a factor that is not Projected.
var ErrNotProjected = errors.New("ffep: approx = exact needs factors on one projection aᵀw with closed-form moments (probit, step, normal); use laplace, quick_laplace, gq or vq")

// projected computes the exact site of a Projected factor under the cavity
// N(μ, diag σ²) by the shared site update (families/site.go) in the
// cavity's standardised coordinates z_i = (w_i − μ_i)/σ_i, where the
// cavity is N(0, 1) and t = aᵀw = m_t + Σ (a_i σ_i) z_i with m_t = Σ a_i μ_i,
// v_t = Σ a_i² σ_i². The tilted log normaliser log Z(m_t, v_t) gives each
// z_i the derivatives (a_i σ_i) d1, (a_i σ_i)² d2 (families.MemberDerivs)
// and the site exp(−½ λ_i z_i² + η_i z_i) (families.TiltedSite), i.e.
// B_i = −λ_i/2, A_i = η_i (package comment): the tilted marginals
//
//	E z_i = σ_i a_i d1 / Var z_i,   Var z_i = 1/(1 − 2B_i) = 1 + σ_i² a_i² d2,
//
// and C0 chosen so that the site's log ∫ c g equals log Z (site.logZ).
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
	if !finite(d1) || !finite(d2) {
		return ErrNonFinite
	}
	w.s.C0 = logZ
	gs, exact := f.(GaussianProjected)
	var fs families.Gaussian
	if exact {
		if fs, exact = gs.GaussianSite(); exact {
			w.leaveOneOut(mt, a, idx, sd)
		}
	}
	for k, i := range idx {
		var t families.Gaussian
		var ok bool
		if exact {
			t, ok = families.MemberSite(fs, a[k]*sd[i], w.loo[k], 1)
		} else {
			d1z, d2z := families.MemberDerivs(a[k]*sd[i], d1, d2)
			t, ok = families.TiltedSite(standard, d1z, d2z, 1)
		}
		if !ok {
			return ErrImproper
		}
		w.s.B[i], w.s.A[i] = -t.Prec/2, t.Shift
		pz := 1 - 2*w.s.B[i] // the tilted precision of z_i
		w.s.C0 -= -0.5*math.Log(pz) + w.s.A[i]*w.s.A[i]/(2*pz)
	}
	return nil
}

// leaveOneOut fills w.loo with the cavity of the projection without each
// member, in the standardised coordinates (member k: coefficient a_k σ_k,
// cavity N(0, 1); the constant m_t holds every member's mean): the
// leave-one-out sums of families.LeaveOneOut, which a Gaussian factor's
// exact member sites (families.MemberSite) need. A tight member (its
// a_k² σ_k² far above the noise and the other members' variance) then keeps
// the digits the derivative route loses in 1 + v d2.
func (w *work) leaveOneOut(mt float64, a []float64, idx []int32, sd []float64) {
	if cap(w.terms) < len(idx) {
		w.terms, w.loo = make([]families.Projection, len(idx)), make([]families.Projection, len(idx))
	}
	w.terms, w.loo = w.terms[:len(idx)], w.loo[:len(idx)]
	for k, i := range idx {
		w.terms[k] = families.Projection{}
		w.terms[k].Add(a[k]*sd[i], standard)
	}
	families.LeaveOneOut(mt, w.terms, w.loo)
}

// standard is the cavity of a standardised coordinate, N(0, 1).
var standard = families.Gaussian{Prec: 1}
