package fgraph

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// bethe returns the Bethe / EP energy of the messages,
//
//	log Z = Σ_k log Z_k + Σ_v (1 − d_v) log Z_v,
//	Z_k = ∫ f_k(x_k) Π_{v∈k} n_{v→k}(x_v) dx_k,   Z_v = ∫ Π_{k∋v} m_{k→v}(x_v) dx_v,
//
// with d_v the number of factors on v and n_{v→k} = b_v / m_{k→v}. On a
// tree p(x) = Π_k b_k Π_v b_v^{1−d_v} holds exactly and the message scales
// cancel (each message appears once in Z_v's term and d_v − 1 times in the
// factors' terms), so the energy is the exact log marginal likelihood
// (Yedidia, Freeman & Weiss 2005; Minka 2001 §3.3 for EP's sites). It
// reports false when a needed integral diverges (an improper belief or more
// than one flat incoming message at a factor).
//
// Under power EP (u ≠ 1) a site k enters as its approximation
// t̃_k = Π_j m_{k→j} plus the correction of power EP's evidence (Minka 2004,
// Power EP; infer/ep's logZEP in site space),
//
//	log C̃_k = (1/u) [log Ẑ_k − log ∫ t̃_k^u q\k],   log ∫ t̃_k^u q\k = Σ_j [logNorm(b_j) − logNorm(c_j)],
//
// with c_j = b_j / m_{k→j}^u the power cavities and Ẑ_k = ∫ p(y|f)^u Π_j N(c_j);
// at u = 1 this is the term above.
func bethe(g *Graph, ad *adjacency, st *state, u float64) (float64, bool) {
	z := 0.0
	gdeg := gateDegree(g)
	for v, b := range st.belief {
		if !(b.Prec > 0) {
			return 0, false
		}
		z += float64(1-ad.degree(v)-int(gdeg[v])) * logNorm(b)
	}
	for k, fk := range g.facs() {
		var lz float64
		ok := true
		if u == 1 || fk.gaussian() {
			lz, ok = factorLogZ(g, st, fk, k)
		} else {
			lz, ok = powerSiteLogZ(g, st, fk, u)
		}
		if !ok {
			return 0, false
		}
		z += lz
	}
	return z, true
}

// factorLogZ is log Z_k. With incoming messages n_j = exp(−½ τ_j x² + ν_j x)
// = e^{logNorm(n_j)} N(x; m_j, v_j), a linear-Gaussian factor gives
//
//	log Z_k = Σ_j logNorm(n_j) + log N(y; c + Σ a_j m_j, σ² + Σ a_j² v_j),
//
// and when exactly one n_j is flat the integral over x_j is 1/|a_j|, leaving
// Σ_{i≠j} logNorm(n_i) − log |a_j|. A site gives Σ_j logNorm(n_j) + log Z of
// the tilted distribution on its projection.
func factorLogZ(g *Graph, st *state, fk *fac, k int) (float64, bool) {
	lo, hi := fk.lo, fk.hi
	var z, mf, vf float64
	flat := -1
	for e := lo; e < hi; e++ {
		n := st.cavity(fk, e, 1)
		if n.Prec == 0 && n.Shift == 0 && fk.gaussian() && flat < 0 {
			flat = e
			continue
		}
		if !(n.Prec > 0) && fk.gaussian() {
			return gaussianLogZImproper(g, st, k)
		}
		if !(n.Prec > 0) {
			return 0, false
		}
		z += logNorm(n)
		mf += fk.a(e) * n.Shift / n.Prec
		vf += fk.a(e) * fk.a(e) / n.Prec
	}
	mf += fk.c()
	if flat >= 0 {
		return z - math.Log(math.Abs(fk.a(flat))), true
	}
	if fk.gaussian() {
		s := fk.variance() + vf
		d := fk.y() - mf
		return z - 0.5*math.Log(2*math.Pi*s) - 0.5*d*d/s, true
	}
	lz, _, _ := g.liks[fk.site()].Tilted(fk.y(), mf, vf, 1)
	return z + lz, finite(lz)
}

// powerSiteLogZ is a site's term under power EP (see bethe):
// Σ_j logNorm(b_j) + log C̃_k.
func powerSiteLogZ(g *Graph, st *state, fk *fac, u float64) (float64, bool) {
	lo, hi := fk.lo, fk.hi
	var beliefs, cavities, mf, vf float64
	for e := lo; e < hi; e++ {
		b, c := st.belief[fk.v(e)], st.cavity(fk, e, u)
		if !(b.Prec > 0) || !(c.Prec > 0) {
			return 0, false
		}
		beliefs += logNorm(b)
		cavities += logNorm(c)
		a := fk.a(e)
		mf += a * c.Shift / c.Prec
		vf += a * a / c.Prec
	}
	lz, _, _ := g.liks[fk.site()].Tilted(fk.y(), mf+fk.c(), vf, u)
	z := beliefs + (lz+cavities-beliefs)/u
	return z, finite(z)
}

// gaussianLogZImproper is log Z_k of a linear-Gaussian factor when an
// incoming message is improper (a gate's or mixture site's message of
// negative precision, whose product with the factor is still integrable):
// with n_j = exp(−½ τ_j x_j² + ν_j x_j) and d = y − c,
//
//	Λ = diag(τ) + a aᵀ/σ²,   h = ν + a d/σ²,
//	log Z_k = ½ hᵀΛ⁻¹h − ½ log det Λ + (m/2) log 2π − ½ d²/σ² − ½ log 2πσ²,
//
// over the factor's m variables. It reports false when Λ is not positive
// definite (the integral diverges).
func gaussianLogZImproper(g *Graph, st *state, k int) (float64, bool) {
	fk := g.fac(k)
	lo, hi := fk.lo, fk.hi
	m := hi - lo
	lam := mat.NewSymDense(m, nil)
	h := mat.NewVecDense(m, nil)
	s2, d := fk.variance(), fk.y()-fk.c()
	for i := 0; i < m; i++ {
		n := st.cavity(&fk, lo+i, 1)
		ai := fk.a(lo + i)
		h.SetVec(i, n.Shift+ai*d/s2)
		for j := i; j < m; j++ {
			lam.SetSym(i, j, ai*fk.a(lo+j)/s2)
		}
		lam.SetSym(i, i, lam.At(i, i)+n.Prec)
	}
	var ch mat.Cholesky
	if !ch.Factorize(lam) {
		return 0, false
	}
	x := mat.NewVecDense(m, nil)
	if err := ch.SolveVecTo(x, h); err != nil {
		return 0, false
	}
	z := 0.5*mat.Dot(h, x) - 0.5*ch.LogDet() + 0.5*float64(m)*math.Log(2*math.Pi) - 0.5*d*d/s2 - 0.5*math.Log(2*math.Pi*s2)
	return z, finite(z)
}
