package ffep

import "math"

// quickLaplace (QLA, roche §2.1): expand log f to second order at the cavity
// mean with the diagonal Hessian,
//
//	log f(θ) ≈ v + gᵀ(θ − μ) + ½ Σ h_i (θ_i − μ_i)²,
//
// i.e. in standardised coordinates C0 = v, A_i = g_i σ_i, B_i = ½ h_i σ_i².
// The site does not depend on the cavity variance.
func (w *work) quickLaplace(f Potential, mu, sd []float64) error {
	v := f.Derivs(mu, w.grad, w.hess)
	return w.expansion(v, mu, mu, sd)
}

// expansion sets the site from log f ≈ v + gᵀ(θ − t) + ½ Σ h_i (θ_i − t_i)²
// (gradient and diagonal Hessian in w.grad, w.hess) taken at t: with
// δ = μ − t and θ − t = σz + δ,
//
//	C0 = v + Σ (g_i δ_i + ½ h_i δ_i²),  A_i = (g_i + h_i δ_i) σ_i,  B_i = ½ h_i σ_i².
func (w *work) expansion(v float64, t, mu, sd []float64) error {
	if !finite(v) {
		return ErrNonFinite
	}
	c0 := v
	for i := range mu {
		g, h := w.grad[i], w.hess[i]
		if !finite(g) || !finite(h) {
			return ErrNonFinite
		}
		w.convex = w.convex || h > 0
		dl := mu[i] - t[i]
		c0 += g*dl + 0.5*h*dl*dl
		w.s.A[i] = (g + h*dl) * sd[i]
		w.s.B[i] = 0.5 * h * sd[i] * sd[i]
	}
	w.s.C0 = c0
	return nil
}

// laplace (LA, roche §2.1 eq. 6): find the mode θ* of c·f, then expand log f
// there (expansion). The mode is found by Newton's method on
//
//	F(θ) = log f(θ) − Σ (θ_i − μ_i)²/(2σ_i²)
//
// with the diagonal Hessian the potential interface provides (a diagonal
// Newton step x_i = ∂_i F / (1/σ_i² − h_i), falling back to 1/σ_i² where
// log f is locally convex so the step stays an ascent direction), an Armijo
// backtracking line search, and the relative tolerance tol on the step.
// Piecewise-linear losses give h = 0 and a discontinuous gradient, so the
// iteration may stop at the iteration limit near a kink; the last iterate is
// then used (this is the instability of LA that roche §3.3 reports), and only
// a non-finite F is an error.
func (w *work) laplace(f Potential, mu, sd []float64, tol float64, maxIter int) error {
	fv, err := w.mode(f, mu, mu, sd, tol, maxIter, nil)
	if err != nil {
		return err
	}
	return w.expansion(fv, w.theta, mu, sd)
}

// mode runs the Newton ascent of laplace on F from start and leaves the last
// iterate in w.theta and its derivatives in w.grad, w.hess; it returns
// log f there. A non-nil stop is asked before every iteration and ends the
// ascent when it returns true.
func (w *work) mode(f Potential, start, mu, sd []float64, tol float64, maxIter int, stop func() bool) (float64, error) {
	th := w.theta
	copy(th, start)
	w.iters = 0
	fv := f.Derivs(th, w.grad, w.hess)
	F := penalised(fv, th, mu, sd)
	if !finite(F) {
		return 0, ErrNonFinite
	}
	for it := range maxIter {
		if stop != nil && stop() {
			break
		}
		w.iters = it + 1
		var slope, nx, nt float64
		for i := range th {
			s2 := sd[i] * sd[i]
			gi := w.grad[i] - (th[i]-mu[i])/s2
			di := 1/s2 - w.hess[i]
			if !(di > 0) || !finite(di) {
				di = 1 / s2
			}
			w.dA[i] = gi / di
			slope += gi * w.dA[i]
			nx += w.dA[i] * w.dA[i]
			nt += th[i] * th[i]
		}
		t, Fn, ok := w.armijo(f, th, mu, sd, F, slope)
		if !ok {
			break
		}
		copy(th, w.trial)
		F = Fn
		fv = f.Derivs(th, w.grad, w.hess)
		if t*math.Sqrt(nx) <= tol*(math.Sqrt(nt)+tol) {
			break
		}
	}
	return fv, nil
}

// armijo backtracks t = 1, ½, ¼, ... along w.dA from th until
// F(th + t·dA) ≥ F + 1e-4 t·slope; the accepted point is left in w.trial.
func (w *work) armijo(f Potential, th, mu, sd []float64, F, slope float64) (t, Fn float64, ok bool) {
	t = 1
	for range 40 {
		for i := range th {
			w.trial[i] = th[i] + t*w.dA[i]
		}
		Fn = penalised(f.LogF(w.trial), w.trial, mu, sd)
		if finite(Fn) && Fn >= F+1e-4*t*slope {
			return t, Fn, true
		}
		t /= 2
	}
	return 0, F, false
}

func penalised(logf float64, th, mu, sd []float64) float64 {
	for i := range th {
		z := (th[i] - mu[i]) / sd[i]
		logf -= 0.5 * z * z
	}
	return logf
}
