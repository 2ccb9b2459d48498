package parser

import "testing"

func TestIncomplete(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"", false},
		{"// just a comment", false},
		{"param a = 1", false},
		{"x ~ normal(0,", true},
		{"x ~ normal(0,\n 1)", false},
		{"for i in 0..5 {", true},
		{"for i in 0..5 {\n  y[i] ~ probit(f[i])", true},
		{"for i in 0..5 {\n  y[i] ~ probit(f[i])\n}", false},
		{"infer ep {\n divergence = kl", true},
		{"data X = [[1, 2],", true},
		{"data X = [[1, 2]]", false},
		{"param a = b +", true},
		{"param a = b + // comment", true},
		{"expect a and", true},
		{"expect not", true},
		{"param a = b ^", true},
		{"param a =", false}, // an error, not a continuation
		{"x ~ f())", false},  // stray closer: let the parser report it
		{"param s = \"abc", false},
		{"}", false},
		{"param a = 1;", false},
	} {
		if got := Incomplete([]byte(c.src)); got != c.want {
			t.Errorf("Incomplete(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}
