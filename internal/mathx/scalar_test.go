package mathx

import (
	"math"
	"testing"
)

// TestBrentRoot: the root of cos x − x (0.7390851332151607, the Dottie
// number) to rounding.
func TestBrentRoot(t *testing.T) {
	f := func(x float64) float64 { return math.Cos(x) - x }
	if r := BrentRoot(f, 0, 1, f(0), f(1), 0); !(math.Abs(r-0.7390851332151607) <= 1e-15) {
		t.Errorf("root %.17g", r)
	}
}

// TestGoldenMin: the minimiser of (x − 1/3)² + 1 on [−2, 5] to ~√ε.
func TestGoldenMin(t *testing.T) {
	x := GoldenMin(func(x float64) float64 { return (x-1.0/3)*(x-1.0/3) + 1 }, -2, 5, 200)
	if !(math.Abs(x-1.0/3) <= 1e-7) {
		t.Errorf("minimiser %.17g", x)
	}
}
