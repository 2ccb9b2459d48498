package compile

import (
	"strings"
	"testing"
)

// TestExperimentalRuleWarns: an infer line that uses an experimental rule
// compiles with a warning at the infer line naming the kind, its role and
// where it is used; stable rules give none.
func TestExperimentalRuleWarns(t *testing.T) {
	src := `data y: spin[2] = [1, -1]
latent w: real[1] ~ normal(0, 1)
for i in 0..2 { y[i] ~ probit(w[0]) }
infer ep
infer ep { divergence = alpha(0.5) }
`
	m, err := CompileSource("w.fg", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 1 {
		t.Fatalf("warnings %v, want one", m.Warnings)
	}
	w := m.Warnings[0]
	if w.Pos.Line != 5 || w.Pos.Column != 1 || !strings.Contains(w.Msg, "ep alpha uses an experimental rule for probit (likelihood) (at w.fg:3:") {
		t.Errorf("warning %v", w)
	}
}

// TestExperimentalLearnRuleWarns: a learn statement on a likelihood whose
// learning rule is experimental (poisson_log) compiles with a warning at
// the learn statement naming the likelihood and where it is used; a
// stable learning rule (probit) gives none.
func TestExperimentalLearnRuleWarns(t *testing.T) {
	for _, c := range []struct {
		lik  string
		want int
	}{{"poisson_log(w[0])", 1}, {"probit(w[0])", 0}} {
		src := `param s = 1.0
data y: int[2] = [1, 0]
latent w: real[1] ~ normal(0, s)
for i in 0..2 { y[i] ~ ` + c.lik + ` }
learn s in [0.1, 10]
`
		if c.lik == "probit(w[0])" {
			src = strings.Replace(src, "int[2] = [1, 0]", "spin[2] = [1, -1]", 1)
		}
		m, err := CompileSource("l.fg", []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Warnings) != c.want {
			t.Fatalf("%s: warnings %v, want %d", c.lik, m.Warnings, c.want)
		}
		if c.want == 0 {
			continue
		}
		w := m.Warnings[0]
		if w.Pos.Line != 5 || w.Pos.Column != 1 || !strings.Contains(w.Msg, "learn uses an experimental rule for poisson_log (likelihood) (at l.fg:4:") {
			t.Errorf("warning %v", w)
		}
	}
}

// TestLearnFallbackWarns: a learned param that reaches a number through
// an expression without jets — @ in a gp kernel (Gaussian blocks), in a
// random walk's variance inside a plate (a forest: one warning for the
// statement), in a beta prior's pseudo-count (a typed factor graph), in
// an mvnormal conditional's mean (a factor graph's joint block) — compiles
// with one warning at that expression saying learning differences it;
// the same models with the expression written with jets give none.
func TestLearnFallbackWarns(t *testing.T) {
	for _, c := range []struct {
		name, src string
		clean     [2]string // the expression, and one with jets
		line, col int
		msg       string
	}{
		{"gp", `param p = 0.3
data X = [[0.0], [0.5], [1.2], [2.0]]
data s: spin[4] = [1, -1, 1, 1]
param v = [p, 2]
latent f: real[4] ~ gp(se([1, 0] @ v + 1, exp(p)), X)
for i in 0..4 { s[i] ~ step(f[i], 0.1 * exp(p)) }
infer ep
learn p
`, [2]string{"[1, 0] @ v", "v[0]"}, 5, 27, "`[1, 0] @ v` has no derivative in the learned params (operator @)"},
		{"walk", `param p = 0.3
data y: spin[4] = [1, -1, 1, 1]
latent x: real[4]
x[0] ~ normal(0, 1)
for t in 1..4 { x[t] ~ normal(x[t - 1], [1, 0] @ [exp(p), 1]) }
for t in 0..4 { y[t] ~ step(x[t], 0.1) }
learn p
infer ep
`, [2]string{"[1, 0] @ [exp(p), 1]", "exp(p)"}, 5, 41, "`[1, 0] @ [exp(p), 1]` has no derivative"},
		{"net", `data y = [1, 0, 1, 1, 1, 0, 1]
param a = 2
latent p: real ~ beta([1, 0] @ [a, 1], 2)
for i in 0..7 { y[i] ~ bernoulli(p) }
learn a in [0.1, 50]
infer ep
`, [2]string{"[1, 0] @ [a, 1]", "a"}, 3, 23, "`[1, 0] @ [a, 1]` has no derivative"},
		{"mvnormal", `param a = 0.5
data y = [0.3, -0.2]
latent u: real[2]
u ~ mvnormal([0, 0], [[1, 0], [0, 1]])
latent w: real[2]
w ~ mvnormal([1, 0] @ [a, 1] * u, [[1, 0.3], [0.3, 1]])
for i in 0..2 { y[i] ~ normal(w[i], 0.5) }
learn a
infer ep
`, [2]string{"[1, 0] @ [a, 1] * u", "a * u"}, 6, 14, "the mean `[1, 0] @ [a, 1] * u` has no derivative"},
	} {
		m, err := CompileSource("l.fg", []byte(c.src), Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(m.Warnings) != 1 {
			t.Fatalf("%s: warnings %v, want one", c.name, m.Warnings)
		}
		w := m.Warnings[0]
		if w.Pos.Line != c.line || w.Pos.Column != c.col || !strings.Contains(w.Msg, "learn: "+c.msg) || !strings.Contains(w.Msg, "central differences") {
			t.Errorf("%s: warning %v", c.name, w)
		}
		if !strings.Contains(c.src, c.clean[0]) {
			t.Fatalf("%s: no %q", c.name, c.clean[0])
		}
		m, err = CompileSource("l.fg", []byte(strings.Replace(c.src, c.clean[0], c.clean[1], 1)), Options{})
		if err != nil {
			t.Fatalf("%s with jets: %v", c.name, err)
		}
		if len(m.Warnings) != 0 {
			t.Errorf("%s with jets: warnings %v", c.name, m.Warnings)
		}
	}
}
