package families

import "math"

// The digamma and trigamma functions are written here rather than taken
// from gonum's mathext, whose Digamma is accurate to about 5e-11 near
// x = 1 — too coarse for projections that must reproduce closed-form
// posteriors to 1e-9. Both shift x to y ≥ 20 by the recurrences
// ψ(x) = ψ(x + 1) − 1/x, ψ'(x) = ψ'(x + 1) + 1/x² and sum the
// asymptotic series there (Abramowitz & Stegun 6.3.18, 6.4.12), whose
// truncation error at y ≥ 20 is below 1e-17 relative.

// digamma is ψ(x) for x > 0.
func digamma(x float64) float64 { return math.Log(x) - logMinusDigamma(x) }

// logMinusDigamma is log x − ψ(x) > 0 for x > 0, without the cancellation
// of the difference at large x: 1/(2y) + 1/(12y²) − 1/(120y⁴) +
// 1/(252y⁶) − 1/(240y⁸) + 1/(132y¹⁰) at y = x + n ≥ 20, plus
// Σ 1/(x + k) + log(x/y).
func logMinusDigamma(x float64) float64 {
	var add float64
	y := x
	for y < 20 {
		add += 1 / y
		y++
	}
	r := 1 / (y * y)
	s := 1/(2*y) + r*(1.0/12-r*(1.0/120-r*(1.0/252-r*(1.0/240-r/132))))
	return s + add + math.Log(x/y)
}

// trigamma is ψ'(x) for x > 0: 1/y + 1/(2y²) + 1/(6y³) − 1/(30y⁵) +
// 1/(42y⁷) − 1/(30y⁹) + 5/(66y¹¹) at y = x + n ≥ 20, plus Σ 1/(x + k)².
func trigamma(x float64) float64 {
	var add float64
	y := x
	for y < 20 {
		add += 1 / (y * y)
		y++
	}
	r := 1 / (y * y)
	s := 1/y + r/2 + r/y*(1.0/6-r*(1.0/30-r*(1.0/42-r*(1.0/30-r*5/66))))
	return s + add
}

// Digamma is ψ(x) for x > 0, accurate to a few ulps.
func Digamma(x float64) float64 { return digamma(x) }

// Trigamma is ψ'(x) for x > 0, accurate to a few ulps.
func Trigamma(x float64) float64 { return trigamma(x) }
