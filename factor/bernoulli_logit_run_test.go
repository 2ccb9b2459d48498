package factor_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/run"
)

// logitModels are two small logistic regressions on 0/1 labels, written
// with bernoulli_logit: one Gaussian block (the sites on X @ w), and a
// factor graph (a latent bias added to each projection, infer/fgraph).
// LABELS and LIK are replaced to write the same model on spins.
var logitModels = map[string]string{
	"block": `
data X: real[7, 2] = [[1, -1.5], [1, -0.7], [1, -0.2], [1, 0.3], [1, 0.9], [1, 1.6], [1, 2.2]]
data y: int[7] = LABELS
latent w: real[2] ~ normal(0, 2)
y ~ LIK(X @ w)
predict p = predictive(w, [[1, 0], [1, 1.5]])
`,
	"graph": `
data x: real[7] = [-1.5, -0.7, -0.2, 0.3, 0.9, 1.6, 2.2]
data y: int[7] = LABELS
latent w: real ~ normal(0, 2)
latent b: real ~ normal(0, 1)
for i in 0..7 { y[i] ~ LIK(x[i] * w + b) }
`,
}

var (
	labels01   = []int{0, 0, 1, 0, 1, 1, 0}
	infersSame = "infer exact\ninfer mcmc { samples = 4000, seed = 7 }\n"
)

// model writes a logit model with the likelihood lik on labels01, mapped
// to spins 2y − 1 when spin is set.
func model(src, lik string, spin bool) string {
	ls := make([]string, len(labels01))
	for i, y := range labels01 {
		if spin {
			y = 2*y - 1
		}
		ls[i] = fmt.Sprint(y)
	}
	src = strings.ReplaceAll(src, "LABELS", "["+strings.Join(ls, ", ")+"]")
	return "model m\n" + strings.ReplaceAll(src, "LIK", lik)
}

func runModel(t *testing.T, src string) []*infer.Result {
	t.Helper()
	m, err := compile.CompileSource("m.fg", []byte(src), compile.Options{})
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, src)
	}
	rs, err := run.Run(context.Background(), m, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if !r.Status.HasNumbers() {
			t.Fatalf("%s: %v (%s)", r.Label, r.Status, r.Message)
		}
	}
	return rs
}

// sameResults compares two runs of the same infer lines: every marginal
// mean and variance, the log evidence and every class probability.
func sameResults(t *testing.T, what string, got, want []*infer.Result, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d", what, len(got), len(want))
	}
	for k, g := range got {
		w := want[k]
		eq := func(name string, x, y float64) {
			if !scalar.EqualWithinAbsOrRel(x, y, tol, tol) {
				t.Errorf("%s %s: %s = %.17g, logistic on spins %.17g (tolerance %g)", what, g.Label, name, x, y, tol)
			}
		}
		eq("log Z", g.LogEvidence, w.LogEvidence)
		for i, v := range g.Variables.All() {
			for e := range v.Mean {
				eq(fmt.Sprintf("%s mean[%d]", v.Name, e), v.Mean[e], w.Variables.At(i).Mean[e])
				eq(fmt.Sprintf("%s var[%d]", v.Name, e), v.Var[e], w.Variables.At(i).Var[e])
			}
		}
		if len(g.Predictions) != len(w.Predictions) {
			t.Fatalf("%s %s: %d predictions, want %d", what, g.Label, len(g.Predictions), len(w.Predictions))
		}
		for j, p := range g.Predictions {
			for e := range p.Prob {
				eq(fmt.Sprintf("p(y = 1)[%d]", e), p.Prob[e], w.Predictions[j].Prob[e])
			}
		}
	}
}

// TestBernoulliLogitEqualsLogistic: bernoulli_logit on 0/1 labels is
// logistic on the spins 2y − 1, so with the same scheme every engine gives
// the same numbers: ep with approx = gh(n = 32) (logistic's default),
// exact, and mcmc with the same seed, to 1e-12; bernoulli_logit's own
// Tilted rule (quadrature moments, the default) matches logistic under
// 200-point Gauss–Hermite to 1e-9.
func TestBernoulliLogitEqualsLogistic(t *testing.T) {
	for name, src := range logitModels {
		bl := runModel(t, model(src, "bernoulli_logit", false)+"infer ep { approx = gh(n = 32) }\n"+infersSame)
		lg := runModel(t, model(src, "logistic", true)+"infer ep\n"+infersSame)
		sameResults(t, name, bl, lg, 1e-12)

		bl = runModel(t, model(src, "bernoulli_logit", false)+"infer ep\n")
		lg = runModel(t, model(src, "logistic", true)+"infer ep { approx = gh(n = 200) }\n")
		sameResults(t, name+" (Tilted)", bl, lg, 1e-9)
	}
}
