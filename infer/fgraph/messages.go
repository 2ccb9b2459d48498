package fgraph

import (
	"math"

	"github.com/fg-infer/fg/families"
)

// state holds the messages factor → variable on every edge and the beliefs
// b_v = Π_{k∋v} m_{k→v}, kept as sums of natural parameters so that the
// message variable → factor is b_v / m_{k→v} (belief minus message).
type state struct {
	msg    []families.Gaussian // per edge
	belief []families.Gaussian // per variable
	gates  gateState
}

func newState(g *Graph) *state {
	return &state{msg: make([]families.Gaussian, g.numEdges()), belief: make([]families.Gaussian, g.n), gates: newGateState(g)}
}

// cavity returns the message variable → factor on edge e of factor f
// with power u: b_v / m_e^u (u = 1 except for power EP).
func (s *state) cavity(f *fac, e int, u float64) families.Gaussian {
	b, m := s.belief[f.v(e)], s.msg[e]
	return families.Gaussian{Prec: b.Prec - u*m.Prec, Shift: b.Shift - u*m.Shift}
}

// set replaces the message on edge e of factor f, updating the belief of
// its variable.
func (s *state) set(f *fac, e int, m families.Gaussian) {
	v := f.v(e)
	old := s.msg[e]
	s.belief[v].Prec += m.Prec - old.Prec
	s.belief[v].Shift += m.Shift - old.Shift
	s.msg[e] = m
}

// gaussianMessage is the exact message of the linear-Gaussian factor
// N(y; Σ_k a_k x_k + c, σ²) to x_j given the incoming messages
// N(x_k; m_k, v_k) of the other variables:
//
//	a_j x_j ~ N(y − c − Σ_{k≠j} a_k m_k,  S),   S = σ² + Σ_{k≠j} a_k² v_k,
//	τ = a_j²/S,   ν = a_j (y − c − Σ_{k≠j} a_k m_k)/S.
//
// An incoming flat message (τ = ν = 0) makes the outgoing one flat. It
// reports false when an incoming message is improper (τ < 0, or τ = 0
// with ν ≠ 0).
func gaussianMessage(s *state, fk *fac, j int) (families.Gaussian, bool) {
	lo, hi := fk.lo, fk.hi
	S, r := fk.variance(), fk.y()-fk.c()
	for e := lo; e < hi; e++ {
		if e == j {
			continue
		}
		n := s.cavity(fk, e, 1)
		if n.Prec == 0 && n.Shift == 0 {
			return families.Gaussian{}, true
		}
		if !(n.Prec > 0) {
			return families.Gaussian{}, false
		}
		a := fk.a(e)
		S += a * a / n.Prec
		r -= a * n.Shift / n.Prec
	}
	a := fk.a(j)
	return families.Gaussian{Prec: a * a / S, Shift: a * r / S}, true
}

// wideFactor is the degree above which a linear-Gaussian factor computes
// all its messages from shared sums (gaussianMessages, O(d)) instead of one
// message at a time (O(d²)).
const wideFactor = 8

// gaussianMessages computes every message of linear-Gaussian factor k in
// O(d) from the sums over all edges, S = σ² + Σ a_k² v_k and
// r = y − c − Σ a_k m_k, leaving each target's own term out:
// S_j = S − a_j² v_j, r_j = r + a_j m_j. When a target's own term dominates
// S (a_j² v_j > S/2, where the subtraction would lose digits) that message
// is computed directly. A flat incoming message makes the others flat.
func gaussianMessages(s *state, fk *fac, out []families.Gaussian) bool {
	lo, hi := fk.lo, fk.hi
	S, r := fk.variance(), fk.y()-fk.c()
	flat := -1
	for e := lo; e < hi; e++ {
		n := s.cavity(fk, e, 1)
		if n.Prec == 0 && n.Shift == 0 {
			if flat >= 0 {
				clear(out[:hi-lo])
				return true
			}
			flat = e
			continue
		}
		if !(n.Prec > 0) {
			return false
		}
		a := fk.a(e)
		S += a * a / n.Prec
		r -= a * n.Shift / n.Prec
	}
	for e := lo; e < hi; e++ {
		a := fk.a(e)
		switch {
		case flat >= 0 && e != flat:
			out[e-lo] = families.Gaussian{}
		case e == flat:
			out[e-lo] = families.Gaussian{Prec: a * a / S, Shift: a * r / S}
		default:
			n := s.cavity(fk, e, 1)
			own := a * a / n.Prec
			if own > S/2 {
				out[e-lo], _ = gaussianMessage(s, fk, e)
				continue
			}
			Sj, rj := S-own, r+a*n.Shift/n.Prec
			out[e-lo] = families.Gaussian{Prec: a * a / Sj, Shift: a * rj / Sj}
		}
	}
	return true
}

