package tep

import "math"

// The approximate marginal likelihood of futami §4.3. Sites carry
// normalisers, t̃ⱼ = C̃ⱼ ⊗_t exp_t(⟨Φ, θⱼ⟩) (eq. 39), and
//
//	Z_EP = ∫ p0 ⊗_t t̃_1 ⊗_t … ⊗_t t̃_n dw.
//
// Theorem 2 generalised to k dimensions (our derivation; the paper states the
// one-dimensional case, exponent (3−t)/2 = ν/(ν+1)): for a Student-t θ,
//
//	∫ exp_t(⟨Φ(w), θ⟩ − g) dw = exp_t((g_t(θ) − g)/Ψ)^{ν/(ν+k)}
//
// (write 1 + (1−t)(⟨Φ,θ⟩ − g) = Ψ(1 + δ)(1 + (w−μ)ᵀK(w−μ)/(1+δ)) with
// δ = (1−t)(g_t − g)/Ψ and integrate the Student-t kernel). Hence, with
// exp_t(a) ⊗_t exp_t(b) = exp_t(a+b),
//
//	Z_EP = exp_t(y)^{ν/(ν+k)},  y = (g_t(θ) − g_t(θ0) + Σⱼ ln_t C̃ⱼ)/Ψ(θ),
//	log Z_EP = −ν/2 · log(1 − 2y/(ν+k)),
//
// defined when 1 − 2y/(ν+k) > 0. C̃ⱼ is fixed as in eq. 41 by requiring
// ∫ q\j ⊗_t t̃ⱼ dw = Z1 = ∫ q\j lⱼ^t dw (Theorem 1's Z1), i.e.
//
//	ln_t C̃ⱼ = Ψ_new ln_t(Z1^{(ν+k)/ν}) − g_t(θ_new) + g_t(θ\j),
//	ln_t(Z1^{(ν+k)/ν}) = −(ν+k)/2 · expm1(−2 log Z1/ν).
//
// At t = 1 (ν → ∞) this is the usual EP evidence log Z = A(θ) − A(θ0) +
// Σⱼ log C̃ⱼ with log C̃ⱼ = log Ẑⱼ + A(θ\j) − A(θ_new). The q-product is not
// invariant under a change of the density's scale, so g_t and Ψ are taken in
// the problem's own coordinates w: Ψ_w = Ψ_u·e^{cw}, hᵀP⁻¹h scales by e^{cw}.

// gw is g_t(θ) = (ν+k)/2 (Ψ − 1) + ½ μᵀPμ in w coordinates, from log Ψ and
// hᵀP⁻¹h in whitened coordinates.
func (st *state) gw(logPsiU, quadU float64) float64 {
	k := float64(st.k)
	return (st.nu+k)/2*math.Expm1(logPsiU+st.cw) + 0.5*math.Exp(st.cw)*quadU
}

// lnCOf returns ln_t C̃ⱼ for a site update with tilted normaliser z1.
func (st *state) lnCOf(z1, logPsiNew, quadNew, logPsiCav, quadCav float64) float64 {
	k := float64(st.k)
	lnZ1 := -(st.nu + k) / 2 * math.Expm1(-2*math.Log(z1)/st.nu)
	return math.Exp(logPsiNew+st.cw)*lnZ1 - st.gw(logPsiNew, quadNew) + st.gw(logPsiCav, quadCav)
}

// logZ returns log Z_EP for the posterior (log Ψ, hᵀP⁻¹h in whitened
// coordinates); ok is false where Z_EP is undefined or not finite.
func (st *state) logZ(logPsi, quad float64) (float64, bool) {
	k := float64(st.k)
	logPsi0 := math.Log(st.lam0 * st.nu / (st.nu + k))
	quad0 := st.lam0 * dot(st.m0, st.m0)
	var sum float64
	for _, c := range st.lnC {
		sum += c
	}
	y := (st.gw(logPsi, quad) - st.gw(logPsi0, quad0) + sum) / math.Exp(logPsi+st.cw)
	a := -2 * y / (st.nu + k)
	if !(a > -1) || math.IsInf(a, 0) {
		return 0, false
	}
	lz := -st.nu / 2 * math.Log1p(a)
	return lz, !math.IsNaN(lz) && !math.IsInf(lz, 0)
}
