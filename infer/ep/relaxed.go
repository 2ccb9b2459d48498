package ep

import (
	"math"

	"github.com/fg-infer/fg/internal/mathx"
)

// Relaxed EP (qi-guo-relaxed-ep-rbp.md §3–§4.1; long version Appendix B).
//
// The relaxation factor of site i is r_i(f) ∝ N(f; m_i, 1/b), b ≥ 0, centred
// at the mean m_i of the current message t̃_i (eq. 11). With the cavity
// N(f; h, λ), the relaxed cavity r_i q\i is N(h̃, λ̃) with (eqs 14–15)
//
//	1/λ̃ = 1/λ + b,   h̃/λ̃ = h/λ + b m_i.
//
// The penalised divergence (5) KL_r(p̂_i r_i ‖ q r_i) + c|b| is minimised over
// q by moment matching q r_i to the relaxed tilted distribution
// P_b(f) ∝ p(y|f) N(f; h̃, λ̃), so the new message is t̃_i = proj(P_b)/N(h̃, λ̃)
// (the site computed against the relaxed cavity; t̃_{i,b} = r_i t̃_i, eqs
// 16–21), and what is left to minimise over b is
//
//	Q(b) = KL(P_b ‖ N(m̂, v̂)) + c b
//	     = E_P[log p(y|f)] − log Z − ½ log(λ̃/v̂) − (v̂ + (m̂ − h̃)²)/(2λ̃) + ½ + c b,
//
// with Z, m̂, v̂ the normaliser and moments of P_b. This is eq. 35 itself:
// both sides of KL_r(t r q\i ‖ r q) share the conditional of f_{−i} given
// f_i (q = q\i t̃_i), so the divergence over the whole latent vector reduces
// to this 1-D one, and the normalisers ∫ r q\i and the terms E_P[log r] of
// the two sides cancel. Its first term is the closed-form E[log p] of the
// step likelihood. b = 0 is plain EP; a large c forces b = 0 (EP exactly).
// TestRelaxedCostAgainstQuadrature pins Q against brute-force quadrature of
// the definition, TestRelaxedCostSiteForm against the same KL written in
// the paper's site notation; the long version's eq. 36 as extracted differs
// from both (see the package doc, "Relaxed EP and qi-guo §6.1").

// relaxedCost returns Q(b) − c b, the KL from the relaxed tilted
// distribution to its Gaussian projection, for the cavity (τc, νc); it is
// relaxedKL clamped at 0 (a KL divergence is non-negative; negative values
// are rounding).
func relaxedCost(s Site, mOld, tc, nc, b float64) float64 {
	return math.Max(relaxedKL(s, mOld, tc, nc, b), 0)
}

// relaxedKL is the closed form above, unclamped (so that its finite
// differences are smooth near KL = 0); +Inf when the tilted variance is not
// positive.
func relaxedKL(s Site, mOld, tc, nc, b float64) float64 {
	t, n := tc+b, nc+b*mOld
	h, lam := n/t, 1/t
	logZ, d1, d2 := s.Lik.Tilted(s.Y, h, lam, 1)
	mh, vh := h+lam*d1, lam+lam*lam*d2
	if !(vh > 0) {
		return math.Inf(1)
	}
	return s.Lik.ExpLogLik(s.Y, h, lam) - logZ - 0.5*math.Log(lam/vh) -
		(vh+(mh-h)*(mh-h))/(2*lam) + 0.5
}

// lineSearch minimises Q(b) = KL(b) + c b over b ≥ 0 by
// mathx.PenalisedMin. Q is not unimodal: b = 0 is typically a local minimum
// and, when the old site mean m_i lies well inside one side of the step,
// KL(b) falls steeply to 0 once the relaxed cavity concentrates there,
// leaving a second, narrow valley (see TestRelaxedLineSearchIsGlobal). So
// the search first finds the valley on a log-spaced grid over
// [τc·10⁻⁶, b_max], b_max = min(τc·10⁶, Q(0)/c), then the root of
// Q'(b) = dKL/db + c (relaxedSlope) in the bracket around the best grid
// point by Brent's method. A root-finder locates b to rounding, where
// minimising Q's value (golden section) only reaches ~√ε relative, because
// Q is flat to second order at its minimum; that √ε jitter in b is what
// kept relaxed EP from meeting tolerances below ~1e-6. It returns 0
// whenever no b > 0 beats b = 0.
func (r rule) lineSearch(s Site, mOld, tc, nc float64) float64 {
	q := func(b float64) float64 { return relaxedCost(s, mOld, tc, nc, b) + r.c*b }
	q0 := q(0)
	if !(q0 > 0) {
		return 0
	}
	dq := func(b float64) float64 { return relaxedSlope(s, mOld, tc, nc, b) + r.c }
	return mathx.PenalisedMin(q, dq, q0, r.c, tc*1e-6, tc*1e6)
}
