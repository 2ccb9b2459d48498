// Package tfam is the t-exponential family of fg: the deformed exponential
// and logarithm, the q-algebra (q-product and q-division) that makes
// natural parameters add under the t-factorisation, and the k-dimensional
// Student-t distribution written as a t-exponential family member with its
// log-partition function g_t and escort distribution.
//
// Reference: Futami, Sato, Sugiyama, "Expectation propagation for
// t-exponential family using q-algebra", NIPS 2017, eqs 1–10 and 19–28. As
// t → 1 every function here reduces to its ordinary counterpart (exp, log,
// product, quotient, Gaussian).
package tfam

import "math"

// tOne is the distance from 1 below which t is treated as exactly 1.
const tOne = 1e-12

// ExpT is the deformed exponential (futami eq. 2)
//
//	exp_t(x) = [1 + (1−t) x]_+^{1/(1−t)}   (t ≠ 1),   exp_1(x) = exp(x).
//
// For t > 1 the function blows up at x = 1/(t−1); there it returns +Inf.
func ExpT(x, t float64) float64 {
	if math.Abs(t-1) < tOne {
		return math.Exp(x)
	}
	b := 1 + (1-t)*x
	if b <= 0 {
		if t < 1 {
			return 0
		}
		return math.Inf(1)
	}
	// exp(log1p((1−t)x)/(1−t)) keeps accuracy when (1−t)x is small.
	return math.Exp(math.Log1p((1-t)*x) / (1 - t))
}

// LnT is the deformed logarithm, the inverse of ExpT (futami §2, eq. 25)
//
//	ln_t(x) = (x^{1−t} − 1)/(1−t)   (x > 0),   ln_1(x) = log(x).
//
// It returns NaN for x < 0 and the limit for x = 0.
func LnT(x, t float64) float64 {
	if x < 0 || math.IsNaN(x) {
		return math.NaN()
	}
	if math.Abs(t-1) < tOne {
		return math.Log(x)
	}
	if x == 0 {
		if t < 1 {
			return -1 / (1 - t)
		}
		return math.Inf(-1)
	}
	// expm1((1−t) log x)/(1−t) avoids cancellation near x = 1 or t = 1.
	return math.Expm1((1-t)*math.Log(x)) / (1 - t)
}

// QProduct is the q-product (futami Definition 1)
//
//	x ⊗_q y = [x^{1−q} + y^{1−q} − 1]^{1/(1−q)}  if x, y > 0 and the bracket > 0,
//	          0                                 otherwise,
//
// so that exp_q(a) ⊗_q exp_q(b) = exp_q(a + b) and
// ln_q(x ⊗_q y) = ln_q x + ln_q y (eqs 22–23). q = 1 is the ordinary product.
func QProduct(x, y, q float64) float64 {
	if math.Abs(q-1) < tOne {
		return x * y
	}
	return qCombine(x, y, 1, q)
}

// QDivide is the q-division (futami Definition 2), the inverse of QProduct:
//
//	x ⊘_q y = [x^{1−q} − y^{1−q} + 1]^{1/(1−q)}  if x, y > 0 and the bracket > 0,
//	          0                                 otherwise,
//
// so that exp_q(a) ⊘_q exp_q(b) = exp_q(a − b) and
// ln_q(x ⊘_q y) = ln_q x − ln_q y (eqs 24–27). (The extracted text of the paper
// prints "−1" inside the bracket; "+1" is what makes ⊘ invert ⊗ and is what
// eqs 26–27 require.)
func QDivide(x, y, q float64) float64 {
	if math.Abs(q-1) < tOne {
		return x / y
	}
	return qCombine(x, y, -1, q)
}

// qCombine returns exp_q(ln_q x + sign·ln_q y) when x, y > 0 and the bracket
// 1 + (1−q)(ln_q x + sign·ln_q y) is positive, else 0 (Definitions 1–2).
func qCombine(x, y, sign, q float64) float64 {
	if x <= 0 || y <= 0 {
		return 0
	}
	s := LnT(x, q) + sign*LnT(y, q)
	if 1+(1-q)*s <= 0 {
		return 0
	}
	return ExpT(s, q)
}
