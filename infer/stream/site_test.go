package stream

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/testkit"
	"github.com/fg-infer/fg/stdlib"
)

// TestSiteUpdateIsShared: one example's update with damping δ lands, bit
// for bit, at families.Damped(old, new) of the undamped update, and the
// undamped sites are families.TiltedSite of each member's cavity with the
// derivatives families.MemberDerivs gives: the engine's rule is the shared
// one (families/site.go).
func TestSiteUpdateIsShared(t *testing.T) {
	p := &Problem{Lik: ep.Probit{}, PriorMean: []float64{0.1, -0.2, 0.3}, PriorVar: []float64{1, 2, 0.5}}
	idx, val := []int32{0, 2}, []float64{0.7, -1.1}
	oldL, oldE := []float64{0.3, -0.1}, []float64{0.2, 0.05}
	const y, delta = 1.0, 0.3
	step := func(d float64) (lam, eta, lc, ec []float64) {
		e := newEngine(p, &Settings{Damping: d})
		for k, j := range idx { // q = prior × old site
			e.q[2*j] += oldL[k]
			e.q[2*j+1] += oldE[k]
		}
		e.ex.resize(len(idx))
		copy(e.ex.lamS, oldL)
		copy(e.ex.etaS, oldE)
		if why := e.update(y, idx, val); why != "" {
			t.Fatalf("δ = %g: update skipped (%s)", d, why)
		}
		return slices.Clone(e.ex.lamS), slices.Clone(e.ex.etaS), slices.Clone(e.ex.lamC), slices.Clone(e.ex.etaC)
	}
	nl, ne, lc, ec := step(1)
	dl, de, _, _ := step(delta)
	var proj families.Projection
	for k := range idx {
		proj.Add(val[k], families.Gaussian{Shift: ec[k], Prec: lc[k]})
	}
	_, d1, d2 := p.Lik.Tilted(y, proj.Mean, proj.Var, 1)
	for k, a := range val {
		d1k, d2k := families.MemberDerivs(a, d1, d2)
		want, ok := families.TiltedSite(families.Gaussian{Shift: ec[k], Prec: lc[k]}, d1k, d2k, 1)
		if !ok || nl[k] != want.Prec || ne[k] != want.Shift {
			t.Errorf("member %d: undamped site (%v, %v), families.TiltedSite %+v", k, nl[k], ne[k], want)
		}
		if dl[k] != families.Damped(oldL[k], nl[k], delta) || de[k] != families.Damped(oldE[k], ne[k], delta) {
			t.Errorf("member %d: damped site (%v, %v), families.Damped (%v, %v)", k, dl[k], de[k],
				families.Damped(oldL[k], nl[k], delta), families.Damped(oldE[k], ne[k], delta))
		}
	}
}

// TestStreamTightMemberSites: one example y = 1.3 with x = (1, 1e-6, −1e-6)
// under a Gaussian likelihood of noise r = 1e-3 … 1e-13 on independent
// priors: ADF's and EP's marginals are the closed-form posterior
// (testkit.GaussianSite; one site with the prior as cavity is exact) —
// variances within 1e-10 relative, means within 1e-10 sd plus 4ε|E w| (the
// first weight's sd is ~1e-6). Its site is tight (cavity variance ~1e12
// times the rest of the projection's); the derivative route put its
// variance 8e-6 off at r = 1e-12, the leave-one-out form
// (families.MemberSite) does not.
func TestStreamTightMemberSites(t *testing.T) {
	mu, p, a := []float64{0.3, -0.5, 1.1}, []float64{2, 0.8, 1.5}, []float64{1, 1e-6, -1e-6}
	const y = 1.3
	src := CSRSource{M: &stdlib.CSR{Rows: 1, Cols: 3, Ptr: []int{0, 3}, Idx: []int32{0, 1, 2}, Val: a}, Y: []float64{y}}
	for e := 3; e <= 13; e++ {
		r := math.Pow(10, -float64(e))
		mean, vr, _ := testkit.GaussianSite(mu, p, a, 0, y, r)
		for _, passes := range []int{1, 3} {
			res, err := Run(context.Background(), &Problem{PriorMean: mu, PriorVar: p, Lik: ep.Gaussian{Var: r}, Train: src},
				&Settings{Passes: passes, Tol: 1e-12, SiteDir: t.TempDir()})
			if err != nil {
				t.Fatalf("r = %g, %d passes: %v", r, passes, err)
			}
			if !res.Status.HasNumbers() || res.Skipped != 0 {
				t.Fatalf("r = %g, %d passes: %v (%s)", r, passes, res.Status, res.Message)
			}
			testkit.CheckMarginals(t, fmt.Sprintf("r = %g, %d passes", r, passes), res.Mean, res.Var, mean, vr, 1e-10)
		}
	}
}
