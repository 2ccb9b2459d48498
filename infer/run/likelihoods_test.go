package run

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// epVsExact runs a model's infer lines (ep first, exact last) and compares
// every non-exact result's means, variances and log Z with exact's.
func epVsExact(t *testing.T, name, src string, tolMean, tolVar, tolLogZ float64) {
	t.Helper()
	rs, err := Run(context.Background(), compileSrc(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref := rs[len(rs)-1]
	if ref.Status != infer.Done {
		t.Fatalf("%s: exact %v (%s)", name, ref.Status, ref.Message)
	}
	for _, r := range rs[:len(rs)-1] {
		if r.Status != infer.Converged {
			t.Errorf("%s %s: %v (%s)", name, r.Label, r.Status, r.Message)
			continue
		}
		for i := range r.Variables.At(0).Mean {
			m, v := r.Variables.At(0).Mean[i], r.Variables.At(0).Var[i]
			em, ev := ref.Variables.At(0).Mean[i], ref.Variables.At(0).Var[i]
			if !(math.Abs(m-em) <= tolMean*math.Sqrt(ev)) || !(math.Abs(v/ev-1) <= tolVar) {
				t.Errorf("%s %s: w[%d] = %.8g ± %.8g, exact %.8g ± %.8g", name, r.Label, i, m, v, em, ev)
			}
		}
		if !(math.Abs(r.LogEvidence-ref.LogEvidence) <= tolLogZ) {
			t.Errorf("%s %s: log Z %.8g, exact %.8g", name, r.Label, r.LogEvidence, ref.LogEvidence)
		}
	}
}

// TestOneSiteEPIsExact: with a single site on a 1-D Gaussian prior, EP's
// one update matches the tilted moments, which are the exact posterior;
// so EP under poisson_log and the Student-t likelihood must agree with
// `infer exact` (adaptive quadrature, error bound 1e-6 posterior sd) to 1e-5.
func TestOneSiteEPIsExact(t *testing.T) {
	for _, c := range []struct{ y, lik string }{
		{"0", "poisson_log(w[0])"}, {"7", "poisson_log(w[0])"}, {"2", "poisson_log(0.5 * w[0])"},
		{"3.5", "student_t(3, w[0], 0.5)"}, {"-8", "student_t(1, w[0], 0.1)"}, {"0.2", "student_t(30, w[0], 2)"},
	} {
		src := fmt.Sprintf(`
data y: real[1] = [%s]
latent w: real[1] ~ normal(0.3, 2)
y[0] ~ %s
infer ep
infer exact
`, c.y, c.lik)
		epVsExact(t, c.lik+" y="+c.y, src, 1e-5, 1e-5, 1e-5)
	}
}

// TestManySitesEPvsExact: several sites on one and on two weights. EP's
// Gaussian family is then an approximation; the stated tolerances are a
// twentieth of a posterior sd for means, 5% for variances and 0.02 for
// log Z (the examples poisson_regression.fg and robust_regression.fg
// check the same on 2-D models with tighter margins).
func TestManySitesEPvsExact(t *testing.T) {
	const poisson1 = `
data y: int[6] = [0, 2, 1, 4, 3, 1]
latent w: real[1] ~ normal(0, 1)
for i in 0..6 { y[i] ~ poisson_log(w[0]) }
infer ep
infer ep as par { schedule = parallel }
infer exact
`
	epVsExact(t, "poisson 1-D", poisson1, 0.05, 0.05, 0.02)
	const t1 = `
data y: real[5] = [0.1, -0.3, 0.4, 5, 0.2]
latent w: real[1] ~ normal(0, 4)
y ~ student_t(4, [1, 1, 1, 1, 1] * w[0], 0.2)
infer ep { damping = 0.5, max_iter = 500 }
infer exact
`
	epVsExact(t, "student_t 1-D", t1, 0.05, 0.05, 0.02)
	const poisson2 = `
data X: real[8, 2] = [[1, -1], [1, -0.5], [1, 0], [1, 0.5], [1, 1], [1, 1.5], [1, 2], [1, 2.5]]
data y: int[8] = [0, 1, 1, 2, 4, 3, 8, 11]
latent w: real[2] ~ normal(0, 1)
y ~ poisson_log(X @ w)
infer ep
infer exact
`
	epVsExact(t, "poisson 2-D", poisson2, 0.05, 0.05, 0.02)
}
