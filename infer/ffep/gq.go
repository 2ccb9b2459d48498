package ffep

import "math"

// epsilon is the float64 machine epsilon 2^−52.
const epsilon = 0x1p-52

// gamma returns the spread of the precision-3 rule, γ = √(d + ½) (roche
// §2.2), which makes all 2d+1 weights equal to 1/(2d+1).
func gamma(d int) float64 { return math.Sqrt(float64(d) + 0.5) }

// points evaluates log f at the 2d+1 points θ0 = μ, θ±i = μ ± γσ_i e_i into
// w.l0, w.lp, w.lm and returns their maximum M (used to scale f = e^{M} f̃).
// A potential implementing AxisPotential evaluates all points at once.
func (w *work) points(f Potential, mu, sd []float64, g float64) (float64, error) {
	th := w.theta
	if af, ok := f.(AxisPotential); ok {
		for i := range mu {
			th[i] = g * sd[i]
		}
		w.l0 = af.LogFAxes(mu, th, w.lp, w.lm)
	} else {
		copy(th, mu)
		w.l0 = f.LogF(th)
		for i := range mu {
			th[i] = mu[i] + g*sd[i]
			w.lp[i] = f.LogF(th)
			th[i] = mu[i] - g*sd[i]
			w.lm[i] = f.LogF(th)
			th[i] = mu[i]
		}
	}
	m := w.l0
	for i := range mu {
		m = math.Max(m, math.Max(w.lp[i], w.lm[i]))
	}
	if !finite(m) {
		return 0, ErrNonFinite
	}
	return m, nil
}

// gq (roche eq. 7): the precision-3 rule with weights w0 = 1 − d/γ² and
// w± = 1/(2γ²) estimates, in standardised coordinates,
//
//	m0 = Σ_j w_j f(θ_j),  E[z_i] = γ w± (f₊ᵢ − f₋ᵢ)/m0,  E[z_i²] = γ² w± (f₊ᵢ + f₋ᵢ)/m0,
//
// and the site is the matched Gaussian divided by the cavity: with
// v_i = E[z_i²] − E[z_i]², 1 − 2B_i = 1/v_i, A_i = E[z_i]/v_i and C0 chosen
// so that log ∫ c g = log m0. A non-positive v_i is ErrImproper, and so is
// a coordinate whose two points carry less than machine epsilon of the
// mass, (f₊ᵢ + f₋ᵢ) < ε m0: the factor is then narrower than the rule's
// spread γσ_i and the estimate E[z_i²] ≈ 0 is rounding, not a variance
// (it would pin the coordinate with a precision of 1e40 and more).
func (w *work) gq(f Potential, mu, sd []float64) error {
	d := len(mu)
	g := gamma(d)
	m, err := w.points(f, mu, sd, g)
	if err != nil {
		return err
	}
	g2 := g * g
	w0, wpm := 1-float64(d)/g2, 1/(2*g2)
	m0 := w0 * math.Exp(w.l0-m)
	for i := range mu {
		m0 += wpm * (math.Exp(w.lp[i]-m) + math.Exp(w.lm[i]-m))
	}
	c0 := math.Log(m0) + m
	for i := range mu {
		fp, fm := math.Exp(w.lp[i]-m), math.Exp(w.lm[i]-m)
		if fp+fm < epsilon*m0 {
			return ErrImproper
		}
		ez := g * wpm * (fp - fm) / m0
		t, err := w.s.fromMoments(i, ez, g2*wpm*(fp+fm)/m0-ez*ez)
		if err != nil {
			return err
		}
		c0 -= t
	}
	w.s.C0 = c0
	return nil
}

// fromMoments sets coordinate i of the site from tilted moments in
// standardised coordinates (mean mz, variance vz); it returns the term to
// subtract from log Z to obtain C0.
func (s *site) fromMoments(i int, mz, vz float64) (float64, error) {
	if !(vz > 0) || !finite(vz) || !finite(mz) {
		return 0, ErrImproper
	}
	s.A[i] = mz / vz
	s.B[i] = (1 - 1/vz) / 2
	return 0.5*math.Log(vz) + 0.5*mz*mz/vz, nil
}
