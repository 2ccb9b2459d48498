package stream

import (
	"math"

	"github.com/fg-infer/fg/families"
)

// example is the scratch of one example's update: its stored sites and
// cavity (natural parameters on the example's non-zeros) and the proposed
// new sites.
type example struct {
	lamS, etaS []float64 // old sites, replaced by the new ones on success
	lamC, etaC []float64 // cavity
	lamN, etaN []float64 // proposed sites
	// terms and loo are the members' terms of the projection and their
	// leave-one-out projections (Gaussian likelihoods, exactSites).
	terms, loo []families.Projection
}

func (x *example) resize(n int) {
	grow := func(s []float64) []float64 {
		if cap(s) < n {
			return make([]float64, n, 2*n)
		}
		return s[:n]
	}
	x.lamS, x.etaS = grow(x.lamS), grow(x.etaS)
	x.lamC, x.etaC = grow(x.lamC), grow(x.etaC)
	x.lamN, x.etaN = grow(x.lamN), grow(x.etaN)
	if cap(x.terms) < n {
		x.terms, x.loo = make([]families.Projection, n, 2*n), make([]families.Projection, n, 2*n)
	}
	x.terms, x.loo = x.terms[:n], x.loo[:n]
}

// update moment-matches one example (package comment) and returns "" or
// the reason it was skipped; a skipped example leaves q and its site as
// they were. e.ex.lamS/etaS hold its old site on entry (zeros in ADF).
func (e *engine) update(y float64, idx []int32, val []float64) string {
	x := &e.ex
	if len(idx) == 0 {
		return "" // p(y | 0) is a constant: nothing to update
	}
	var proj families.Projection // the cavity of the projection t = aᵀw
	for k, j := range idx {
		lc, ec := e.q[2*j]-x.lamS[k], e.q[2*j+1]-x.etaS[k]
		if !(lc > 0) || math.IsInf(lc, 0) || math.IsNaN(ec) || math.IsInf(ec, 0) {
			return "cavity"
		}
		x.lamC[k], x.etaC[k] = lc, ec
		proj.Add(val[k], families.Gaussian{Shift: ec, Prec: lc})
	}
	if gs, ok := e.p.Lik.(families.GaussianSiter); ok {
		if !e.exactSites(gs.GaussianSite(y), val) {
			return "improper"
		}
		e.accept(idx)
		return ""
	}
	_, d1, d2 := e.p.Lik.Tilted(y, proj.Mean, proj.Var, 1)
	if math.IsNaN(d1) || math.IsInf(d1, 0) || math.IsNaN(d2) || math.IsInf(d2, 0) {
		return "non-finite"
	}
	if !e.propose(val, d1, d2) {
		return "improper"
	}
	e.accept(idx)
	return ""
}

// accept makes the proposed sites of the example's non-zeros idx its
// sites and q the cavity times them.
func (e *engine) accept(idx []int32) {
	x := &e.ex
	for k, j := range idx {
		e.q[2*j] = x.lamC[k] + x.lamN[k]
		e.q[2*j+1] = x.etaC[k] + x.etaN[k]
		x.lamS[k], x.etaS[k] = x.lamN[k], x.etaN[k]
	}
}

// exactSites is propose for a likelihood Gaussian in the projection, with
// its own site fs in t: each member's site from the cavity of the other
// members (families.LeaveOneOut, families.MemberSite), exact at any noise,
// where the derivative route loses the digits of the noise and the other
// members' variance that do not survive the sum with a member's cavity
// variance; then the damping (families.SiteUpdate.Settle).
func (e *engine) exactSites(fs families.Gaussian, val []float64) bool {
	x := &e.ex
	r := families.SiteUpdate{Power: 1, Damping: e.delta}
	for k, a := range val {
		x.terms[k] = families.Projection{}
		x.terms[k].Add(a, families.Gaussian{Shift: x.etaC[k], Prec: x.lamC[k]})
	}
	families.LeaveOneOut(0, x.terms, x.loo)
	for k, a := range val {
		old := families.Gaussian{Shift: x.etaS[k], Prec: x.lamS[k]}
		t, ok := families.MemberSite(fs, a, x.loo[k], 1)
		t, ok = r.Settle(old, t, ok)
		if !ok || !(x.lamC[k]+t.Prec > 0) {
			return false
		}
		x.lamN[k], x.etaN[k] = t.Prec, t.Shift
	}
	return true
}

// propose fills lamN/etaN with the damped new sites and reports whether
// every tilted variance and every cavity × site precision is positive: the
// shared site update (families.SiteUpdate.Step, power 1, damping δ) on
// each member's cavity with its derivatives a d1, a² d2
// (families.MemberDerivs).
func (e *engine) propose(val []float64, d1, d2 float64) bool {
	x := &e.ex
	r := families.SiteUpdate{Power: 1, Damping: e.delta}
	for k, a := range val {
		d1k, d2k := families.MemberDerivs(a, d1, d2)
		old := families.Gaussian{Shift: x.etaS[k], Prec: x.lamS[k]}
		t, ok := r.Step(old, families.Gaussian{Shift: x.etaC[k], Prec: x.lamC[k]}, d1k, d2k)
		if !ok || !(x.lamC[k]+t.Prec > 0) {
			return false
		}
		x.lamN[k], x.etaN[k] = t.Prec, t.Shift
	}
	return true
}
