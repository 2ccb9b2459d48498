package ep

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/infer/ffep"
	"github.com/fg-infer/fg/internal/mathx"
)

// probitLogLik is log Φ(y f) with its derivatives, for Numeric.
func probitLogLik(y, f float64) (float64, float64, float64) {
	z := y * f
	r := mathx.InvMills(z)
	return mathx.LogPhi(z), y * r, -r * (z + r)
}

// TestNumericProbitMatchesClosedForm: Gauss–Hermite moments of the probit
// site against the closed form (rodrigues eqs 15–18), to 1e-9.
func TestNumericProbitMatchesClosedForm(t *testing.T) {
	num := Numeric{Kind: "probit", Scheme: ffep.Scheme{Kind: ffep.GH, N: 64}, LogLik: probitLogLik, Binary: true}
	for _, c := range []struct{ y, m, v float64 }{{1, 0.3, 0.5}, {-1, 1.2, 2}, {1, -2, 0.7}, {-1, -0.4, 3}} {
		z0, a0, b0 := Probit{}.Tilted(c.y, c.m, c.v, 1)
		z1, a1, b1 := num.Tilted(c.y, c.m, c.v, 1)
		if !(math.Abs(z0-z1) <= 1e-9) || !(math.Abs(a0-a1) <= 1e-9) || !(math.Abs(b0-b1) <= 1e-9) {
			t.Errorf("%+v: closed (%g %g %g) numeric (%g %g %g)", c, z0, a0, b0, z1, a1, b1)
		}
		p0, _ := Probit{}.Prob(c.m, c.v)
		p1, _ := num.Prob(c.m, c.v)
		if !(math.Abs(p0-p1) <= 1e-9) {
			t.Errorf("%+v: Prob closed %g numeric %g", c, p0, p1)
		}
		e0, e1 := Probit{}.ExpLogLik(c.y, c.m, c.v), num.ExpLogLik(c.y, c.m, c.v)
		if !(math.Abs(e0-e1) <= 1e-6) {
			t.Errorf("%+v: ExpLogLik closed %g numeric %g", c, e0, e1)
		}
	}
}

// TestNumericImproperIsNaN: a scheme failure surfaces as NaN, which the
// engine counts as a skipped update.
func TestNumericImproperIsNaN(t *testing.T) {
	num := Numeric{Kind: "probit", Scheme: ffep.Scheme{Kind: ffep.GH, N: 16}, LogLik: probitLogLik}
	if z, _, _ := num.Tilted(1, 0, -1, 1); !math.IsNaN(z) {
		t.Fatalf("negative cavity variance gave %g, want NaN", z)
	}
}
