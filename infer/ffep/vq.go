package ffep

import "math"

// vq is variational quadrature (roche §2.3). With the precision-3 points
// z_0 = 0, z_±i = ±γ e_i (weights w0 = 1 − d/γ², w± = 1/(2γ²)) and the site
// exponent s_j = αᵀφ(z_j), i.e. s_0 = a0 and s_±i = a0 ± γ a_i + γ² b_i, it
// minimises the convex empirical generalised KL (eq. 10)
//
//	L̃(α) = Σ_j w_j [ e^{s_j} − f̃_j s_j ],   f̃_j = f(θ_j) e^{−M},
//
// by Newton's method with gradient and Hessian (eq. 11)
//
//	∇L̃ = Σ_j w_j (e^{s_j} − f̃_j) φ_j,   ∇∇ᵀL̃ = Σ_j w_j e^{s_j} φ_j φ_jᵀ,
//
// an Armijo line search, and the stopping rule ‖Δα‖ ≤ tol (‖α‖ + tol).
// The start is the log-space least-squares fit (vqStart). The Hessian couples only (a_i, b_i) with each other and with
// a0; it is factorised by a block-arrow Cholesky (newtonStep). The result is
// shifted back by M: C0 = a0 + M, A = a, B = b.
func (w *work) vq(f Potential, mu, sd []float64, tol float64, maxIter int, cold bool) error {
	d := len(mu)
	g := gamma(d)
	m, err := w.points(f, mu, sd, g)
	if err != nil {
		return err
	}
	for i := range mu { // f̃ in place of log f
		w.lp[i], w.lm[i] = math.Exp(w.lp[i]-m), math.Exp(w.lm[i]-m)
	}
	w.l0 = math.Exp(w.l0 - m)
	a0 := w.vqStart(g, cold)
	L := w.vqObjective(a0, g, w.s.A, w.s.B, 0)
	for it := range maxIter {
		w.iters = it + 1
		gn, slope, err := w.newtonStep(a0, g)
		if err != nil {
			return err
		}
		t, Ln, ok := w.vqSearch(a0, g, L, slope)
		if !ok {
			return w.vqFinish(a0, m, tol, gn)
		}
		a0 += t * w.dA[0]
		step, norm := t*t*w.dA[0]*w.dA[0], a0*a0
		for i := 1; i <= d; i++ {
			w.s.A[i-1] += t * w.dA[i]
			w.s.B[i-1] += t * w.dB[i]
			step += t * t * (w.dA[i]*w.dA[i] + w.dB[i]*w.dB[i])
			norm += w.s.A[i-1]*w.s.A[i-1] + w.s.B[i-1]*w.s.B[i-1]
		}
		L = Ln
		if math.Sqrt(step) <= tol*(math.Sqrt(norm)+tol) {
			w.s.C0 = a0 + m
			return nil
		}
	}
	return ErrNoConvergence
}

// vqFinish handles a line search that cannot decrease L̃ any more: that
// happens only at the minimum to rounding, which we accept when the
// gradient is negligible (relative to the scale of f̃, which is ≥ w0·e^0).
func (w *work) vqFinish(a0, m, tol, gn float64) error {
	if gn <= tol {
		w.s.C0 = a0 + m
		return nil
	}
	return ErrNoConvergence
}

// vqStart returns the Newton start (a0, and a, b in w.s).
//
// Default: the weighted least-squares fit of log f̃ by αᵀφ over the points,
// the usual start for fitting exponential-family models (as IRLS starts a
// Poisson GLM at log y). With the 2d+1 points and 2d+1 monomials here the
// fit is exact — a0 = log f̃0, a_i = (log f̃₊ᵢ − log f̃₋ᵢ)/(2γ),
// b_i = (log f̃₊ᵢ + log f̃₋ᵢ − 2 log f̃0)/(2γ²) — and Newton then confirms
// stationarity (∇L̃ ≈ 0) in one iteration; with more points than monomials
// it would only be a good start.
//
// cold (or a non-finite fit, e.g. f̃ = 0 at a point): a = b = 0 and
// a0 = log m0, the precision-3 estimate of log ∫ c f̃ (the best constant
// site). Far from the solution, where e^{s_j} ≫ f̃_j, Newton lowers s_j by
// about one nat per iteration, so the iteration count grows with the spread
// of log f over the points.
func (w *work) vqStart(g float64, cold bool) float64 {
	d := len(w.lp)
	g2 := g * g
	if !cold {
		l0 := math.Log(w.l0)
		ok := finite(l0)
		for i := range d {
			lp, lm := math.Log(w.lp[i]), math.Log(w.lm[i])
			w.s.A[i] = (lp - lm) / (2 * g)
			w.s.B[i] = (lp + lm - 2*l0) / (2 * g2)
			ok = ok && finite(w.s.A[i]) && finite(w.s.B[i])
		}
		if ok {
			return l0
		}
	}
	w0, wpm := 1-float64(d)/g2, 1/(2*g2)
	m0 := w0 * w.l0
	for i := range w.lp {
		m0 += wpm * (w.lp[i] + w.lm[i])
	}
	clear(w.s.A)
	clear(w.s.B)
	return math.Log(m0)
}

// vqObjective returns L̃ at (a0 + t·dA0, a + t·dA, b + t·dB) (t = 0: the
// current point), +Inf on overflow.
func (w *work) vqObjective(a0, g float64, a, b []float64, t float64) float64 {
	g2 := g * g
	d := len(a)
	w0, wpm := 1-float64(d)/g2, 1/(2*g2)
	s0 := a0 + t*w.dA[0]
	L := w0 * (math.Exp(s0) - w.l0*s0)
	for i := range a {
		ai, bi := a[i]+t*w.dA[i+1], b[i]+t*w.dB[i+1]
		sp, sm := s0+g*ai+g2*bi, s0-g*ai+g2*bi
		L += wpm * (math.Exp(sp) - w.lp[i]*sp + math.Exp(sm) - w.lm[i]*sm)
	}
	if math.IsNaN(L) {
		return math.Inf(1)
	}
	return L
}

// vqSearch is an Armijo backtracking search on L̃ along the Newton
// direction (slope = ∇L̃ᵀΔ < 0).
func (w *work) vqSearch(a0, g, L, slope float64) (t, Ln float64, ok bool) {
	t = 1
	if -slope <= 1e-10*(math.Abs(L)+1e-300) {
		// The predicted decrease is at the rounding level of L̃: Newton is
		// converging quadratically and Armijo cannot see the change; take
		// the full step unless it increases L̃ beyond rounding.
		Ln = w.vqObjective(a0, g, w.s.A, w.s.B, 1)
		if Ln <= L+1e-12*math.Abs(L) {
			return 1, Ln, true
		}
	}
	for range 50 {
		Ln = w.vqObjective(a0, g, w.s.A, w.s.B, t)
		if Ln <= L+1e-4*t*slope {
			return t, Ln, true
		}
		t /= 2
	}
	return 0, L, false
}
