package factor

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// bernoulliLogitRef is log p(y | f) = y f − log(1 + e^f) and its first two
// derivatives y − σ(f) and −σ(f)(1 − σ(f)), written out (Stan's
// bernoulli_logit), with the overflowing branch of log(1 + e^f) for f > 0
// rewritten as f + log(1 + e^{−f}).
func bernoulliLogitRef(y, f float64) (v, g, h float64) {
	soft := math.Log1p(math.Exp(f))
	if f > 0 {
		soft = f + math.Log1p(math.Exp(-f))
	}
	s := 1 / (1 + math.Exp(-f))
	return y*f - soft, y - s, -s * (1 - s)
}

// TestBernoulliLogitLogLik: the log-density (via Logistic at the spin
// 2y − 1) against the formula written out, relative 1e-12, from the far
// tails (|f| = 700, where e^f overflows without care) to 0.
func TestBernoulliLogitLogLik(t *testing.T) {
	const tol = 1e-12
	var l BernoulliLogit
	for _, y := range []float64{0, 1} {
		lv := l.LogValueAt(y)
		for _, f := range []float64{-700, -40, -3.5, -1, -1e-3, 0, 1e-3, 0.7, 2, 35, 700} {
			v, g, h := l.LogLik(y, f)
			wv, wg, wh := bernoulliLogitRef(y, f)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"log p", v, wv}, {"∂ log p", g, wg}, {"∂² log p", h, wh}, {"LogValueAt", lv(f), wv}} {
				if !scalar.EqualWithinAbsOrRel(c.got, c.want, tol, tol) {
					t.Errorf("y=%g f=%g: %s = %.17g, formula %.17g", y, f, c.what, c.got, c.want)
				}
			}
		}
	}
}

// TestBernoulliLogitProb: p(y = 1 | f) = σ(f) pointwise, and its
// Gaussian average equals the likelihood's own tilted normaliser
// Z(y = 1; m, v) (two quadratures: Gauss–Hermite against Gauss–Legendre
// windows), 1e-9.
func TestBernoulliLogitProb(t *testing.T) {
	var l BernoulliLogit
	for _, f := range []float64{-30, -2, 0, 0.4, 5} {
		if got, want := l.ProbAt(f), 1/(1+math.Exp(-f)); !scalar.EqualWithinAbsOrRel(got, want, 1e-15, 1e-15) {
			t.Errorf("ProbAt(%g) = %g, want σ = %g", f, got, want)
		}
	}
	for _, mv := range [][2]float64{{0, 1}, {1.5, 0.3}, {-2, 4}, {0.2, 1e-4}} {
		p, ok := l.Prob(mv[0], mv[1])
		lz, _, _ := l.Tilted(1, mv[0], mv[1], 1)
		if !ok || !scalar.EqualWithinAbsOrRel(p, math.Exp(lz), 1e-9, 1e-9) {
			t.Errorf("Prob(%g, %g) = %g (%v), tilted Z = %g", mv[0], mv[1], p, ok, math.Exp(lz))
		}
	}
}

// TestBernoulliLogitTilted: EP moments and power-EP moments (u ≠ 1) and
// E[log p] against Simpson's rule on the cavity ± 40 sd, 1e-8, for both
// labels and cavities from narrow to wide and far in the tails.
func TestBernoulliLogitTilted(t *testing.T) {
	for _, y := range []float64{0, 1} {
		for _, m := range []float64{-12, -1, 0, 0.5, 6} {
			for _, v := range []float64{1e-3, 0.4, 3, 50} {
				for _, u := range []float64{1, 0.5} {
					sd := math.Sqrt(v)
					checkTilted(t, tiltedCase{BernoulliLogit{}, y, m, v, u}, m-40*sd, m+40*sd, 1e-8)
				}
			}
		}
	}
}

// TestBernoulliLogitCheckY: 0 and 1 (false and true) only.
func TestBernoulliLogitCheckY(t *testing.T) {
	var l BernoulliLogit
	for _, y := range []float64{0, 1} {
		if err := l.CheckY(y); err != nil {
			t.Errorf("CheckY(%g): %v", y, err)
		}
	}
	for _, y := range []float64{-1, 0.5, 2, math.NaN(), math.Inf(1)} {
		if l.CheckY(y) == nil {
			t.Errorf("CheckY(%g) accepted", y)
		}
	}
}
