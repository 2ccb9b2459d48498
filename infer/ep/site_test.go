package ep

import (
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
)

// TestSiteUpdateIsShared: the engine's site update (rule.propose) is the
// shared one of families/site.go: with damping 1 it returns
// families.TiltedSite of the cavity (clamped for NonNegativeSites), and
// with damping δ it lands, bit for bit, at families.Damped(old, new) — for
// EP, power EP and a clamped site.
func TestSiteUpdateIsShared(t *testing.T) {
	const delta = 0.3
	old := families.Gaussian{Prec: 0.4, Shift: -0.3}
	v := 0.9 // the posterior variance of the projection (a variable: no exact constant arithmetic)
	for _, c := range []struct {
		name  string
		div   infer.Divergence
		site  Site
		mu    float64 // the posterior mean of the projection
		clamp bool
	}{
		{"kl", infer.KL{}, Site{Lik: Probit{}, Y: 1}, 0.2, false},
		{"alpha(0.5)", infer.Alpha{A: 0.5}, Site{Lik: Probit{}, Y: -1}, 0.2, false},
		{"kl, τ̃ < 0 clamped", infer.KL{}, Site{Lik: Step{Eps: 0.1}, Y: -1}, 2, true},
		{"kl, τ̃ < 0", infer.KL{}, Site{Lik: Step{Eps: 0.1}, Y: -1}, 2, false},
	} {
		mu := c.mu
		r1, _ := newRule(c.div, 1)
		rd, _ := newRule(c.div, delta)
		r1.Clamp, rd.Clamp = c.clamp, c.clamp
		nw, _, ok1 := r1.propose(c.site, old, mu, v)
		dp, _, ok2 := rd.propose(c.site, old, mu, v)
		if !ok1 || !ok2 {
			t.Fatalf("%s: update skipped", c.name)
		}
		u := r1.Power
		cav := families.Gaussian{Shift: mu/v - u*old.Shift, Prec: 1/v - u*old.Prec}
		_, d1, d2 := c.site.Lik.Tilted(c.site.Y, cav.Shift/cav.Prec, 1/cav.Prec, u)
		want, ok := families.TiltedSite(cav, d1, d2, u)
		if c.site.Lik == (Step{Eps: 0.1}) && !(want.Prec < 0) {
			t.Fatalf("%s: τ̃ = %g, want a negative site precision", c.name, want.Prec)
		}
		if c.clamp {
			want.Prec = max(want.Prec, 0)
		}
		if !ok || nw != want {
			t.Errorf("%s: undamped site %+v, families.TiltedSite %+v (%v)", c.name, nw, want, ok)
		}
		if dp.Prec != families.Damped(old.Prec, nw.Prec, delta) || dp.Shift != families.Damped(old.Shift, nw.Shift, delta) {
			t.Errorf("%s: damped site %+v, families.Damped of %+v", c.name, dp, nw)
		}
	}
}
