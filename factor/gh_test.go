package factor

import (
	"math"
	"testing"
)

// TestGHExpectPointMass: at v = 0 GHExpect returns g(m), the value the
// Gauss–Hermite rule gives up to rounding (its weights sum to √π), and it
// is continuous there (v = 1e-30).
func TestGHExpectPointMass(t *testing.T) {
	sigmoid := func(f float64) float64 { return 1 / (1 + math.Exp(-f)) }
	for _, m := range []float64{-30, -2.5, 0, 0.7, 12} {
		got := GHExpect(64, m, 0, sigmoid)
		if got != sigmoid(m) {
			t.Errorf("m = %g: %g, want σ(m) = %g", m, got, sigmoid(m))
		}
		if near := GHExpect(64, m, 1e-30, sigmoid); !(math.Abs(near-got) <= 1e-14) {
			t.Errorf("m = %g: v = 1e-30 gives %g, v = 0 gives %g", m, near, got)
		}
	}
}

// TestLogValueMatchesLogLik: a LogValue fast path gives LogLik's value at
// every legal y (CheckY) and f (1e-14 relative; equal infinities), for
// every kind with one (its zero value) and for parameterised sites.
func TestLogValueMatchesLogLik(t *testing.T) {
	sites := []Site{Step{Eps: 0.1}}
	for _, k := range All() {
		if s, ok := k.(Site); ok && has[LogValue](k) {
			sites = append(sites, s)
		}
	}
	for _, s := range sites {
		lv, d := s.(LogValue), s.(LogDensity)
		for _, y := range []float64{-1, 0, 1, 3} {
			if s.CheckY(y) != nil {
				continue
			}
			f := lv.LogValueAt(y)
			for _, x := range []float64{-40, -3, -0.5, 0, 1e-9, 0.8, 5, 40} {
				want, _, _ := d.LogLik(y, x)
				got := f(x)
				if got != want && !(math.Abs(got-want) <= 1e-14*math.Max(1, math.Abs(want))) {
					t.Errorf("%s: y = %g, f = %g: LogValueAt %g, LogLik %g", s.Name(), y, x, got, want)
				}
			}
		}
	}
}

// TestPointProbMatchesProb: a PointProb fast path is Prob(f, 0) and
// exp(LogLik(+1, f)) (1e-15 absolute).
func TestPointProbMatchesProb(t *testing.T) {
	for _, k := range All() {
		pp, ok := k.(PointProb)
		if !ok {
			continue
		}
		cp, d := k.(ClassProb), k.(LogDensity)
		for _, f := range []float64{-40, -3, -0.5, 0, 0.8, 5, 40} {
			p, _ := cp.Prob(f, 0)
			l, _, _ := d.LogLik(1, f)
			if got := pp.ProbAt(f); !(math.Abs(got-p) <= 1e-15) || !(math.Abs(got-math.Exp(l)) <= 1e-15) {
				t.Errorf("%s: ProbAt(%g) = %g, Prob(f, 0) = %g, exp(LogLik) = %g", KeyOf(k), f, got, p, math.Exp(l))
			}
		}
	}
}
