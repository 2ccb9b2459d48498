package exact

import (
	"math"
	"testing"
)

// monomialIntegral is ∫_{[−1,1]^d} Π x_i^{a_i} dx (closed form).
func monomialIntegral(a []int) float64 {
	v := 1.0
	for _, e := range a {
		if e%2 == 1 {
			return 0
		}
		v *= 2 / float64(e+1)
	}
	return v
}

// applyRule returns the hi and lo rule values of Π x_i^{a_i}.
func applyRule(r *rule, a []int) (hi, lo float64) {
	for k, x := range r.nodes {
		f := 1.0
		for i, e := range a {
			f *= math.Pow(x[i], float64(e))
		}
		hi += r.hi[k] * f
		lo += r.lo[k] * f
	}
	return hi, lo
}

// forMultiIndices calls fn for every multi-index of d entries with total
// degree ≤ deg.
func forMultiIndices(d, deg int, fn func([]int)) {
	a := make([]int, d)
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == d {
			fn(a)
			return
		}
		for e := 0; e <= left; e++ {
			a[i] = e
			rec(i+1, left-e)
		}
	}
	rec(0, deg)
}

// TestRuleDegrees checks the polynomial degrees of the embedded rules
// against closed-form monomial integrals: K15 exact to degree 22 and G7 to
// 13 (d = 1); Genz–Malik degree 7 and its embedded rule degree 5 (d = 2, 3).
func TestRuleDegrees(t *testing.T) {
	cases := []struct{ d, hiDeg, loDeg int }{{1, 22, 13}, {2, 7, 5}, {3, 7, 5}}
	for _, c := range cases {
		r := ruleFor(c.d)
		forMultiIndices(c.d, c.hiDeg, func(a []int) {
			deg := 0
			for _, e := range a {
				deg += e
			}
			want := monomialIntegral(a)
			hi, lo := applyRule(r, a)
			if !(math.Abs(hi-want) <= 1e-13) {
				t.Errorf("d=%d %v: high rule %.16g, want %.16g", c.d, a, hi, want)
			}
			if deg <= c.loDeg && !(math.Abs(lo-want) <= 1e-13) {
				t.Errorf("d=%d %v: low rule %.16g, want %.16g", c.d, a, lo, want)
			}
		})
		// The embedded rule must not be exact one degree higher, or its
		// error estimate would be meaningless: x^(loDeg+1) is even.
		a := make([]int, c.d)
		a[0] = c.loDeg + 1
		if _, lo := applyRule(r, a); math.Abs(lo-monomialIntegral(a)) < 1e-6 {
			t.Errorf("d=%d: low rule unexpectedly exact at degree %d", c.d, c.loDeg+1)
		}
	}
}
