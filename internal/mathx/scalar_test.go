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

// TestPenalisedMin: Q(b) = K(b) + c b with K(b) = 1 − 0.9 exp(−(log b − log 7)²/0.02)
// (K ≥ 0, flat near b = 0 then a narrow valley at b ≈ 7): the minimiser
// equals a brute-force search over 10⁶ log-spaced points plus b = 0, to the
// grid's spacing; a penalty c that makes the valley worse than b = 0 gives 0.
func TestPenalisedMin(t *testing.T) {
	k := func(b float64) float64 { l := math.Log(b / 7); return 1 - 0.9*math.Exp(-l*l/0.02) }
	dk := func(b float64) float64 { l := math.Log(b / 7); return 0.9 * math.Exp(-l*l/0.02) * 2 * l / (0.02 * b) }
	for _, tc := range []struct{ c, want float64 }{{0.01, -1}, {0.2, 0}} {
		q := func(b float64) float64 {
			if b == 0 {
				return 1
			}
			return k(b) + tc.c*b
		}
		dq := func(b float64) float64 { return dk(b) + tc.c }
		want, best := 0.0, q(0)
		if tc.want < 0 {
			for i := 0; i <= 1000000; i++ {
				if b := 1e-3 * math.Pow(10, 6*float64(i)/1e6); q(b) < best {
					want, best = b, q(b)
				}
			}
		}
		got := PenalisedMin(q, dq, q(0), tc.c, 1e-3, 1e3)
		if !(math.Abs(got-want) <= 2e-5*want) || q(got) > best {
			t.Errorf("c = %g: b = %.12g (Q %.15g), brute force %.12g (Q %.15g)", tc.c, got, q(got), want, best)
		}
	}
}
