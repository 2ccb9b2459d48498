package run

import "testing"

// TestProbEvent: a prediction's class probabilities name their event by
// the labels of the likelihood — p(y = 1) for bernoulli_logit's 0/1
// labels, p(y = +1) for probit's spins, on the Gaussian-block engines and
// the gold standard; a prediction without probabilities names none.
func TestProbEvent(t *testing.T) {
	for _, c := range []struct{ data, lik, want string }{
		{"int[3] = [0, 1, 1]", "bernoulli_logit(w[0])", "y = 1"},
		{"spin[3] = [-1, 1, 1]", "probit(w[0])", "y = +1"},
		{"real[3] = [-0.5, 1, 1.2]", "normal(w[0], 1)", ""},
	} {
		src := `data y: ` + c.data + `
latent w: real[1] ~ normal(0, 1)
for i in 0..3 { y[i] ~ ` + c.lik + ` }
predict p = predictive(w, [[1], [-1]])
infer ep
infer exact
`
		for label, r := range runSrc(t, src) {
			if len(r.Predictions) != 1 || r.Predictions[0].Event != c.want {
				t.Errorf("%s, %s: predictions %+v, want event %q", c.lik, label, r.Predictions, c.want)
			}
		}
	}
}
