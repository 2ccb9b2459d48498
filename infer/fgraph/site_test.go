package fgraph

import (
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// TestSiteUpdateIsShared: a likelihood site on a projection 0.7 x₀ − 1.3 x₁
// + 0.2 sends each variable families.TiltedSite of its cavity with the
// derivatives families.MemberDerivs gives (the multi-edge form of the
// shared site update), and with damping δ its messages land, bit for bit,
// at families.Damped(old, new) of the undamped ones.
func TestSiteUpdateIsShared(t *testing.T) {
	const delta = 0.3
	coefs := []float64{0.7, -1.3}
	old := []nat{{0.4, -0.2}, {0.1, 0.3}}
	step := func(d float64) (*state, []nat) {
		g := NewGraph(2)
		g.AddSite(ep.Probit{}, 1, []int{0, 1}, coefs, 0.2)
		st := newState(g)
		st.belief[0], st.belief[1] = nat{1.5, 0.3}, nat{0.8, -0.4} // other factors' messages
		for e := range old {
			st.set(g, e, old[e])
		}
		p := &passer{g: g, st: st, s: Settings{Settings: infer.Settings{Damping: d}}, u: 1, buf: make([]nat, 2)}
		p.update(0, -1, false)
		if p.stats.Updates != 1 {
			t.Fatalf("δ = %g: update skipped", d)
		}
		return st, append([]nat(nil), st.msg...)
	}
	_, nw := step(1)
	_, dp := step(delta)
	cav := []families.Gaussian{{Shift: 0.3, Prec: 1.5}, {Shift: -0.4, Prec: 0.8}}
	proj := families.Projection{Mean: 0.2}
	for e, a := range coefs {
		proj.Add(a, cav[e])
	}
	_, d1, d2 := ep.Probit{}.Tilted(1, proj.Mean, proj.Var, 1)
	for e, a := range coefs {
		d1k, d2k := families.MemberDerivs(a, d1, d2)
		want, ok := families.TiltedSite(cav[e], d1k, d2k, 1)
		if !ok || nw[e] != natOf(want) {
			t.Errorf("edge %d: undamped message %+v, families.TiltedSite %+v", e, nw[e], natOf(want))
		}
		if dp[e].Tau != families.Damped(old[e].Tau, nw[e].Tau, delta) || dp[e].Nu != families.Damped(old[e].Nu, nw[e].Nu, delta) {
			t.Errorf("edge %d: damped message %+v, families.Damped of %+v", e, dp[e], nw[e])
		}
	}
}

// TestBandSiteUpdateIsShared: joint EP on the band (bandEP.propose) sends a
// site the shared update of its projection's marginal: with damping 1
// families.TiltedSite of the cavity marginal / t̃, with damping δ
// families.Damped(old, new) of it, bit for bit.
func TestBandSiteUpdateIsShared(t *testing.T) {
	g := NewGraph(2)
	g.AddSite(ep.Probit{}, -1, []int{0, 1}, []float64{0.7, -1.3}, 0.2)
	old := nat{0.4, -0.2}
	fm, fv := 0.3, 0.9 // the projection's marginal under q
	propose := func(d float64) nat {
		b := &bandEP{g: g, u: 1, damp: d, sites: []int32{0}, tau: []float64{old.Tau}, nu: []float64{old.Nu}, fm: []float64{fm}, fv: []float64{fv}}
		m, ok := b.propose(0)
		if !ok {
			t.Fatalf("δ = %g: update skipped", d)
		}
		return m
	}
	const delta = 0.3
	nw, dp := propose(1), propose(delta)
	cav := families.Gaussian{Shift: fm/fv - old.Nu, Prec: 1/fv - old.Tau}
	_, d1, d2 := ep.Probit{}.Tilted(-1, cav.Shift/cav.Prec, 1/cav.Prec, 1)
	if want, ok := families.TiltedSite(cav, d1, d2, 1); !ok || nw != natOf(want) {
		t.Errorf("undamped message %+v, families.TiltedSite %+v", nw, natOf(want))
	}
	if dp.Tau != families.Damped(old.Tau, nw.Tau, delta) || dp.Nu != families.Damped(old.Nu, nw.Nu, delta) {
		t.Errorf("damped message %+v, families.Damped of %+v", dp, nw)
	}
}
