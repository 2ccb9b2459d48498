package fg_test

import (
	"context"
	"math"
	"testing"

	fg "github.com/fg-infer/fg"
)

// TestNamedScaleForms: `sd =`, `var =` and `precision =` give a
// distribution's variance-like parameter in another form, in priors,
// likelihoods, conditionals and mixture components; the posterior of the
// conjugate normal model is checked against its closed form (1e-12), and
// each named form against the positional (variance) form of the same model.
func TestNamedScaleForms(t *testing.T) {
	y := []float64{1, 2, 0.5}
	// prior N(0, 9), noise variance 0.25: posterior precision 1/9 + n/0.25.
	prec := 1.0/9 + float64(len(y))/0.25
	wantMean, wantVar := (y[0]+y[1]+y[2])/0.25/prec, 1/prec
	for _, c := range []struct{ prior, lik string }{
		{"normal(0, 9)", "normal(mu, 0.25)"},
		{"normal(0, sd = 3)", "normal(mu, sd = 0.5)"},
		{"normal(0, var = 9)", "normal(mu, precision = 4)"},
		{"normal(mean = 0, precision = 1 / 9)", "normal(mu, var = 0.25)"},
		{"normal(0, sd = [3])", "normal(mu, sd = [0.5, 0.5, 0.5])"},
	} {
		src := "model forms\ndata y: real[3] = [1, 2, 0.5]\nlatent mu: real ~ " + c.prior +
			"\ny ~ " + c.lik + "\ninfer ep\ninfer exact\n"
		m, err := fg.LoadBytes("forms.fg", []byte(src))
		if err != nil {
			t.Fatalf("%s / %s: %v", c.prior, c.lik, err)
		}
		res, err := m.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.All() {
			mean, _ := r.Mean("mu", 0)
			v, _ := r.Variance("mu", 0)
			if !(math.Abs(mean-wantMean) <= 1e-12) || !(math.Abs(v-wantVar) <= 1e-12) {
				t.Errorf("%s / %s, %s: mu = %.15g ± %.15g, want %.15g ± %.15g", c.prior, c.lik, r.Label(), mean, v, wantMean, wantVar)
			}
		}
	}
}

// TestNamedScaleFormsAgree: the named forms of student_t's scale, of a
// conditional's variance and of a mixture component's give the results of
// the positional variance form (same model, 1e-12).
func TestNamedScaleFormsAgree(t *testing.T) {
	const head = "model agree\ndata y: real[4] = [0.3, -1.2, 2.5, 0.9]\n"
	for _, c := range []struct{ pos, named string }{
		{head + "latent mu: real ~ student_t(4, 0, 2.25)\ny ~ student_t(3, mu, 0.64)\ninfer ep\n",
			head + "latent mu: real ~ student_t(4, 0, sd = 1.5)\ny ~ student_t(3, mu, precision = 1.5625)\ninfer ep\n"},
		{head + "latent mu: real ~ normal(0, 4)\ny ~ student_t(3, mu, scale = 0.64)\ninfer ep\n",
			head + "latent mu: real ~ normal(0, 4)\ny ~ student_t(3, mu, var = 0.64)\ninfer ep\n"},
		{head + "latent x: real[4]\nx[0] ~ normal(0, 4)\nfor t in 1..4 { x[t] ~ normal(x[t-1], 0.25) }\ny ~ normal(x, 1)\ninfer ep\n",
			head + "latent x: real[4]\nx[0] ~ normal(0, sd = 2)\nfor t in 1..4 { x[t] ~ normal(x[t-1], sd = 0.5) }\ny ~ normal(x, precision = 1)\ninfer ep\n"},
		{head + "latent mu: real ~ normal(0, 4)\nfor i in 0..4 { y[i] ~ mixture([0.7, 0.3], normal(mu, 0.25), normal(0, 100)) }\ninfer ep\n",
			head + "latent mu: real ~ normal(0, 4)\nfor i in 0..4 { y[i] ~ mixture([0.7, 0.3], normal(mu, sd = 0.5), normal(0, precision = 0.01)) }\ninfer ep\n"},
	} {
		sameResults(t, c.named, runSource(t, c.pos).All()[0], runSource(t, c.named).All()[0])
	}
}
