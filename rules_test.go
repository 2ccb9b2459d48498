package fg

import (
	"strings"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
)

// TestRulesAndWarnings: the Go API reaches the rule table and a model's
// compile-time warnings (an experimental rule).
func TestRulesAndWarnings(t *testing.T) {
	found := false
	for _, r := range Rules() {
		if _, ok := r.Kind.(factor.PoissonLog); ok && r.Column == (factor.Column{Method: "ep", Div: infer.DivKL}) {
			found = r.Quality == factor.Stable
		}
	}
	if !found {
		t.Error("Rules() lacks poisson_log under ep kl")
	}
	src := "data y: spin[1] = [1]\nlatent w: real[1] ~ normal(0, 1)\ny[0] ~ probit(w[0])\ninfer ep { divergence = alpha(0.5) }\n"
	m, err := LoadBytes("w.fg", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if w := m.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "w.fg:4:1: ep alpha uses an experimental rule for probit (likelihood)") {
		t.Errorf("warnings %q", w)
	}
}
