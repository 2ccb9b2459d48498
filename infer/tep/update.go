package tep

import (
	"math"

	"github.com/fg-infer/fg/families/tfam"
)

// cavStats are the cavity quantities a site update needs: with
// θ\j = (h\j, P\j), w = gᵀP\j⁻¹g, m = gᵀμ\j (μ\j = P\j⁻¹h\j),
// quad = h\jᵀμ\j and logDet = log|P\j|.
type cavStats struct {
	w, m, quad, logDet float64
}

// siteCavity returns the statistics of θ\j = θ − θⱼ (q-division =
// subtraction, futami eqs 32–33) in O(k²) from the relative representation:
// θ\j = (1−cⱼ)θ − (eⱼg, dⱼggᵀ) = φ(b, A) − (eⱼg, dⱼggᵀ), φ = (1−cⱼ)/γ, so with
// y = A⁻¹g (two triangular solves), wA = gᵀy, mA = gᵀμA, qA = bᵀμA and
// δ = dⱼ/φ, D = 1 − δ wA, Sherman–Morrison and the determinant lemma give
//
//	P\j⁻¹g = y/(φD),   w = wA/(φD),   m = (φ mA − eⱼ wA)/(φD),
//	quad   = (φ²qA − 2φ eⱼ mA + eⱼ² wA + δ (φ mA − eⱼ wA)²/D)/φ,
//	log|P\j| = k log φ + log|A| + log D.
//
// P\j is positive definite iff φ > 0 and D > 0 (φ > 0 always holds here:
// γ > 0 and cⱼ < 1). y is left in st.y for apply. ok is false when the
// cavity is not positive definite (the update must then be skipped,
// algorithms.md).
func (st *state) siteCavity(j int) (cavStats, bool) {
	if !st.valid {
		return cavStats{}, false
	}
	g := st.g[j]
	y := st.y
	st.f.solve(y, g)
	wA, mA, qA := dot(g, y), dot(g, st.muA), dot(st.b, st.muA)
	phi := (1 - st.c[j]) / st.gamma
	dj, ej := st.d[j], st.e[j]
	delta := dj / phi
	den := 1 - delta*wA
	if !(phi > 0) || !(den > 0) || !(wA > 0) {
		return cavStats{}, false
	}
	ye := phi*mA - ej*wA
	cs := cavStats{
		w:      wA / (phi * den),
		m:      ye / (phi * den),
		quad:   (phi*phi*qA - 2*phi*ej*mA + ej*ej*wA + delta*ye*ye/den) / phi,
		logDet: float64(st.k)*math.Log(phi) + st.f.logDet() + math.Log(den),
	}
	return cs, cs.w > 0 && !math.IsNaN(cs.m) && !math.IsInf(cs.m, 0)
}

// propose computes the new site j by escort moment matching. With
// Σ\j = ρ P\j⁻¹, ρ = (ν+k)Ψ\j/ν, the projection s = gᵀu has cavity scale
// v = ρ w, and the escort of the cavity is St(ν+2, μ\j, Σ'), Σ' = νΣ\j/(ν+2)
// = σ P\j⁻¹ (tfam.StudentT.Escort). Under it u | s is Student-t with
//
//	E[u | s]   = μ\j + Σ'g (s − m)/v'
//	Cov[u | s] = (ν' + z²)/(ν' − 1) · (Σ' − Σ'ggᵀΣ'/v'),   z² = (s−m)²/v',
//
// ν' = ν+2, v' = gᵀΣ'g, so the escort-tilted ∝ St(ν', μ\j, Σ') l(s)^t has
//
//	μ_new = μ\j + P\j⁻¹g (E s − m)/w
//	Σ_new = α Σ' + β Σ'ggᵀΣ',  α = (ν' + E z²)/(ν' − 1),  β = Var s/v'² − α/v',
//
// with E s, Var s from the one-dimensional tilted density (moments.go).
// Escort moment matching (futami eq. 17) sets q_new = St(ν, μ_new, Σ_new),
// whose natural parameters are
//
//	P_new = s P\j + r ggᵀ,   h_new = s h\j + κ g,
//	s = (ν+k)Ψ_new/(ν α σ),  r = −s γ'/(1 + γ'w),  γ' = βσ/α,
//	κ = s (E s − m)/w + r E s,
//
// by Sherman–Morrison, and log|Σ_new| = k log(ασ) − log|P\j| + log(1 + γ'w)
// gives Ψ_new. The new site θ_new − θ\j (eqs 37–38) = (s−1)θ\j + (κg, rggᵀ)
// is, relative to θ_new, cⱼ = 1 − 1/s, dⱼ = r/s, eⱼ = κ/s. ok is false when
// the cavity is not positive definite or the moments are not finite.
func (st *state) propose(j int) (proposal, bool) {
	cs, ok := st.siteCavity(j)
	if !ok {
		return proposal{}, false
	}
	return st.matchSite(j, cs)
}

