package ep

import (
	"math"

	"github.com/fg-infer/fg/infer"
)

// divergence settings resolved for the inner loop.
type rule struct {
	u       float64 // power: 1 for KL and relaxed KL, α for Alpha
	relaxed bool
	c       float64 // relaxed KL penalty
	damping float64 // step δ in natural parameters, 1 = undamped
	clamp   bool    // τ̃ ← max(τ̃, 0) (GPML infEP's convention)
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
	r := rule{u: 1, damping: damping}
	if r.damping == 0 {
		r.damping = 1
	}
	if infer.CheckDamping(r.damping) != nil {
		return r, false
	}
	switch d := d.(type) {
	case nil, infer.KL:
	case infer.Alpha:
		if !(d.A > 0) || math.IsInf(d.A, 1) {
			return r, false
		}
		r.u = max(d.A, MinAlpha)
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
// Cavity (power u): τc = 1/v − u τ̃, νc = mu/v − u ν̃ (rodrigues eqs 10–11).
// Tilted moments of p(y|f)^u N(f; m, vc) via (log Z, d1, d2); the new message
// is (q_new / cavity)^{1/u} (Minka, Power EP; qi-guo long version eq. 42):
//
//	τ̃ = −d2 / (u (1 + vc d2)),   ν̃ = (d1 − m d2) / (u (1 + vc d2))
//
// (the natural-parameter form of rodrigues eqs 20–21; GPML infEP). Damping
// then mixes old and new in natural parameters.
func (r rule) propose(s Site, old SiteParam, mu, v float64) (SiteParam, float64, bool) {
	return r.proposeCavity(s, old, 1/v-r.u*old.Tau, mu/v-r.u*old.Nu)
}

// proposeCavity is propose from the power-u cavity's natural parameters
// (tc, nc) (a tight site's stable cavity, tight.go).
func (r rule) proposeCavity(s Site, old SiteParam, tc, nc float64) (SiteParam, float64, bool) {
	if !(tc > 0) || !finite(tc, nc) {
		return old, 0, false
	}
	var b float64
	if r.relaxed {
		b = r.lineSearch(s, old.Mean(), tc, nc)
		tc, nc = tc+b, nc+b*old.Mean()
	}
	np, ok := r.project(s, tc, nc)
	if !ok {
		return old, b, false
	}
	if r.clamp && np.Tau < 0 {
		np.Tau = 0
	}
	if r.damping != 1 {
		np.Tau = (1-r.damping)*old.Tau + r.damping*np.Tau
		np.Nu = (1-r.damping)*old.Nu + r.damping*np.Nu
	}
	if !finite(np.Tau, np.Nu) {
		return old, b, false
	}
	return np, b, true
}

// project returns the site (proj(p(y|f)^u N(f; m, vc)) / N(f; m, vc))^{1/u}
// for the (possibly relaxed) cavity τc = 1/vc, νc = m/vc:
//
//	τ̃ = −d2 / (u (1 + vc d2)),   ν̃ = (d1 − m d2) / (u (1 + vc d2)),
//
// with d1, d2 the derivatives of log Z(m) of the tilted distribution. It
// reports false when the tilted variance is not positive or the result is
// not finite.
func (r rule) project(s Site, tc, nc float64) (SiteParam, bool) {
	m, vc := nc/tc, 1/tc
	_, d1, d2 := s.Lik.Tilted(s.Y, m, vc, r.u)
	den := 1 + vc*d2
	if !(den > 0) || !finite(d1, d2) {
		return SiteParam{}, false
	}
	return SiteParam{Tau: -d2 / (r.u * den), Nu: (d1 - m*d2) / (r.u * den)}, true
}
