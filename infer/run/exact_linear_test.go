package run

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
)

// TestExactLinearAnySize: infer exact on a conjugate Gaussian block of six
// dimensions is solved in closed form (before, it was refused: "method quad
// supports d ≤ 3"), with no warning and no jitter, and equals the closed
// form of Bayesian linear regression computed in the test (linregClosedForm:
// an explicit solve of the normal equations) to 1e-10; log Z too.
func TestExactLinearAnySize(t *testing.T) {
	Xd := []float64{1, 0.5, 0, 1, 0.2, -0.4, -0.3, 1, 2, 0, 1, 0.1, 0.7, -1.2, 1, 1, 0, 0.3,
		2, 0.1, 0, -1, 0.5, 0.5, 0.4, 0.4, 1, 1, -1, 1, -1, 0.2, 0.3, 0.3, 0.1, 2, 0.5, 0.5, 0.5, -0.5, 1, 0}
	yd := []float64{0.9, 0.4, -0.8, 1.7, 0.2, -0.3, 0.6}
	rs := runSrc(t, `
data X: real[7, 6] = [[1, 0.5, 0, 1, 0.2, -0.4], [-0.3, 1, 2, 0, 1, 0.1], [0.7, -1.2, 1, 1, 0, 0.3], [2, 0.1, 0, -1, 0.5, 0.5], [0.4, 0.4, 1, 1, -1, 1], [-1, 0.2, 0.3, 0.3, 0.1, 2], [0.5, 0.5, 0.5, -0.5, 1, 0]]
data y: real[7] = [0.9, 0.4, -0.8, 1.7, 0.2, -0.3, 0.6]
latent w: real[6] ~ normal(0, 2)
for i in 0..7 { y[i] ~ normal(dot(X[i], w), 0.25) }
infer exact
`)
	mean, vr, logZ := linregClosedForm(mat.NewDense(7, 6, Xd), mat.NewVecDense(7, yd), 2, 0.25)
	r := rs["exact"]
	if r.Status != infer.Done || len(r.Warnings) != 0 {
		t.Fatalf("status %v (%s), warnings %v", r.Status, r.Message, r.Warnings)
	}
	checkMoments(t, r, mean, vr, logZ, 1e-10)
	if r.Options["method"] != "gaussian" {
		t.Errorf("method %q, want gaussian (the closed form)", r.Options["method"])
	}
}

// TestExactMethodIS: method = is is an option of infer exact (docs/cli.md
// names it). Above three dimensions the default quadrature refuses and says
// so; importance sampling runs, and on a 4-D probit block its posterior
// means agree with EP's to 0.05 (EP is within 0.01 of the truth here) and
// carry Monte Carlo standard errors.
func TestExactMethodIS(t *testing.T) {
	if testing.Short() {
		t.Skip("10⁶ importance samples")
	}
	rs := runSrc(t, `
data X: real[6, 4] = [[1, 0.5, 0, 1], [-0.3, 1, 2, 0], [0.7, -1.2, 1, 1], [2, 0.1, 0, -1], [0.4, 0.4, 1, 1], [-1, 0.2, 0.3, 0.3]]
data y: spin[6] = [1, 1, -1, 1, 1, -1]
latent w: real[4] ~ normal(0, 2)
for i in 0..6 { y[i] ~ probit(dot(X[i], w)) }
infer ep
infer exact
infer exact as is { method = is }
`)
	if r := rs["exact"]; r.Status != infer.Failed || !strings.Contains(r.Message, `method "is"`) {
		t.Errorf("exact (quad) on d = 4: %v (%s)", r.Status, r.Message)
	}
	r := rs["is"]
	if r.Status != infer.Done || r.Options["method"] != "is" {
		t.Fatalf("is: %v (%s), method %q", r.Status, r.Message, r.Options["method"])
	}
	v, e := r.Variables.At(0), rs["ep"].Variables.At(0)
	for i := range v.Mean {
		if !(math.Abs(v.Mean[i]-e.Mean[i]) <= 0.05) || !(v.MeanSE[i] > 0) {
			t.Errorf("is: w[%d] = %g (se %g), ep %g", i, v.Mean[i], v.MeanSE[i], e.Mean[i])
		}
	}
}

// TestFactorizedTightSiteFromSource: a Gaussian reading of a projection of
// three weights whose noise (1e-12) is tiny against the first weight's
// prior, under family = factorized with approx = exact (infer/ffep's exact
// member sites, families.MemberSite), as EP and as ADF, and under infer
// exact: every line gives the closed-form posterior
// (testkit.GaussianSite) — variances within 1e-9 relative, means within
// 1e-9 sd plus 4ε|E w| (w[0]'s sd is 1.8e-6). The derivative route put
// w[0]'s variance 8e-6 off.
func TestFactorizedTightSiteFromSource(t *testing.T) {
	rs := runSrc(t, `
data X: real[1, 3] = [[1, 1e-6, -1e-6]]
data y: real[1] = [1.3]
latent w: real[3] ~ normal([0.3, -0.5, 1.1], [2, 0.8, 1.5])
for i in 0..1 { y[i] ~ normal(dot(X[i], w), 1e-12) }
infer ep as ff { family = factorized, approx = exact, tol = 1e-12 }
infer ep as adf { family = factorized, approx = exact, passes = 1 }
infer exact
`)
	mean, vr, _ := testkit.GaussianSite([]float64{0.3, -0.5, 1.1}, []float64{2, 0.8, 1.5}, []float64{1, 1e-6, -1e-6}, 0, 1.3, 1e-12)
	for _, l := range []string{"ff", "adf", "exact"} {
		r := rs[l]
		if !r.Status.HasNumbers() {
			t.Fatalf("%s: %v %s", l, r.Status, r.Message)
		}
		v := r.Variables.At(0)
		testkit.CheckMarginals(t, l, v.Mean, v.Var, mean, vr, 1e-9)
	}
}
