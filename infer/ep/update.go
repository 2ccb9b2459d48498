package ep

import (
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
)

// rule is the divergence settings resolved for the inner loop: the shared
// site update (families.SiteUpdate: power u = 1 for KL and relaxed KL, α
// for Alpha; damping δ in natural parameters, 1 = undamped; the τ̃ ≥ 0
// clamp of GPML infEP) and relaxed EP's penalty.
type rule struct {
	families.SiteUpdate
	relaxed bool
	c       float64 // relaxed KL penalty
}

// MinAlpha is the smallest power of power EP computed as such; a smaller
// alpha(A) runs at MinAlpha. The tilted moments of p(y|f)^u differ from the
// cavity's by O(u), so rounding makes their relative error about ε/u
// (ε = 2.2e-16), while the answer changes by O(u) as u → 0: the two balance
// at u ≈ √ε ≈ 1.5e-8. At u = 1e-8 the result is the α → 0 limit to about
// 1e-8; at 1e-14 rounding already moves log Z by 1e-2 and at 1e-20 every
// update is lost and EP would stop at the prior (TestAlphaLimit).
const MinAlpha = 1e-8

func newRule(d infer.Divergence, damping float64) (rule, bool) {
	r := rule{SiteUpdate: families.SiteUpdate{Power: 1, Damping: damping}}
	if r.Damping == 0 {
		r.Damping = 1
	}
	if infer.CheckDamping(r.Damping) != nil {
		return r, false
	}
	switch d := d.(type) {
	case nil, infer.KL:
	case infer.Alpha:
		if !(d.A > 0) || math.IsInf(d.A, 1) {
			return r, false
		}
		r.Power = max(d.A, MinAlpha)
	case infer.RelaxedKL:
		if !(d.C >= 0) {
			return r, false
		}
		r.relaxed, r.c = true, d.C
	default:
		return r, false
	}
	return r, true
}

// propose computes the new message of site i from the posterior marginal
// N(f_i; mu, v) of its projection. It returns ok = false when the update must
// be skipped: non-positive cavity precision, non-positive tilted variance, or
// a non-finite result.
//
// Cavity (power u): τc = 1/v − u τ̃, νc = mu/v − u ν̃ (rodrigues eqs 10–11),
// relaxed by the line search's r_i for relaxed KL. The tilted moments of
// p(y|f)^u N(f; m, vc) come as (log Z, d1, d2) from the likelihood (a
// Gaussian likelihood is its own site, families.FactorSite); the
// new message (q_new / cavity)^{1/u}, its clamp and damping are the shared
// site update families.SiteUpdate.Propose (rodrigues eqs 20–21 in natural
// parameters; qi-guo long version eq. 42; GPML infEP).
func (r rule) propose(s Site, old families.Gaussian, mu, v float64) (families.Gaussian, float64, bool) {
	return r.proposeCavity(s, old, 1/v-r.Power*old.Prec, mu/v-r.Power*old.Shift)
}

// siteMean is the mean Shift/Prec of a site, or 0 for a flat site
// (Prec = 0), where the relaxed line search starts.
func siteMean(s families.Gaussian) float64 {
	if s.Prec == 0 {
		return 0
	}
	return s.Shift / s.Prec
}

// proposeCavity is propose from the power-u cavity's natural parameters
// (tc, nc) (a tight site's stable cavity, tight.go).
func (r rule) proposeCavity(s Site, old families.Gaussian, tc, nc float64) (families.Gaussian, float64, bool) {
	if !(tc > 0) || !finite(tc, nc) {
		return old, 0, false
	}
	var b float64
	if r.relaxed {
		b = r.lineSearch(s, siteMean(old), tc, nc)
		tc, nc = tc+b, nc+b*siteMean(old)
	}
	np, ok := r.Propose(s.Lik, s.Y, old, families.Gaussian{Shift: nc, Prec: tc})
	if !ok {
		return old, b, false
	}
	return np, b, true
}
