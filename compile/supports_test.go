package compile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestSupports: Model.Supports reports, for a line whose settings no longer
// fit the engine serving it, the refusal compile gives for the same line
// written out (message and position), a warning for an experimental rule,
// and nothing for a line compile accepted; the model's warnings stay as
// they were.
func TestSupports(t *testing.T) {
	const model = "latent w: real[2] ~ normal(0, 1)\ndata X: real[3, 2] = [[1, 0], [0, 1], [1, 1]]\nfor i in 0..3 { 1 ~ probit(dot(X[i], w)) }\n"
	m := mustCompile(t, model+"infer ep\ninfer ep as pep { divergence = alpha(0.5) }\n", Options{})
	warnings := len(m.Warnings)
	if d := m.Supports(m.Infers[0]); len(d) != 0 {
		t.Errorf("accepted line: %v", d)
	}
	d := m.Supports(m.Infers[1])
	if len(d) != 1 || !d[0].Warning || !strings.Contains(d[0].Msg, "experimental rule for probit") || d[0].Pos.Line != 5 {
		t.Errorf("power EP on probit: %+v, want one warning at line 5", d)
	}
	if len(m.Warnings) != warnings {
		t.Errorf("Supports changed the model's warnings: %d, was %d", len(m.Warnings), warnings)
	}

	spec := *m.Infers[0]
	spec.Settings.Schedule = infer.Residual
	d = m.Supports(&spec)
	_, err := CompileSource("test.fg", []byte(model+"infer ep { schedule = residual }\n"), Options{})
	if err == nil {
		t.Fatal("schedule = residual on Gaussian-block EP compiled")
	}
	want := err.Error()
	if len(d) != 1 || d[0].Warning || !strings.Contains(want, d[0].Msg) || d[0].Pos.Line != 4 {
		t.Errorf("residual schedule: %+v, want one error at line 4 with the message of %q", d, want)
	}

	spec = *m.Infers[0]
	spec.Method = infer.MethodBP
	spec.Settings.Divergence = infer.KL{}
	if d := m.Supports(&spec); len(d) == 0 || !strings.Contains(d[0].Msg, "no rule for normal") {
		t.Errorf("bp on a Gaussian block: %+v", d)
	}
}

// TestEngineChoice: the engine registered for each method and model
// structure, as compile and infer/run see it (the engine types of
// infer/run, linked by engines_link_test.go), and the method registry's
// refusal where none is.
func TestEngineChoice(t *testing.T) {
	cases := []struct {
		src    string
		method infer.Method
		want   string
		refuse string
	}{
		{"latent w: real[2] ~ normal(0, 1)\n1 ~ normal(w[0] + w[1], 1)\n", infer.MethodEP, "run.blockEP", ""},
		{"latent w: real[2] ~ normal(0, 1)\n1 ~ normal(w[0] + w[1], 1)\n", infer.MethodMCMC, "run.blockESS", ""},
		{"latent w: real[2] ~ normal(0, 1)\n1 ~ normal(w[0] + w[1], 1)\n", infer.MethodBP, "<nil>", "bp needs discrete latents"},
		{"latent s: spin[2] ~ uniform_spin()\nfactor ising(s[0], s[1], 0.5)\n", infer.MethodEP, "run.beliefProp", ""},
		{"latent s: spin[2] ~ uniform_spin()\nfactor ising(s[0], s[1], 0.5)\n", infer.MethodBP, "run.beliefProp", ""},
		{"latent s: spin[2] ~ uniform_spin()\nfactor ising(s[0], s[1], 0.5)\n", infer.MethodExact, "run.junctionTree", ""},
		{"latent s: spin[2] ~ uniform_spin()\nfactor ising(s[0], s[1], 0.5)\n", infer.MethodMCMC, "run.gibbs", ""},
		{"latent x: real[2]\nx[0] ~ normal(0, 1)\nx[1] ~ normal(x[0], 1)\n2 ~ normal(x[1], 1)\n", infer.MethodExact, "run.graphExact", ""},
	}
	for _, c := range cases {
		m := mustCompile(t, c.src, Options{})
		eng, err := m.Engine(&InferSpec{Method: c.method})
		got := fmt.Sprintf("%T", eng)
		if got != c.want || (err == nil) != (c.refuse == "") || err != nil && !strings.Contains(err.Error(), c.refuse) {
			t.Errorf("%q under %s: engine %s, %v; want %s, %q", c.src, c.method, got, err, c.want, c.refuse)
		}
	}
}
