package mathx

import (
	"math"
	"math/big"
	"testing"
)

const prec = 4096 // bits; enough to resolve Φ(−40) ≈ 4e−350 after cancellation

// bigPi computes π by Machin's formula π = 16 atan(1/5) − 4 atan(1/239).
func bigPi() *big.Float {
	atanInv := func(k int64) *big.Float {
		// atan(1/k) = Σ (−1)^n / ((2n+1) k^(2n+1))
		sum := new(big.Float).SetPrec(prec)
		pow := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), big.NewFloat(float64(k)).SetPrec(prec))
		k2 := new(big.Float).SetPrec(prec).SetInt64(k * k)
		eps := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -prec-10)
		for n := int64(0); ; n++ {
			t := new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetPrec(prec).SetInt64(2*n+1))
			if n%2 == 0 {
				sum.Add(sum, t)
			} else {
				sum.Sub(sum, t)
			}
			if t.Cmp(eps) < 0 {
				return sum
			}
			pow.Quo(pow, k2)
		}
	}
	a := atanInv(5)
	a.Mul(a, big.NewFloat(16))
	b := atanInv(239)
	b.Mul(b, big.NewFloat(4))
	return a.Sub(a, b)
}

// bigExp computes e^y for y ≥ 0 by argument halving and a Taylor series.
func bigExp(y *big.Float) *big.Float {
	const halvings = 16
	r := new(big.Float).SetPrec(prec).SetMantExp(y, -halvings)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	eps := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -prec-10)
	for n := int64(1); term.Cmp(eps) > 0; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
	}
	for i := 0; i < halvings; i++ {
		sum.Mul(sum, sum)
	}
	return sum
}

// bigPhi returns Φ(z) from the everywhere-convergent series
//
//	Φ(z) = ½ + N(z) Σ_{n≥0} z^(2n+1) / (2n+1)!!
//
// in 4096-bit arithmetic: an independent derivation (no continued fraction,
// no erfc) used as the reference for LogPhi and InvMills.
func bigPhi(z float64, sqrt2pi *big.Float) (phi, dens *big.Float) {
	x := new(big.Float).SetPrec(prec).SetFloat64(z)
	x2 := new(big.Float).SetPrec(prec).Mul(x, x)
	sum := new(big.Float).SetPrec(prec)
	term := new(big.Float).SetPrec(prec).Set(x)
	for n := int64(0); n < 100000; n++ {
		sum.Add(sum, term)
		term.Mul(term, x2)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(2*n+3))
		if n > 10 && term.MantExp(nil) < sum.MantExp(nil)-prec-20 {
			break
		}
	}
	half := new(big.Float).SetPrec(prec).Quo(x2, big.NewFloat(2))
	dens = new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), bigExp(half))
	dens.Quo(dens, sqrt2pi)
	phi = new(big.Float).SetPrec(prec).Mul(dens, sum)
	phi.Add(phi, big.NewFloat(0.5))
	return phi, dens
}

// bigLog returns log of a positive big float as float64 via mantissa/exponent.
func bigLog(v *big.Float) float64 {
	m := new(big.Float)
	e := v.MantExp(m)
	f, _ := m.Float64()
	return math.Log(f) + float64(e)*math.Ln2
}

func TestAgainstBigFloatSeries(t *testing.T) {
	pi := bigPi()
	sqrt2pi := new(big.Float).SetPrec(prec).Mul(pi, big.NewFloat(2))
	sqrt2pi.Sqrt(sqrt2pi)
	for _, z := range []float64{-40, -38.5, -37, -30, -20, -12, -7, -5.5, -5, -4.99, -3, -1, -0.1, 0, 0.7, 2, 5, 8} {
		phi, dens := bigPhi(z, sqrt2pi)
		wantLog := bigLog(phi)
		ratio := new(big.Float).SetPrec(prec).Quo(dens, phi)
		wantIM, _ := ratio.Float64()
		if got := LogPhi(z); !(math.Abs(got-wantLog) <= 1e-14*math.Max(1, math.Abs(wantLog))) {
			t.Errorf("LogPhi(%g) = %.17g, want %.17g", z, got, wantLog)
		}
		if got := InvMills(z); !(math.Abs(got-wantIM) <= 2e-14*math.Max(1e-300, math.Abs(wantIM))) {
			t.Errorf("InvMills(%g) = %.17g, want %.17g (rel %.2g)", z, got, wantIM, (got-wantIM)/wantIM)
		}
		if z > -37 {
			want, _ := phi.Float64()
			// Φ's condition number at z is |z|·N(z)/Φ(z) ≈ z², so an
			// argument rounding of 1 ulp allows a relative error ≈ z²·eps.
			if got := Phi(z); !(math.Abs(got-want) <= 1e-15*math.Max(10, 2*z*z)*want) {
				t.Errorf("Phi(%g) = %.17g, want %.17g", z, got, want)
			}
		}
	}
}

