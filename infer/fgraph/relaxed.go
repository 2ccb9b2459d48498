package fgraph

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/mathx"
)

// Relaxed EP on gated factors (qi-guo-relaxed-ep-rbp.md §3, eq. 5; the
// factorised case §4.2, relaxed BP), under family = factorized.
//
// Gate j touches the Gaussian variables x_v (v in its union) and its
// selector z, and the factorised family is q(x, z) = Π_v q(x_v) q(z). Its
// relaxation factor, one weight b ≥ 0 per gate as RBP's b_ij per edge, is
// the §4.1 factor on each Gaussian variable,
//
//	r_j(x, z) = Π_v N(x_v; m_v, 1/b),
//
// m_v the mean of the gate's current message to x_v (0 while that message
// is flat), the form fg's relaxed EP uses for sites (infer/ep); its
// discrete part is the identity (η_z = 0 is one of the choices §3.3
// leaves open). Minimising KL_r(p̂_j r_j ‖ q r_j) over the factorised q for
// fixed b moment-matches q r_j to the relaxed tilted distribution
//
//	P_b(x, z = k) ∝ c(k) f_k(y | a_kᵀx + c_k) Π_v N(x_v; h̃_v, λ̃_v),
//
// whose Gaussian cavities are relaxed as in eqs 14–15 (precision τ_v + b,
// shift ν_v + b m_v). Both q r_j and P_b factorise the same way as
// before, so the update is the gate's ordinary one (gateMessages) against
// the relaxed cavities: the message to x_v is proj_v(P_b) / (q\ r_v), and
// since r_j is flat in z, q(z) = P_b(z) and the message to the selector is
// each branch's evidence Z_k(b) under the relaxed cavity.
//
// What is left is the line search over b of Q(b) = KL(P_b ‖ proj P_b) + c b,
// proj P_b = Π_v N(x_v; m̂_v, v̂_v) · P_b(z) the factorised projection (as
// RBP's KL between q̂^r(x_i, x_j) and q^r(x_i) q^r(x_j)). With P(k) =
// c(k) Z_k / Z the responsibilities and P_k the tilted distribution of
// branch k, E_P[log P] − E_P[log proj P] telescopes: the terms log c(k) +
// log Z_k − log Z cancel E_P[log P(z)], leaving
//
//	KL(b) = Σ_k P(k) (E_{P_k}[log f_k] − log Z_k) + Σ_v [½ log(v̂_v/λ̃_v) + ½ − E_P[(x_v − h̃_v)²]/(2λ̃_v)]
//	      = Σ_k P(k) (E_{P_k}[log f_k] − log Z_k) + Σ_v [½ log(1 + λ̃_v D2_v) − ½ λ̃_v (D2_v + D1_v²)],
//
// D1_v, D2_v the mixture's moment corrections (mixtureMoments), and
// E_{P_k}[log f_k] the likelihood's ExpLogLik on branch k's projection.
// With one branch and one variable this is infer/ep's relaxed cost
// (relaxed.go there); with several branches it is the KL over (x, z),
// which exceeds the KL of the x-marginal by the mutual information of x
// and z under P_b, the price of the factorised family. b = 0 is gated EP
// with kl; a large c forces b = 0 (kl exactly); a gate whose branches are
// all Gaussian on one variable with one state has KL ≡ 0 and b = 0.
// TestRelaxedGateAgainstQuadrature checks the fixed point against a
// quadrature of the definition minimised by a solver in the test.

// An ordinary site p(y | aᵀx + c) on a gated graph is relaxed the same way:
// it is a gate with one branch and no selector (P(k) = 1), so its update
// is the site's against the relaxed cavities and KL(b) has the same closed
// form (with several variables it is the KL to the product of the relaxed
// tilted marginals, as for RBP's pairwise factors). On one variable this
// is exactly infer/ep's relaxed update of that site (TestRelaxedSiteAsEP).
// Gaussian sites are not relaxed: like the linear-Gaussian factors they
// are in the family already (the paper absorbs such factors into q, §3.2).

// relaxation is the relaxed-KL state of the factorised scheduler.
type relaxation struct {
	c     float64   // the penalty weight
	b     []float64 // per gate: the weight of its last update
	sites []gate    // per site (g.liks order): the site as a one-branch gate
	sb    []float64 // per site: the weight of its last update (0 for a Gaussian site)
}

