package ep

import "math"

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

// lineSearch minimises Q(b) = KL(b) + c b over b ≥ 0. Q is not unimodal:
// b = 0 is typically a local minimum and, when the old site mean m_i lies
// well inside one side of the step, KL(b) falls steeply to 0 once the
// relaxed cavity concentrates there, leaving a second, narrow valley (see
// TestRelaxedLineSearchIsGlobal). So the search first finds the valley:
// it evaluates Q at b = 0 and on a log-spaced grid of perDecade points per
// decade over [τc·10⁻⁶, b_max]. Because KL ≥ 0, Q(b) ≥ c b, and no b >
// b_max = Q(0)/c can beat b = 0; for c = 0 the grid ends at τc·10⁶.
//
// Then it locates the minimiser in the bracket [b₋, b₊] of the best grid
// point's neighbours as the root of Q'(b) = dKL/db + c (relaxedSlope) by
// Brent's method. A root-finder locates b to rounding, where minimising Q's
// value (golden section) only reaches ~√ε relative, because Q is flat to
// second order at its minimum; that √ε jitter in b is what kept relaxed EP
// from meeting tolerances below ~1e-6. If Q' does not change sign on the
// bracket (Q has several wiggles between grid points, or the best point is
// the grid's end), golden section on the bracket is the fallback. It
// returns 0 whenever no b > 0 beats b = 0.
func (r rule) lineSearch(s Site, mOld, tc, nc float64) float64 {
	q := func(b float64) float64 { return relaxedCost(s, mOld, tc, nc, b) + r.c*b }
	q0 := q(0)
	if !(q0 > 0) {
		return 0
	}
	lo, hi := tc*1e-6, tc*1e6
	if r.c > 0 {
		hi = math.Min(hi, q0/r.c)
	}
	if !(hi > lo) {
		return 0
	}
	const perDecade = 24
	n := 1 + int(math.Ceil(perDecade*math.Log10(hi/lo)))
	step := math.Log(hi/lo) / float64(n-1)
	at := func(k int) float64 { return lo * math.Exp(step*float64(k)) }
	best, bestQ := -1, q0
	for k := 0; k < n; k++ {
		if v := q(at(k)); v < bestQ {
			best, bestQ = k, v
		}
	}
	if best < 0 {
		return 0
	}
	b := r.refine(s, mOld, tc, nc, q, at, best, n)
	if qb := q(b); qb < bestQ || (qb == bestQ && b > 0) {
		return b
	}
	return at(best)
}

// refine returns the stationary point of Q in the bracket around grid
// point best (see lineSearch).
func (r rule) refine(s Site, mOld, tc, nc float64, q func(float64) float64, at func(int) float64, best, n int) float64 {
	if best+1 == n {
		return at(best) // the grid's end (c = 0): Q still falls there
	}
	a, c := 0.0, at(best+1)
	if best > 0 {
		a = at(best - 1)
	}
	dq := func(b float64) float64 { return relaxedSlope(s, mOld, tc, nc, b) + r.c }
	da, dc := dq(a), dq(c)
	if da < 0 && dc > 0 {
		return brentRoot(dq, a, c, da, dc, 0)
	}
	return goldenMin(q, a, c, 80)
}

// goldenMin minimises a unimodal f on [a, c] by golden-section search.
func goldenMin(f func(float64) float64, a, c float64, iters int) float64 {
	const g = 0.3819660112501051
	x1, x2 := a+g*(c-a), c-g*(c-a)
	f1, f2 := f(x1), f(x2)
	for k := 0; k < iters && c-a > 1e-12*(1+math.Abs(a)); k++ {
		if f1 < f2 {
			c, x2, f2 = x2, x1, f1
			x1 = a + g*(c-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = c - g*(c-a)
			f2 = f(x2)
		}
	}
	if f1 < f2 {
		return x1
	}
	return x2
}
