package ffep

import (
	"errors"
	"math"
	"time"

	"github.com/fg-infer/fg/families"
)

// update visits factor k: cavity, site by the scheme, damping, new q. An
// update that would produce an improper cavity or posterior, or whose
// scheme fails, is skipped and counted by reason.
func (e *engine) update(k int) {
	res := e.res
	for i := range e.d {
		lc, ec := e.lamQ[i], e.etaQ[i]
		if e.lamS != nil {
			lc -= e.lamS[k][i]
			ec -= e.etaS[k][i]
		}
		if !(lc > 0) || !finite(lc) || !finite(ec) {
			e.skip("cavity")
			return
		}
		e.lc[i], e.ec[i] = lc, ec
		e.mu[i], e.sd[i] = ec/lc, 1/math.Sqrt(lc)
	}
	t0 := time.Now()
	err := e.w.compute(e.s.Scheme, e.p.Factors[k], e.mu, e.sd)
	e.siteTime += time.Since(t0)
	e.sites++
	e.newton += e.w.iters
	if e.w.convex {
		res.NonLogConcave++
	}
	if err != nil {
		e.skip(reason(err))
		return
	}
	if !e.propose(k) {
		e.skip("improper")
		return
	}
	e.commit(k)
	res.Updates++
	e.trackCost()
}

// trackCost appends the cost at the current mean (TrackCost): once per
// visit, so skipped updates repeat the previous cost and the trace stays
// aligned with the visit count.
func (e *engine) trackCost() {
	if !e.s.TrackCost {
		return
	}
	if e.lastSkipped && len(e.res.Cost) > 0 {
		e.res.Cost = append(e.res.Cost, e.res.Cost[len(e.res.Cost)-1])
		return
	}
	e.meanInto(e.mean)
	e.res.Cost = append(e.res.Cost, e.cost())
}

// propose fills newL/newE with the damped site of factor k (the shared
// damping families.Damped in natural parameters; the old site is flat in
// ADF) and reports whether cavity × damped site is a proper Gaussian in
// every coordinate.
func (e *engine) propose(k int) bool {
	for i := range e.d {
		lam, eta := e.w.s.natural(i, e.mu[i], e.sd[i])
		var ol, oe float64
		if e.lamS != nil {
			ol, oe = e.lamS[k][i], e.etaS[k][i]
		}
		lam, eta = families.Damped(ol, lam, e.delta), families.Damped(oe, eta, e.delta)
		if !(e.lc[i]+lam > 0) || !finite(lam) || !finite(eta) {
			return false
		}
		e.newL[i], e.newE[i] = lam, eta
	}
	return true
}

// commit replaces site k by newL/newE and q by cavity × new site.
func (e *engine) commit(k int) {
	for i := range e.d {
		e.lamQ[i] = e.lc[i] + e.newL[i]
		e.etaQ[i] = e.ec[i] + e.newE[i]
		if e.lamS != nil {
			e.lamS[k][i], e.etaS[k][i] = e.newL[i], e.newE[i]
		}
	}
}

func (e *engine) skip(why string) {
	e.res.Skipped++
	e.res.Errors[why]++
	e.lastSkipped = true
	e.trackCost()
	e.lastSkipped = false
}

func reason(err error) string {
	switch {
	case errors.Is(err, ErrImproper):
		return "improper"
	case errors.Is(err, ErrNoConvergence):
		return "no-convergence"
	}
	return "non-finite"
}