// siteGates returns every site of g as a gate with one branch and no
// selector (z = −1), the form relaxedKL and relaxWeight work on.
func siteGates(g *Graph) []gate {
	out := make([]gate, len(g.liks))
	for k := range g.NumFactors() {
		fk := g.fac(k)
		if fk.gaussian() {
			continue
		}
		lo, hi := fk.lo, fk.hi
		vars, coefs, pos := make([]int, hi-lo), fk.coefs(make([]float64, 0, hi-lo)), make([]int, hi-lo)
		for e := lo; e < hi; e++ {
			vars[e-lo], pos[e-lo] = fk.v(e), e-lo
		}
		out[fk.site()] = gate{z: -1, y: fk.y(), vars: vars, pos: [][]int{pos},
			branches: []Branch{{Lik: g.liks[fk.site()], Vars: vars, Coefs: coefs, C: fk.c()}}}
	}
	return out
}

// relaxes reports whether factor k is a site that relaxed KL relaxes.
func (r *relaxation) relaxes(g *Graph, k int) bool {
	if r == nil || g.gaussian(k) {
		return false
	}
	_, gaussian := g.lik(k).(ep.Gaussian)
	return !gaussian
}

// relaxedSite computes the relaxed messages of site k (a one-branch gate,
// see above) into out; false when a cavity or the tilted distribution is
// improper or a result is not finite.
func (sc *gateScratch) relaxedSite(g *Graph, st *state, k int, out []families.Gaussian) bool {
	si := g.siteIndex(k)
	gt := &sc.rx.sites[si]
	fk := g.fac(k)
	lo, hi := fk.lo, fk.hi
	for e := lo; e < hi; e++ {
		c, m, i := st.cavity(&fk, e, 1), st.msg[e], e-lo
		if !(c.Prec > 0) || !finite(c.Shift) {
			return false
		}
		sc.cav[i], sc.base[i], sc.mold[i] = c, c, 0
		if m.Prec != 0 {
			sc.mold[i] = m.Shift / m.Prec
		}
	}
	sc.lc[0] = 0
	b := sc.relaxWeight(gt, sc.rx.c)
	sc.relaxTo(gt, b)
	_, d1, d2 := branchTilted(gt.branches[0], gt.y, sc.mf[0], sc.vf[0], 1)
	if !finite(d1, d2) {
		return false
	}
	sc.d1[0], sc.d2[0], sc.r[0] = d1, d2, 1
	for i := range gt.vars {
		if !sc.variableMessage(gt, i, 1) {
			return false
		}
		out[i] = sc.out[i]
	}
	sc.rx.sb[si] = b
	return true
}

// messagePower returns the power u of the factorised scheduler and, under
// relaxed KL, its relaxation state. Relaxed KL runs under Factorized only
// on graphs with gates (it relaxes the gates and the non-Gaussian sites).
func messagePower(g *Graph, s Settings) (float64, *relaxation, error) {
	d, ok := s.Divergence.(infer.RelaxedKL)
	if !ok {
		u, err := power(s.Divergence)
		return u, nil, err
	}
	if len(g.gates) == 0 {
		return 0, nil, fmt.Errorf("fgraph: %v needs family = full, or gated factors under family = factorized", d)
	}
	if !(d.C >= 0) || math.IsInf(d.C, 1) {
		return 0, nil, fmt.Errorf("fgraph: %v, want 0 ≤ c < ∞", d)
	}
	return 1, &relaxation{c: d.C, b: make([]float64, len(g.gates)), sites: siteGates(g), sb: make([]float64, len(g.liks))}, nil
}

// relaxTo sets the cavities to the relaxed ones for weight b,
// base_v · N(x_v; m_v, 1/b), and the branches' projection cavities.
func (sc *gateScratch) relaxTo(gt *gate, b float64) {
	for i := range gt.vars {
		sc.cav[i] = families.Gaussian{Prec: sc.base[i].Prec + b, Shift: sc.base[i].Shift + b*sc.mold[i]}
	}
	sc.projections(gt)
}

