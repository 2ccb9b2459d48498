package tep

import (
	"context"
	"math"

	"github.com/fg-infer/fg/families"
)

// damped returns site j's relative scalars after the proposal pr with
// damping δ: (1−δ)·old + δ·new in (cⱼ, dⱼ, eⱼ), new = (1 − 1/s, r/s, κ/s),
// by the damping every EP engine shares (families.Damped) applied to the
// site's relative scalars.
func (st *state) damped(j int, pr proposal, damping float64) (c, d, e float64) {
	c, d, e = 1-1/pr.S, pr.R/pr.S, pr.Kappa/pr.S
	return families.Damped(st.c[j], c, damping), families.Damped(st.d[j], d, damping), families.Damped(st.e[j], e, damping)
}

// apply replaces site j after a sequential proposal, in O(k²): with
// Δc, Δd, Δe the changes of its scalars, A += Δd ggᵀ (rank-one Cholesky
// update), b += Δe g, γ −= Δc and, by Sherman–Morrison with y = A⁻¹g from
// siteCavity(j),
//
//	μA += Δe y − y Δd (mA + Δe wA)/(1 + Δd wA).
//
// The update is refused (false: counted as skipped) when the new posterior
// precision (A + Δd ggᵀ)/(γ − Δc) would not be positive definite, i.e.
// 1 + Δd wA ≤ 0 or γ − Δc ≤ 0. It must follow siteCavity(j) directly.
func (st *state) apply(j int, pr proposal, damping float64) bool {
	c, d, e := st.damped(j, pr, damping)
	return st.shift(j, c-st.c[j], d-st.d[j], e-st.e[j], 0, pr.LnC)
}

// absorb is the ADF step q ← proj(q·lⱼ) from a zero site: θ' = σθ +
// δ(κg, rggᵀ) with σ = 1 + δ(s − 1) (damping δ as in the site form
// (1−δ)·0 + δ·θⱼ), i.e. A += (γδr/σ) ggᵀ, b += (γδκ/σ) g, γ ← γ/σ. The
// accumulated coefficients are kept in dⱼ, eⱼ so that refresh rebuilds A, b.
func (st *state) absorb(j int, pr proposal, damping float64) bool {
	sig := families.Damped(1, pr.S, damping)
	if !(sig > 0) {
		return false
	}
	f := st.gamma * damping / sig
	return st.shift(j, 0, f*pr.R, f*pr.Kappa, st.gamma/sig-st.gamma, pr.LnC)
}

// shift changes site j by (Δc, Δd, Δe) and γ by −Δc + dg, maintaining the
// Cholesky factor of A and μA (formulas in apply's comment).
func (st *state) shift(j int, dc, dd, de, dg, lnC float64) bool {
	g := st.g[j]
	y := st.y
	wA, mA := dot(g, y), dot(g, st.muA)
	gamma := st.gamma - dc + dg
	onePlus := 1 + dd*wA
	if !(gamma > 0) || !(onePlus > 0) || math.IsInf(gamma, 0) {
		return false
	}
	if dd != 0 {
		copy(st.x, g)
		if !st.f.rankOne(dd, st.x) {
			st.refresh(context.Background()) // f was partly updated: rebuild from the unchanged sites
			return false
		}
	}
	coef := de - dd*(mA+de*wA)/onePlus
	axpy(coef, y, st.muA)
	axpy(de, g, st.b)
	st.gamma = gamma
	st.c[j] += dc
	st.d[j] += dd
	st.e[j] += de
	st.lnC[j] = lnC
	return true
}

// set replaces site j's scalars without touching A (parallel schedule:
// refresh rebuilds A, b, γ after all sites are set).
func (st *state) set(j int, pr proposal, damping float64) {
	st.c[j], st.d[j], st.e[j] = st.damped(j, pr, damping)
	st.lnC[j] = pr.LnC
}