// proposal is a site update: the scalars (s, r, κ) of θ_new = s θ\j +
// (κg, rggᵀ) and the site normaliser ln_t C̃ⱼ.
type proposal struct {
	S, R, Kappa, LnC float64
}

// matchSite turns cavity statistics into the moment-matched update of site
// j (formulas in propose's comment) and its normaliser (evidence.go).
func (st *state) matchSite(j int, cs cavStats) (proposal, bool) {
	nu, k := st.nu, float64(st.k)
	logPsiCav := tfam.LogPsiFromPrecision(nu, st.k, cs.logDet)
	rho := (nu + k) * math.Exp(logPsiCav) / nu
	tm := tiltMoments(st.sites[j], st.t, nu+2, cs.m, nu*rho/(nu+2)*cs.w)
	u, ok := st.match(cs, rho, tm)
	if !ok {
		return proposal{}, false
	}
	quadNew := u.s*(cs.quad+cs.m*(tm.Mean-cs.m)/cs.w) + u.kappa*tm.Mean
	z1 := tiltMoments(st.sites[j], st.t, nu, cs.m, rho*cs.w).Z
	lnC := st.lnCOf(z1, u.logPsi, quadNew, logPsiCav, cs.quad)
	return proposal{S: u.s, R: u.r, Kappa: u.kappa, LnC: lnC}, true
}

// update holds the scalars of P_new = s P\j + r ggᵀ, h_new = s h\j + κ g
// and log Ψ_new.
type update struct{ s, r, kappa, logPsi float64 }

// match turns the escort-tilted moments tm of the projection into the
// natural parameters of q_new (formulas in propose's comment); ok is false
// when they are not finite or the tilted variance is not positive.
func (st *state) match(c cavStats, rho float64, tm tilt) (update, bool) {
	if !(tm.Z > 0) || !(tm.Var > 0) || math.IsInf(tm.Z, 0) || math.IsInf(tm.Var, 0) || math.IsNaN(tm.Mean) {
		return update{}, false
	}
	nu, k := st.nu, float64(st.k)
	nuE, sigma := nu+2, nu*rho/(nu+2)
	vEsc := sigma * c.w
	dm := tm.Mean - c.m
	alpha := (nuE + (tm.Var+dm*dm)/vEsc) / (nuE - 1)
	beta := tm.Var/(vEsc*vEsc) - alpha/vEsc
	onePlus := tm.Var / (alpha * vEsc) // 1 + γ'w
	logDetNew := k*math.Log(alpha*sigma) - c.logDet + math.Log(onePlus)
	var u update
	u.logPsi = -2 / (nu + k) * (tfam.LogNormConst(nu, st.k) - 0.5*logDetNew)
	u.s = (nu + k) * math.Exp(u.logPsi) / (nu * alpha * sigma)
	u.r = -u.s * (beta * sigma / alpha) / onePlus
	u.kappa = u.s*dm/c.w + u.r*tm.Mean
	for _, x := range []float64{u.s, u.r, u.kappa, u.logPsi} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return update{}, false
		}
	}
	return u, u.s > 0
}
