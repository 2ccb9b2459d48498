package stdlib

import (
	"math"
	"strconv"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat parses a plain decimal [+-]digits[.digits][(e|E)[+-]digits]
// with at most 15 significant digits and a decimal exponent within ±22 by
// Clinger's fast path: the mantissa and 10^|e| are exact float64s, so one
// correctly rounded multiplication or division gives the correctly rounded
// value — the same bits as strconv.ParseFloat, which handles everything
// else (ok = false). libsvm files are mostly such short decimals, and
// parsing them dominates the cost of streaming.
func fastFloat(b []byte) (v float64, ok bool) {
	i, neg := 0, false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, exp, sawDigit, sawDot := 0, 0, false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if mant == 0 && c == '0' {
				if sawDot {
					exp--
				}
				continue
			}
			if digits == 15 {
				return 0, false
			}
			mant, digits = mant*10+uint64(c-'0'), digits+1
			if sawDot {
				exp--
			}
		case c == '.' && !sawDot:
			sawDot = true
		case c == 'e' || c == 'E':
			e, ok := smallInt(b[i+1:])
			if !ok || !sawDigit {
				return 0, false
			}
			exp += e
			i = len(b)
		default:
			return 0, false
		}
	}
	if !sawDigit {
		return 0, false
	}
	v = float64(mant)
	switch {
	case mant == 0:
	case exp >= 0 && exp <= 22:
		v *= pow10[exp]
	case exp < 0 && exp >= -22:
		v /= pow10[-exp]
	default:
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// smallInt parses [+-]digits with |n| < 10⁴.
func smallInt(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	n, ok := digits(b, 4)
	if neg {
		n = -n
	}
	return n, ok
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
