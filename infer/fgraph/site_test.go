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
	old := []families.Gaussian{{Prec: 0.4, Shift: -0.2}, {Prec: 0.1, Shift: 0.3}}
	step := func(d float64) (*state, []families.Gaussian) {
		g := NewGraph(2)
		g.AddSite(ep.Probit{}, 1, []int{0, 1}, coefs, 0.2)
		st := newState(g)
		st.belief[0], st.belief[1] = families.Gaussian{Prec: 1.5, Shift: 0.3}, families.Gaussian{Prec: 0.8, Shift: -0.4} // other factors' messages
		fk := g.fac(0)
		for e := range old {
			st.set(&fk, e, old[e])
		}
		p := &passer{g: g, st: st, s: Settings{Settings: infer.Settings{Damping: d}}, u: 1, buf: make([]families.Gaussian, 2), proj: make([]families.Projection, 4)}
		p.update(&fk, 0, -1, false)
		if p.stats.Updates != 1 {
			t.Fatalf("δ = %g: update skipped", d)
		}
		return st, append([]families.Gaussian(nil), st.msg...)
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
		if !ok || nw[e] != want {
			t.Errorf("edge %d: undamped message %+v, families.TiltedSite %+v", e, nw[e], want)
		}
		if dp[e].Prec != families.Damped(old[e].Prec, nw[e].Prec, delta) || dp[e].Shift != families.Damped(old[e].Shift, nw[e].Shift, delta) {
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
	old := families.Gaussian{Prec: 0.4, Shift: -0.2}
	fm, fv := 0.3, 0.9 // the projection's marginal under q
	propose := func(d float64) families.Gaussian {
		b := &bandEP{g: g, u: 1, damp: d, sites: []int32{0}, tau: []float64{old.Prec}, nu: []float64{old.Shift}, fm: []float64{fm}, fv: []float64{fv}}
		m, ok := b.propose(0)
		if !ok {
			t.Fatalf("δ = %g: update skipped", d)
		}
		return m
	}
	const delta = 0.3
	nw, dp := propose(1), propose(delta)
	cav := families.Gaussian{Shift: fm/fv - old.Shift, Prec: 1/fv - old.Prec}
	_, d1, d2 := ep.Probit{}.Tilted(-1, cav.Shift/cav.Prec, 1/cav.Prec, 1)
	if want, ok := families.TiltedSite(cav, d1, d2, 1); !ok || nw != want {
		t.Errorf("undamped message %+v, families.TiltedSite %+v", nw, want)
	}
	if dp.Prec != families.Damped(old.Prec, nw.Prec, delta) || dp.Shift != families.Damped(old.Shift, nw.Shift, delta) {
		t.Errorf("damped message %+v, families.Damped of %+v", dp, nw)
	}
}
