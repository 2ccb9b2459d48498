package run

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestFactorizedExactQuadratureKinds: fully factorised EP with approx =
// exact takes a site's tilted moments from its kind's Tilted rule, including
// the fixed-quadrature ones (poisson_log, student_t). On a one-element
// latent the factorised and the full family are the same EP, so their
// fixed points must agree (to 1e-8). Before, these kinds skipped every
// update under family = factorized.
func TestFactorizedExactQuadratureKinds(t *testing.T) {
	for _, lik := range []string{"poisson_log(a)", "student_t(4, a, 0.5)"} {
		src := `
data y = [0, 1, 3, 2, 5]
latent a: real ~ normal(0, 1)
for i in 0..5 { y[i] ~ ` + lik + ` }
infer ep as ff { family = factorized, tol = 1e-12 }
infer ep as full { tol = 1e-12 }
`
		rs, err := Run(context.Background(), compileSrc(t, src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		ff, full := rs[0], rs[1]
		if ff.Status != infer.Converged || full.Status != infer.Converged {
			t.Fatalf("%s: ff %v (%s), full %v (%s)", lik, ff.Status, ff.Message, full.Status, full.Message)
		}
		dm := math.Abs(ff.Variables.At(0).Mean[0] - full.Variables.At(0).Mean[0])
		dv := math.Abs(ff.Variables.At(0).Var[0] - full.Variables.At(0).Var[0])
		if !(dm <= 1e-8 && dv <= 1e-8) {
			t.Errorf("%s: factorized %g ± %g, full %g ± %g", lik, ff.Variables.At(0).Mean[0], ff.Variables.At(0).Var[0],
				full.Variables.At(0).Mean[0], full.Variables.At(0).Var[0])
		}
	}
}
