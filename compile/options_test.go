package compile

import (
	"reflect"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestOptionsThroughSchema: every option of an infer line, written on a
// line, reaches the field its descriptor stores it in, and the options a
// line does not write keep the method's defaults (infer.Defaults).
func TestOptionsThroughSchema(t *testing.T) {
	const model = `
data y: real[4] = [1, -1, 1, -1]
latent w: real[2] ~ normal(0, 1)
for i in 0..4 {
  y[i] ~ probit(w[0] + i * w[1])
}
`
	for _, c := range []struct {
		line string
		want func(*infer.LineOptions)
	}{
		{"infer ep", func(*infer.LineOptions) {}},
		{"infer ep { divergence = alpha(0.5), schedule = random(seed = 3), damping = 0.5, adapt_damping = false, tol = 1e-3, max_iter = 7, approx = gh(n = 10), nonnegative_sites = true }",
			func(l *infer.LineOptions) {
				l.Settings.Divergence, l.Settings.Schedule, l.Settings.Seed = infer.Alpha{A: 0.5}, infer.Random, 3
				l.Settings.Damping, l.Settings.FixedDamping, l.Settings.Tol, l.Settings.MaxIter = 0.5, true, 1e-3, 7
				l.Approx, l.NonNegativeSites = infer.Scheme{Kind: infer.SchemeGH, N: 10}, true
			}},
		{"infer ep { shards = 2, seed = 9, family = full }", func(l *infer.LineOptions) { l.Shards, l.Settings.Seed = 2, 9 }},
		{"infer ep { approx = laplace, family = factorized, passes = 3 }", func(l *infer.LineOptions) {
			l.Approx, l.Family, l.Passes = infer.Scheme{Kind: infer.SchemeLaplace}, infer.FamilyFactorized, 3
		}},
		{"infer exact { method = is, seed = 4 }", func(l *infer.LineOptions) { l.ExactMethod, l.Settings.Seed = "is", 4 }},
		{"infer mcmc { samples = 100, burnin = 10, chains = 2 }", func(l *infer.LineOptions) { l.MCMCSpec = infer.MCMCSpec{Samples: 100, Burnin: 10, Chains: 2} }},
	} {
		m, err := CompileSource("o.fg", []byte(model+c.line+"\n"), Options{})
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		spec := m.Infers[0]
		want := infer.Defaults(spec.Method)
		c.want(&want)
		if !reflect.DeepEqual(spec.LineOptions, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.line, spec.LineOptions, want)
		}
	}
}