// TestFarTail checks z ≪ −40 against the asymptotic series of the Mills ratio
// R(x) ≈ (1/x)(1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸), exact to double precision
// for x ≥ 100.
func TestFarTail(t *testing.T) {
	for _, x := range []float64{100, 1e3, 1e5, 1e8, 1e150} {
		u := 1 / (x * x)
		r := (1 - u*(1-u*(3-u*(15-105*u)))) / x
		if got, want := InvMills(-x), 1/r; !(math.Abs(got-want) <= 1e-15*want) {
			t.Errorf("InvMills(%g) = %.17g, want %.17g", -x, got, want)
		}
		want := LogN(-x) + math.Log(r)
		if got := LogPhi(-x); !(math.Abs(got-want) <= 1e-15*math.Abs(want)) {
			t.Errorf("LogPhi(%g) = %.17g, want %.17g", -x, got, want)
		}
	}
	if v := LogPhi(math.Inf(-1)); !math.IsInf(v, -1) {
		t.Errorf("LogPhi(-Inf) = %g", v)
	}
	if v := InvMills(math.Inf(1)); v != 0 {
		t.Errorf("InvMills(+Inf) = %g", v)
	}
}

func TestLogAddExp(t *testing.T) {
	if got := LogAddExp(1000, 1000); !(math.Abs(got-(1000+math.Ln2)) <= 1e-12) {
		t.Errorf("LogAddExp(1000,1000) = %g", got)
	}
	if got := LogAddExp(math.Inf(-1), -3); got != -3 {
		t.Errorf("LogAddExp(-Inf,-3) = %g", got)
	}
}

func TestLogSumExp(t *testing.T) {
	if got := LogSumExp([]float64{1000, 1000}); !(math.Abs(got-(1000+math.Ln2)) <= 1e-12) {
		t.Errorf("LogSumExp(1000, 1000) = %g", got)
	}
	if got := LogSumExp([]float64{-2, 0.5, 3}); !(math.Abs(got-math.Log(math.Exp(-2)+math.Exp(0.5)+math.Exp(3))) <= 1e-14) {
		t.Errorf("LogSumExp(-2, 0.5, 3) = %g", got)
	}
	if got := LogSumExp(nil); !math.IsInf(got, -1) {
		t.Errorf("LogSumExp() = %g, want -Inf", got)
	}
	if got := LogSumExp([]float64{math.Inf(1), 0}); !math.IsInf(got, 1) {
		t.Errorf("LogSumExp(+Inf, 0) = %g, want +Inf", got)
	}
}

// TestHermite: the shared rule integrates e^{−x²}·x^k exactly for k < 2n
// (∫ x² e^{−x²} = √π/2) and is computed once per n.
func TestHermite(t *testing.T) {
	x, w := Hermite(20)
	var s0, s2 float64
	for k := range x {
		s0 += w[k]
		s2 += w[k] * x[k] * x[k]
	}
	if !(math.Abs(s0-math.Sqrt(math.Pi)) <= 1e-13) || !(math.Abs(s2-math.Sqrt(math.Pi)/2) <= 1e-13) {
		t.Errorf("Hermite(20): Σw = %g, Σwx² = %g", s0, s2)
	}
	if x2, _ := Hermite(20); &x2[0] != &x[0] {
		t.Error("Hermite(20) computed twice")
	}
}
