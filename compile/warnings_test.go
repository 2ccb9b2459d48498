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
