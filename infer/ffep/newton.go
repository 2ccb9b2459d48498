package ffep

import "math"

// arrow holds the Cholesky factor of one 2×2 block of the VQ Hessian and
// its coupling to a0. With p = w±(e₊ + e₋), q = w±(e₊ − e₋) the block for
// (a_i, b_i) and its column against a0 are
//
//	B_i = [γ²p  γ³q; γ³q  γ⁴p],   c_i = (γq, γ²p),   h00 = w0 e0 + Σ_i p_i.
//
// Ordering a0 last, the Hessian is a block arrow matrix whose Cholesky factor
// is [L_B 0; Rᵀ l] with L_i = chol(B_i), r_i = L_i⁻¹ c_i and l² = h00 − Σ|r_i|².
// Entries are computed from closed forms that avoid cancellation:
//
//	l11 = γ√p,  l21 = γ²q/√p,  l22 = 2γ² w± √(e₊e₋)/√p,
//	r1 = q/√p,  r2 = l22/γ²,  l² = w0 e0   (since q² + 4w±²e₊e₋ = p²),
//
// with √(e₊e₋) = e^{(s₊+s₋)/2} = e^{a0 + γ²b} passed in as gm so that it
// does not underflow when e₊ and e₋ are tiny.
type arrow struct{ l11, l21, l22, r1, r2 float64 }

func arrowBlock(ep, em, gm, wpm, g float64) arrow {
	p, q := wpm*(ep+em), wpm*(ep-em)
	sp := math.Sqrt(p)
	l22 := 2 * g * g * wpm * gm / sp
	return arrow{l11: g * sp, l21: g * g * q / sp, l22: l22, r1: q / sp, r2: l22 / (g * g)}
}

// vqGrad returns the gradient components (eq. 11) for coordinate i given the
// point values e₊, e₋ and the scaled factor values f₊, f₋.
func vqGrad(ep, em, fp, fm, wpm, g float64) (ga, gb float64) {
	dp, dm := ep-fp, em-fm
	return wpm * g * (dp - dm), wpm * g * g * (dp + dm)
}

// newtonStep computes the Newton direction Δ = −(∇∇ᵀL̃)⁻¹∇L̃ at
// (a0, w.s.A, w.s.B) into w.dA (dA[0] for a0, dA[1:] for a) and w.dB[1:]
// (for b), by forward and back substitution with the block-arrow Cholesky
// factor. It returns the largest gradient component and the slope ∇L̃ᵀΔ.
func (w *work) newtonStep(a0, g float64) (gn, slope float64, err error) {
	d := len(w.lp)
	g2 := g * g
	w0, wpm := 1-float64(d)/g2, 1/(2*g2)
	e0 := math.Exp(a0)
	g0 := w0 * (e0 - w.l0)
	for i := range d {
		sp := a0 + g*w.s.A[i] + g2*w.s.B[i]
		sm := a0 - g*w.s.A[i] + g2*w.s.B[i]
		w.ep[i], w.em[i] = math.Exp(sp), math.Exp(sm)
		g0 += wpm * (w.ep[i] - w.lp[i] + w.em[i] - w.lm[i])
	}
	l := math.Sqrt(w0 * e0)
	if !(l > 0) || !finite(l) || !finite(g0) {
		return 0, 0, ErrNonFinite
	}
	gn = math.Abs(g0)
	acc := 0.0
	for i := range d { // forward: L_i y_i = −(ga, gb)
		ga, gb := vqGrad(w.ep[i], w.em[i], w.lp[i], w.lm[i], wpm, g)
		gn = math.Max(gn, math.Max(math.Abs(ga), math.Abs(gb)))
		c := arrowBlock(w.ep[i], w.em[i], math.Exp(a0+g2*w.s.B[i]), wpm, g)
		if !(c.l11 > 0 && c.l22 > 0) || !finite(c.l21) || !finite(c.l22) {
			return 0, 0, ErrNonFinite
		}
		y1 := -ga / c.l11
		y2 := (-gb - c.l21*y1) / c.l22
		w.dA[i+1], w.dB[i+1] = y1, y2
		acc += c.r1*y1 + c.r2*y2
	}
	x0 := (-g0 - acc) / l / l
	w.dA[0] = x0
	slope = g0 * x0
	for i := range d { // backward: L_iᵀ x_i = y_i − r_i x0
		c := arrowBlock(w.ep[i], w.em[i], math.Exp(a0+g2*w.s.B[i]), wpm, g)
		z1, z2 := w.dA[i+1]-c.r1*x0, w.dB[i+1]-c.r2*x0
		xb := z2 / c.l22
		xa := (z1 - c.l21*xb) / c.l11
		w.dA[i+1], w.dB[i+1] = xa, xb
		ga, gb := vqGrad(w.ep[i], w.em[i], w.lp[i], w.lm[i], wpm, g)
		slope += ga*xa + gb*xb
	}
	if !finite(slope) {
		return 0, 0, ErrNonFinite
	}
	return gn, slope, nil
}
