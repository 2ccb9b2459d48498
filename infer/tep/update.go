package tep

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/tfam"
)

// proposal is a new site θⱼ = θ_new − θ\j and its normaliser ln_t C̃ⱼ.
type proposal struct {
	P   []float64 // packed (s−1) P\j + r ggᵀ
	H   []float64 // (s−1) h\j + κ g
	LnC float64
	S   float64 // the scalar s: cavity precision multiplier
}

// cavity is θ\j = θ − θⱼ (q-division = subtraction, futami eqs 32–33) with
// the quantities the update needs: the Cholesky factor of P\j, x = P\j⁻¹g,
// w = gᵀx, μ\j = P\j⁻¹h\j, m = gᵀμ\j and log Ψ\j.
type cavity struct {
	P      *mat.SymDense
	h      []float64
	chol   mat.Cholesky
	x, mu  []float64
	w, m   float64
	logPsi float64
}

// cavityOf forms θ\j; ok is false when P\j is not positive definite (the
// update must then be skipped, algorithms.md). The returned cavity reuses
// the state's scratch storage and is valid until the next call.
func (st *state) cavityOf(j int) (*cavity, bool) {
	k := st.k
	if st.cav == nil {
		st.cav = &cavity{P: mat.NewSymDense(k, nil), h: make([]float64, k)}
	}
	c := st.cav
	c.P.CopySym(st.P)
	copy(c.h, st.h)
	if st.siteP[j] != nil {
		addPacked(c.P.RawSymmetric(), st.siteP[j], -1)
		axpy(-1, st.siteH[j], c.h)
	}
	if !c.chol.Factorize(c.P) {
		return nil, false
	}
	xv, mv := mat.NewVecDense(k, c.x), mat.NewVecDense(k, c.mu)
	if c.chol.SolveVecTo(xv, mat.NewVecDense(k, st.g[j])) != nil ||
		c.chol.SolveVecTo(mv, mat.NewVecDense(k, c.h)) != nil {
		return nil, false
	}
	c.x, c.mu = xv.RawVector().Data, mv.RawVector().Data
	c.w, c.m = dot(st.g[j], c.x), dot(st.g[j], c.mu)
	c.logPsi = tfam.LogPsiFromPrecision(st.nu, k, c.chol.LogDet())
	return c, c.w > 0 && !math.IsNaN(c.m)
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
//	μ_new = μ\j + x (E s − m)/w
//	Σ_new = α Σ' + β Σ'ggᵀΣ',  α = (ν' + E z²)/(ν' − 1),  β = Var s/v'² − α/v',
//
// with E s, Var s from the one-dimensional tilted density (moments.go).
// Escort moment matching (futami eq. 17) sets q_new = St(ν, μ_new, Σ_new),
// whose natural parameters are
//
//	P_new = s P\j + r ggᵀ,   h_new = s h\j + κ g,
//	s = (ν+k)Ψ_new/(ν α σ),  r = −s γ/(1 + γw),  γ = βσ/α,
//	κ = s (E s − m)/w + r E s,
//
// by Sherman–Morrison, and log|Σ_new| = k log(ασ) − log|P\j| + log(1 + γw)
// gives Ψ_new. The new site is θ_new − θ\j (eqs 37–38). ok is false when
// the cavity is not positive definite or the moments are not finite.
func (st *state) propose(j int) (proposal, bool) {
	c, ok := st.cavityOf(j)
	if !ok {
		return proposal{}, false
	}
	nu, k := st.nu, float64(st.k)
	rho := (nu + k) * math.Exp(c.logPsi) / nu
	tm := tiltMoments(st.sites[j], st.t, nu+2, c.m, nu*rho/(nu+2)*c.w)
	u, ok := st.match(c, rho, tm)
	if !ok {
		return proposal{}, false
	}
	g := st.g[j]
	pr := proposal{P: packUpper(c.P.RawSymmetric(), u.s-1, u.r, g), H: scaled(u.s-1, c.h), S: u.s}
	axpy(u.kappa, g, pr.H)
	quadCav := dot(c.h, c.mu)
	quadNew := u.s*(quadCav+c.m*(tm.Mean-c.m)/c.w) + u.kappa*tm.Mean
	z1 := tiltMoments(st.sites[j], st.t, nu, c.m, rho*c.w).Z
	pr.LnC = st.lnCOf(z1, u.logPsi, quadNew, c.logPsi, quadCav)
	return pr, true
}

// update holds the scalars of P_new = s P\j + r ggᵀ, h_new = s h\j + κ g
// and log Ψ_new.
type update struct{ s, r, kappa, logPsi float64 }

// match turns the escort-tilted moments tm of the projection into the
// natural parameters of q_new (formulas in propose's comment); ok is false
// when they are not finite or the tilted variance is not positive.
func (st *state) match(c *cavity, rho float64, tm tilt) (update, bool) {
	if !(tm.Z > 0) || !(tm.Var > 0) || math.IsInf(tm.Z, 0) || math.IsInf(tm.Var, 0) || math.IsNaN(tm.Mean) {
		return update{}, false
	}
	nu, k := st.nu, float64(st.k)
	nuE, sigma := nu+2, nu*rho/(nu+2)
	vEsc := sigma * c.w
	dm := tm.Mean - c.m
	alpha := (nuE + (tm.Var+dm*dm)/vEsc) / (nuE - 1)
	beta := tm.Var/(vEsc*vEsc) - alpha/vEsc
	onePlus := tm.Var / (alpha * vEsc) // 1 + γw
	logDetNew := k*math.Log(alpha*sigma) - c.chol.LogDet() + math.Log(onePlus)
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
	return u, true
}

// apply replaces site j by (1−δ)·old + δ·proposal in natural parameters and
// updates θ incrementally.
func (st *state) apply(j int, pr proposal, damping float64) {
	raw := st.P.RawSymmetric()
	if old := st.siteP[j]; old != nil {
		addPacked(raw, old, -1)
		axpy(-1, st.siteH[j], st.h)
		if damping != 1 {
			for i := range pr.P {
				pr.P[i] = (1-damping)*old[i] + damping*pr.P[i]
			}
			for i := range pr.H {
				pr.H[i] = (1-damping)*st.siteH[j][i] + damping*pr.H[i]
			}
		}
	} else if damping != 1 {
		for i := range pr.P {
			pr.P[i] *= damping
		}
		for i := range pr.H {
			pr.H[i] *= damping
		}
	}
	st.siteP[j], st.siteH[j], st.lnC[j] = pr.P, pr.H, pr.LnC
	addPacked(raw, pr.P, 1)
	axpy(1, pr.H, st.h)
}
