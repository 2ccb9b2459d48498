package compile

import (
	"strings"
	"testing"
)

const netPredictModel = `model m
data y = [1.2, 0.4, 2.1]
data c = [3, 4]
latent mu: real ~ normal(0, 10)
latent tau: real ~ gamma(2, 2)
latent w: real[2] ~ normal(0, 1)
latent rate: real[2] ~ gamma(2, 1)
latent z: cat(2) ~ categorical([0.5, 0.5])
latent p: real ~ beta(1, 1)
for i in 0..3 {
  y[i] ~ normal(mu + w[0], 1 / tau)
}
for j in 0..2 {
  c[j] ~ poisson(rate[z])
  c[j] ~ binomial(j + 4, p)
}
`

// TestNetPredictErrors: a predict that the Net engines cannot answer is a
// compile error at its position, saying why.
func TestNetPredictErrors(t *testing.T) {
	for _, tc := range []struct{ stmt, infer, want string }{
		{"predict q = predictive(mu + 1)", "infer ep", "m.fg:17:24: on a model with beta"},
		{"predict q = predictive(w)", "infer ep", "m.fg:17:24: predictive(w): no observation has `w[0]` as a parameter of its likelihood"},
		{"predict q = predictive(rate)", "infer ep", "m.fg:17:24: predictive(rate): no observation has `rate[0]` as a parameter"},
		{"predict q = predictive(rate)", "infer ep", "m.fg:17:24: predictive(rate): no observation has `rate[0]`"},
		{"predict q = predictive(z)", "infer ep", "m.fg:17:24: predictive(z): no observation has `z`"},
		{"predict q = predictive(w[0])", "infer ep", "m.fg:17:24: predictive(w[0]): no observation has `w[0]` as a parameter"},
		{"predict q = predictive(p)", "infer ep", "m.fg:17:24: predictive(p): the observations of `p` have different likelihoods (binomial(c[0]) at m.fg:15:3, binomial(c[1]) at m.fg:15:3)"},
		{"predict q = predictive(mu, c)", "infer ep", "m.fg:17:13: predict takes the likelihood of a new observation"},
		{"predict q = predictive(gamma(2, tau))", "infer ep", "m.fg:17:24: predictive of `gamma`: the posterior predictive is defined for bernoulli, binomial, poisson and normal"},
		{"predict q = predictive(poisson(2))", "infer ep", "m.fg:17:24: `poisson(2)` depends on no latent"},
		{"predict q = predictive(poisson(rate[z]))", "infer ep", "m.fg:17:37: predictive: a parameter selected by a discrete latent (`z`) is not supported"},
		{"predict q = predictive(bernoulli(tau))", "infer ep", "m.fg:17:34: predictive(bernoulli(tau)): `tau` is a gamma latent, which the `p` of bernoulli does not take"},
		{"predict q = predictive(binomial(-2, 0.5))", "infer ep", "depends on no latent"},
		{"predict q = predictive(tau)", "infer exact", "m.fg:17:1: predict q: exact cannot answer this predictive: its mean is an affine expression of several latents"},
		{"predict q = predictive(normal(mu + w[1], 2))", "infer mcmc", "m.fg:17:1: predict q: mcmc cannot answer this predictive: its mean is an affine expression of several latents"},
		{"predict q = predictive(poisson(rate))\npredict q = predictive(poisson(rate))", "infer ep", "m.fg:18:9: predict `q` declared twice"},
	} {
		_, err := CompileSource("m.fg", []byte(netPredictModel+tc.stmt+"\n"+tc.infer+"\n"), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %s: got %v, want %q", tc.stmt, tc.infer, err, tc.want)
		}
	}
	for _, ok := range []string{"predict q = predictive(tau)\ninfer ep", "predict q = predictive(normal(mu + w[1], 2))\ninfer ep", "predict q = predictive(normal(mu, 1 / tau))\ninfer ep { divergence = alpha(0) }",
		"predict q = predictive(poisson(rate))\ninfer exact", "predict q = predictive(normal(mu, 1 / tau))\ninfer exact\ninfer mcmc", "predict q = predictive(normal(2 * mu + 1, 0.5))\ninfer mcmc"} {
		if _, err := CompileSource("m.fg", []byte(netPredictModel+ok+"\n"), Options{}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestNetPredictSelected: the short form on a latent whose observations
// have a selected parameter is refused (a predictive over the selector's
// states is not computed), not answered from the selected edge.
func TestNetPredictSelected(t *testing.T) {
	src := `model s
data y = [1.2, -0.4, 2.1]
latent mu: real[2] ~ normal(0, 10)
latent tau: real ~ gamma(2, 2)
latent z: cat(2) ~ categorical([0.5, 0.5])
for i in 0..3 {
  y[i] ~ normal(mu[z], 1 / tau)
}
predict q = predictive(tau)
infer ep
`
	want := "s.fg:9:24: predictive(tau): the observations of `tau` (normal(y[0]) at s.fg:7:3) have a parameter selected by a discrete latent, `z`"
	if _, err := CompileSource("s.fg", []byte(src), Options{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}
