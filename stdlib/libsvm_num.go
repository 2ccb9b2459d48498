package stdlib

import (
	"math"
	"strconv"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat parses a plain decimal [+-]digits[.digits][(e|E)[+-]digits]
// whose digits, read as an integer, are at most 2⁵³ and whose decimal
// exponent is within ±22, by Clinger's fast path: the mantissa and 10^|e|
// are exact float64s, so one correctly rounded multiplication or division
// gives the correctly rounded value — the same bits as strconv.ParseFloat,
// which handles everything else (ok = false). libsvm files are mostly such
// short decimals, and parsing them dominates the cost of streaming.
func fastFloat(b []byte) (v float64, ok bool) {
	v, n, ok := fastFloatPrefix(b)
	return v, ok && n == len(b)
}

// fastFloatPrefix is fastFloat on the longest prefix of b that looks like
// a number; it returns the value and the prefix's length.
func fastFloatPrefix(b []byte) (v float64, n int, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg, i = b[0] == '-', 1
	}
	var mant uint64
	d0 := i
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		mant = mant*10 + uint64(b[i]-'0')
	}
	nd, exp := i-d0, 0
	if i < len(b) && b[i] == '.' {
		i++
		f0 := i
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			mant = mant*10 + uint64(b[i]-'0')
		}
		nd, exp = nd+i-f0, f0-i
	}
	if nd == 0 || nd > 19 || mant > 1<<53 {
		return 0, 0, false // no digits, or a mantissa float64 may not hold exactly
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		e, n, ok := exponent(b[i+1:])
		if !ok {
			return 0, 0, false
		}
		exp, i = exp+e, i+1+n
	}
	v = float64(mant)
	switch {
	case mant == 0:
	case exp >= 0 && exp <= 22:
		v *= pow10[exp]
	case exp < 0 && exp >= -22:
		v /= pow10[-exp]
	default:
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, i, true
}

// exponent parses the [+-]digits prefix of b (1 to 4 digits) and returns
// its value and length.
func exponent(b []byte) (e, n int, ok bool) {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		n = 1
	}
	d0 := n
	for ; n < len(b) && b[n]-'0' <= 9; n++ {
		e = e*10 + int(b[n]-'0')
	}
	if n == d0 || n-d0 > 4 {
		return 0, 0, false
	}
	if b[0] == '-' {
		e = -e
	}
	return e, n, true
}

// digits parses 1 to max decimal digits.
func digits(b []byte, max int) (int, bool) {
	if len(b) == 0 || len(b) > max {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// parseNum parses a finite number: the fast path, else strconv.
func parseNum(tok []byte) (float64, bool) {
	if v, ok := fastFloat(tok); ok {
		return v, true
	}
	v, err := strconv.ParseFloat(unsafeString(tok), 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// parseIndex parses a libsvm feature index: decimal digits, 1..MaxLibSVMIndex.
func parseIndex(b []byte) (int, bool) {
	n, ok := digits(b, 9)
	return n, ok && n >= 1 && n <= MaxLibSVMIndex
}
