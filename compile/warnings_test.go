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
