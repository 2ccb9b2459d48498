// Package mathx holds numerically stable special functions shared by the
// inference engines: the standard normal CDF Φ, its logarithm and the inverse
// Mills ratio N(z)/Φ(z), accurate deep into the lower tail where Φ(z)
// underflows (z ≪ −38).
//
// For z ≥ −5 the functions use math.Erfc, which is accurate in relative terms
// over its whole range. For z < −5 they use the Laplace continued fraction of
// the Mills ratio R(x) = Φ(−x)/N(x), x = −z > 0 (Abramowitz & Stegun 26.2.14):
//
//	R(x) = 1/(x + 1/(x + 2/(x + 3/(x + ...))))
//
// evaluated with the modified Lentz algorithm, so that
//
//	log Φ(z) = log N(z) + log R(−z),    N(z)/Φ(z) = 1/R(−z),
//
// never forming the underflowing Φ(z) itself.
package mathx

import "math"

// LogSqrt2Pi is log √(2π).
const LogSqrt2Pi = 0.91893853320467274178032973640562

const tailCut = -5.0

// Phi returns the standard normal CDF Φ(z) = ½ erfc(−z/√2).
func Phi(z float64) float64 {
	return 0.5 * math.Erfc(-z/math.Sqrt2)
}

// LogN returns log N(z) = −z²/2 − log √(2π), the log standard normal density.
func LogN(z float64) float64 {
	return -0.5*z*z - LogSqrt2Pi
}

// LogPhi returns log Φ(z), finite for every finite z (≈ −z²/2 for z ≪ 0).
func LogPhi(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return math.NaN()
	case z >= 0:
		// Φ(z) = 1 − Φ(−z); log1p keeps precision when Φ(−z) is tiny.
		return math.Log1p(-0.5 * math.Erfc(z/math.Sqrt2))
	case z >= tailCut:
		return math.Log(Phi(z))
	case math.IsInf(z, -1):
		return math.Inf(-1)
	}
	return LogN(z) + math.Log(millsRatio(-z))
}

// InvMills returns the inverse Mills ratio N(z)/Φ(z). It tends to −z as
// z → −∞ and to 0 as z → +∞; it is the quantity EP's probit and step updates
// need (Rasmussen & Williams eq. 3.58; rodrigues eqs 16–17).
func InvMills(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return math.NaN()
	case z >= tailCut:
		return math.Exp(LogN(z)) / Phi(z)
	case math.IsInf(z, -1):
		return math.Inf(1)
	}
	return 1 / millsRatio(-z)
}

// millsRatio returns R(x) = Φ(−x)/N(x) for x ≥ 5 by the continued fraction
// in the package comment (modified Lentz; converges in a few dozen terms).
func millsRatio(x float64) float64 {
	const tiny = 1e-300
	f := x
	c, d := x, 0.0
	for k := 1; k < 500; k++ {
		ak := float64(k)
		d = x + ak*d
		if d == 0 {
			d = tiny
		}
		c = x + ak/c
		if c == 0 {
			c = tiny
		}
		d = 1 / d
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < 1e-16 {
			break
		}
	}
	return 1 / f
}

// LogSumExp is log Σ exp(x_k) with the max shift, −Inf for an empty or
// all −Inf slice, +Inf if any entry is +Inf. It is the project's one
// log-sum-exp; LogAddExp is its two-argument form.
func LogSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// LogAddExp returns log(exp(a) + exp(b)) without overflow.
func LogAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