// siteMessages computes the EP messages of the likelihood factor
// p(y | f), f = Σ_k a_k x_k + c, to every variable it touches, under the
// factorised approximation (one Gaussian belief per variable; Minka 2001
// §3.2, Infer.NET's operators): the multi-edge form of the shared site
// update (families/site.go). With cavities N(x_k; m_k, v_k) = b_k / m_k^u,
// the projection has cavity N(f; m_f, v_f), m_f = c + Σ a_k m_k,
// v_f = Σ a_k² v_k (families.Projection), and the tilted log normaliser
// log Z(m_f, v_f) of p(y|f)^u gives each member's derivatives
// d1_k = a_k d1, d2_k = a_k² d2 (families.MemberDerivs) and its message
// (q̂_k / n_k)^{1/u} (families.TiltedSite). A factor Gaussian in f
// (families.GaussianSiter) takes the exact leave-one-out form instead
// (exactMemberSites). out[e−lo] receives the message of edge e; proj is
// scratch of 2(hi − lo) projections. It reports false (the update is
// skipped) when a cavity or a tilted marginal is not proper or a result is
// not finite.
func siteMessages(g *Graph, s *state, fk *fac, u float64, out []families.Gaussian, proj []families.Projection) bool {
	lo, hi := fk.lo, fk.hi
	terms := proj[:hi-lo]
	f := families.Projection{Mean: fk.c()}
	for e := lo; e < hi; e++ {
		n := s.cavity(fk, e, u)
		if !(n.Prec > 0) || !finite(n.Shift) {
			return false
		}
		f.Add(fk.a(e), n)
		terms[e-lo] = families.Projection{}
		terms[e-lo].Add(fk.a(e), n)
	}
	lik := g.liks[fk.site()]
	if gs, ok := lik.(families.GaussianSiter); ok {
		return exactMemberSites(fk, gs.GaussianSite(fk.y()), u, terms, proj[hi-lo:2*(hi-lo)], out)
	}
	_, d1, d2 := lik.Tilted(fk.y(), f.Mean, f.Var, u)
	if !finite(d1, d2) {
		return false
	}
	for e := lo; e < hi; e++ {
		d1k, d2k := families.MemberDerivs(fk.a(e), d1, d2)
		t, ok := families.TiltedSite(s.cavity(fk, e, u), d1k, d2k, u)
		if !ok {
			return false
		}
		out[e-lo] = t
	}
	return true
}

// exactMemberSites is siteMessages for a factor Gaussian in its projection,
// with its own site fs in f: each member's message from the cavity of the
// other members (families.LeaveOneOut of terms into loo,
// families.MemberSite), exact at any noise, where the derivative route
// loses the digits of the noise and the other members' variance that do not
// survive the sum with a tight member's cavity variance.
func exactMemberSites(fk *fac, fs families.Gaussian, u float64, terms, loo []families.Projection, out []families.Gaussian) bool {
	families.LeaveOneOut(fk.c(), terms, loo)
	for i, o := range loo {
		t, ok := families.MemberSite(fs, fk.a(fk.lo+i), o, u)
		if !ok {
			return false
		}
		out[i] = t
	}
	return true
}

// logNorm is log ∫ exp(−½ τ x² + ν x) dx = ½ log(2π/τ) + ν²/(2τ), τ > 0.
func logNorm(n families.Gaussian) float64 {
	return 0.5*math.Log(2*math.Pi/n.Prec) + n.Shift*n.Shift/(2*n.Prec)
}