// relaxedKL returns KL(P_b ‖ proj P_b) for gate gt (see above; the
// discrete cavity sc.lc and the unrelaxed cavities sc.base as cavities
// left them), +Inf when a tilted variance is not positive or a branch's
// moments are not finite.
func (sc *gateScratch) relaxedKL(gt *gate, b float64) float64 {
	sc.relaxTo(gt, b)
	K := len(gt.branches)
	for k, br := range gt.branches {
		lz, d1, d2 := branchTilted(br, gt.y, sc.mf[k], sc.vf[k], 1)
		if math.IsNaN(lz) || math.IsInf(lz, 1) || !finite(d1, d2) {
			return math.Inf(1)
		}
		sc.lz[k], sc.d1[k], sc.d2[k], sc.r[k] = lz, d1, d2, sc.lc[k]+lz
	}
	if !normalize(sc.r[:K]) {
		return math.Inf(1)
	}
	kl := 0.0
	for k, br := range gt.branches {
		// A branch on no variable (vf = 0) is a constant density: its
		// E[log f_k] = log Z_k, a zero term that is not evaluated (the
		// closed forms of some likelihoods divide by √vf).
		if sc.r[k] > 0 && sc.vf[k] > 0 {
			kl += sc.r[k] * (br.Lik.ExpLogLik(gt.y, sc.mf[k], sc.vf[k]) - sc.lz[k])
		}
	}
	for i := range gt.vars {
		D1, D2 := sc.mixtureMoments(gt, i)
		lam := 1 / sc.cav[i].Prec
		if !(1+lam*D2 > 0) {
			return math.Inf(1)
		}
		kl += 0.5*math.Log1p(lam*D2) - 0.5*lam*(D2+D1*D1)
	}
	if math.IsNaN(kl) {
		return math.Inf(1)
	}
	return kl
}

// klRounding is the KL(P_0 ‖ proj P_0) below which the tilted distribution
// counts as in the family (a Gaussian branch on one variable: KL is 0 up
// to the rounding of its O(1) terms) and the gate is not relaxed.
const klRounding = 1e-13

// relaxWeight minimises Q(b) = KL(b) + c b over b ≥ 0 as infer/ep's line
// search does, by mathx.PenalisedMin (Q need not be unimodal: b = 0 is often
// a local minimum next to a narrow valley): a log-spaced grid over
// [τ_min·10⁻⁶, b_max], τ the cavity precisions of the gate's variables,
// b_max = min(τ_max·10⁶, Q(0)/c), then the root of Q' by Brent's method
// around the best grid point. It returns 0 when no b > 0 beats b = 0, or
// KL(0) ≤ klRounding.
func (sc *gateScratch) relaxWeight(gt *gate, c float64) float64 {
	q := func(b float64) float64 { return math.Max(sc.relaxedKL(gt, b), 0) + c*b }
	q0 := q(0)
	if !(q0 > klRounding) || len(gt.vars) == 0 {
		return 0
	}
	tmin, tmax := math.Inf(1), 0.0
	for i := range gt.vars {
		tmin, tmax = math.Min(tmin, sc.base[i].Prec), math.Max(tmax, sc.base[i].Prec)
	}
	dq := func(b float64) float64 { return sc.relaxedSlope(gt, b) + c }
	return mathx.PenalisedMin(q, dq, q0, c, tmin*1e-6, tmax*1e6)
}

// relaxedSlope is dKL/db by central differences with one Richardson step,
// (4 D(h/2) − D(h))/3, truncation O(h⁴). P_b changes on the scale s =
// 1/Σ_v((h̃_v − m_v)² + λ̃_v) in b (the exponent −½ b Σ_v (x_v − m_v)² is
// O(1) there); h = 10⁻³ s ≤ 10⁻³ (τ_v + b) keeps every relaxed precision
// positive at b − h.
func (sc *gateScratch) relaxedSlope(gt *gate, b float64) float64 {
	sc.relaxTo(gt, b)
	w := 0.0
	for i := range gt.vars {
		h, lam := sc.cav[i].Shift/sc.cav[i].Prec, 1/sc.cav[i].Prec
		w += (h-sc.mold[i])*(h-sc.mold[i]) + lam
	}
	h := 1e-3 / w
	d := func(e float64) float64 { return (sc.relaxedKL(gt, b+e) - sc.relaxedKL(gt, b-e)) / (2 * e) }
	return (4*d(h/2) - d(h)) / 3
}
