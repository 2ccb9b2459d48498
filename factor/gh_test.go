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
