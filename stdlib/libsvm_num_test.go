package stdlib

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestFastFloat: the fast path returns strconv.ParseFloat's bits whenever
// it accepts a string, and accepts the short decimals of libsvm files.
func TestFastFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	check := func(s string) {
		want, err := strconv.ParseFloat(s, 64)
		got, ok := fastFloat([]byte(s))
		if ok && (err != nil || math.Float64bits(got) != math.Float64bits(want)) {
			t.Errorf("%q: fast %v, strconv %v (%v)", s, got, want, err)
		}
	}
	for _, s := range []string{"0", "-0", "1", "+1", ".5", "5.", "1e5", "1E-5", "-2.5e+3", "0.000123", "123456789012345",
		"1234567890123456", "1e22", "1e23", "1e-22", "1e-23", "0.1", "3.14159", "", ".", "e5", "1e", "1.2.3", "nan", "inf", "0x10", "1_0"} {
		check(s)
	}
	for _, s := range []string{"0.5", "-2", "1e-1", "3.25", "0.000123", "123456789012345", "-0"} {
		if _, ok := fastFloat([]byte(s)); !ok {
			t.Errorf("%q not on the fast path", s)
		}
	}
	for range 100_000 {
		x := r.NormFloat64() * math.Pow(10, float64(r.IntN(30)-15))
		for _, f := range []byte{'g', 'e', 'f'} {
			check(strconv.FormatFloat(x, f, r.IntN(17), 64))
		}
	}
}
