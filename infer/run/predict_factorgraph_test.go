package run

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
)

// gpBiasData are the inputs, labels and new inputs of the GP-with-bias
// predict tests (the data of examples/gp_bias.fg, fewer points).
const gpBiasData = `
data X: real[10, 1] = [[-3.0], [-2.37], [-1.74], [-1.11], [-0.47], [0.16], [0.79], [1.42], [2.05], [2.68]]
data y: spin[10] = [1, 1, -1, 1, 1, -1, 1, 1, 1, -1]
data z: real[10] = [0.9, 0.4, -0.2, 0.8, 1.1, 0.3, 1.4, 1.9, 1.2, 0.1]
data Xs: real[4, 1] = [[-2.5], [0], [1.3], [4]]
param sb2 = 1.5
`

// prediction returns the prediction name of r, or fails.
func prediction(t *testing.T, r *infer.Result, name string) infer.Prediction {
	t.Helper()
	for _, p := range r.Predictions {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("%s: no prediction %s (status %v: %s)", r.Label, name, r.Status, r.Message)
	return infer.Prediction{}
}

// closeTo compares two slices elementwise at tol.
func closeTo(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol) {
			t.Errorf("%s[%d] = %.10g, want %.10g (tol %g)", what, i, got[i], want[i], tol)
		}
	}
}

// TestFGPredictGPBias: GP classification with a latent bias b ~ N(0, σ_b²)
// and y_i ~ probit(f_i + b) (a factor graph: ep is joint-Gaussian EP on
// (f, b)) against the same GP with the bias folded into the kernel,
// k + bias(σ_b²) (a Gaussian block, infer/ep and GPML's predictive). The
// two are EP on the same Gaussian of the projections, so predictive(f + b)
// equals the folded GP's predictive (means, variances, p(y = +1)) and
// predictive(f) has the same class probabilities (its sites' argument is
// f* + b) to 1e-6.
func TestFGPredictGPBias(t *testing.T) {
	bias := gpBiasData + `
latent f: real[10] ~ gp(se(1, 2), X)
latent b: real ~ normal(0, sb2)
for i in 0..10 { y[i] ~ probit(f[i] + b) }
predict pf = predictive(f, Xs)
predict pg = predictive(f + b, Xs)
infer ep { tol = 1e-11, max_iter = 1000 }
`
	folded := gpBiasData + `
latent g: real[10] ~ gp(se(1, 2) + bias(sb2), X)
for i in 0..10 { y[i] ~ probit(g[i]) }
predict pg = predictive(g, Xs)
infer ep { tol = 1e-11, max_iter = 1000 }
`
	got, want := runSrc(t, bias)["ep"], runSrc(t, folded)["ep"]
	if got.Status != infer.Converged || want.Status != infer.Converged {
		t.Fatalf("status %v (%s), folded %v", got.Status, got.Message, want.Status)
	}
	w := prediction(t, want, "pg")
	g := prediction(t, got, "pg")
	closeTo(t, "f* + b mean", g.Mean, w.Mean, 1e-6)
	closeTo(t, "f* + b var", g.Var, w.Var, 1e-6)
	closeTo(t, "f* + b prob", g.Prob, w.Prob, 1e-6)
	f := prediction(t, got, "pf")
	closeTo(t, "predictive(f) prob", f.Prob, w.Prob, 1e-6)
	for i := range f.Var {
		if !(f.Var[i] > 0) || f.Mean[i] == g.Mean[i] {
			t.Errorf("predictive(f)[%d] = %g ± %g reads the bias (f* + b: %g)", i, f.Mean[i], f.Var[i], g.Mean[i])
		}
	}
}

// TestFGPredictRegressionClosedForm: GP regression with a latent bias,
// z_i ~ N(f_i + b, 0.3): ep and exact predictions of f* and f* + b equal
// the Gaussian conditional of (f, b, f*, f* + b) given z, formed here
// (testkit.GaussCondition, with the joint prior covariance written out) to 1e-9.
func TestFGPredictRegressionClosedForm(t *testing.T) {
	src := gpBiasData + `
latent f: real[10] ~ gp(se(1, 2), X)
latent b: real ~ normal(0, sb2)
for i in 0..10 { z[i] ~ normal(f[i] + b, 0.3) }
predict pf = predictive(f, Xs)
predict pg = predictive(f + b, Xs)
infer ep
infer exact
`
	x := []float64{-3.0, -2.37, -1.74, -1.11, -0.47, 0.16, 0.79, 1.42, 2.05, 2.68}
	xs := []float64{-2.5, 0, 1.3, 4}
	z := []float64{0.9, 0.4, -0.2, 0.8, 1.1, 0.3, 1.4, 1.9, 1.2, 0.1}
	const n, m, sb2 = 10, 4, 1.5
	k := func(a, b float64) float64 { return 2 * math.Exp(-0.5*(a-b)*(a-b)) }
	// z = (f, b, f*, f* + b): element kinds and inputs.
	d := n + 1 + 2*m
	in := func(i int) (float64, bool, bool) { // input, has f part, has b part
		switch {
		case i < n:
			return x[i], true, false
		case i == n:
			return 0, false, true
		case i < n+1+m:
			return xs[i-n-1], true, false
		}
		return xs[i-n-1-m], true, true
	}
	P := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		xi, fi, bi := in(i)
		for j := i; j < d; j++ {
			xj, fj, bj := in(j)
			v := 0.0
			if fi && fj {
				v += k(xi, xj)
			}
			if bi && bj {
				v += sb2
			}
			P.SetSym(i, j, v)
		}
	}
	H := mat.NewDense(n, d, nil)
	R := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		H.Set(i, i, 1)
		H.Set(i, n, 1)
		R.SetSym(i, i, 0.3)
	}
	mean, vr, _ := testkit.GaussCondition(make([]float64, d), P, H, R, z)
	for _, r := range runSrc(t, src) {
		if !r.Status.HasNumbers() {
			t.Fatalf("%s: %v (%s)", r.Label, r.Status, r.Message)
		}
		f, g := prediction(t, r, "pf"), prediction(t, r, "pg")
		closeTo(t, r.Label+" f* mean", f.Mean, mean[n+1:n+1+m], 1e-9)
		closeTo(t, r.Label+" f* var", f.Var, vr[n+1:n+1+m], 1e-9)
		closeTo(t, r.Label+" f* + b mean", g.Mean, mean[n+1+m:], 1e-9)
		closeTo(t, r.Label+" f* + b var", g.Var, vr[n+1+m:], 1e-9)
	}
}

// TestFGPredictGold: the gold standards predict through the joint
// reduction. A two-point GP with a latent bias (three elements) under
// exact quadrature equals the two-point GP with the bias folded into the
// kernel (two elements, a different integral) to 1e-5; mcmc is within 4
// Monte Carlo standard errors of it (from the smallest effective sample
// size of the run: sd/√ESS for a mean, var·√(2/ESS) for a variance,
// √(p(1 − p)/ESS) for a probability).
func TestFGPredictGold(t *testing.T) {
	head := `
data X: real[2, 1] = [[-0.5], [0.7]]
data y: spin[2] = [1, -1]
data Xs: real[3, 1] = [[-1], [0.1], [2]]
`
	bias := head + `
latent f: real[2] ~ gp(se(1, 2), X)
latent b: real ~ normal(0, 1.5)
for i in 0..2 { y[i] ~ probit(f[i] + b) }
predict p = predictive(f + b, Xs)
predict pf = predictive(f, Xs)
infer exact
infer mcmc { samples = 4000, burnin = 500, chains = 2 }
`
	folded := head + `
latent g: real[2] ~ gp(se(1, 2) + bias(1.5), X)
for i in 0..2 { y[i] ~ probit(g[i]) }
predict p = predictive(g, Xs)
infer exact
`
	rs := runSrc(t, bias)
	want := prediction(t, runSrc(t, folded)["exact"], "p")
	for _, label := range []string{"exact", "mcmc"} {
		r := rs[label]
		if r == nil || r.Status != infer.Done {
			t.Fatalf("%s: %v", label, r)
		}
		tm, tv, tp := make([]float64, 3), make([]float64, 3), make([]float64, 3)
		ess := math.Inf(1)
		for _, v := range r.Variables.All() {
			for _, e := range v.ESS {
				ess = math.Min(ess, e)
			}
		}
		for i := range tm {
			tm[i], tv[i], tp[i] = 1e-5, 1e-5, 1e-5
			if label == "mcmc" {
				tm[i] = 4 * math.Sqrt(want.Var[i]/ess)
				tv[i] = 4 * want.Var[i] * math.Sqrt(2/ess)
				tp[i] = 4 * math.Sqrt(want.Prob[i]*(1-want.Prob[i])/ess)
			}
		}
		p, pf := prediction(t, r, "p"), prediction(t, r, "pf")
		for i := range tm {
			if !(math.Abs(p.Mean[i]-want.Mean[i]) <= tm[i]) || !(math.Abs(p.Var[i]-want.Var[i]) <= tv[i]) ||
				!(math.Abs(p.Prob[i]-want.Prob[i]) <= tp[i]) || !(math.Abs(pf.Prob[i]-want.Prob[i]) <= tp[i]) {
				t.Errorf("%s x*[%d]: f* + b %.8g ± %.8g, p %.8g (predictive(f): p %.8g); folded exact %.8g ± %.8g, p %.8g (tol %.3g, %.3g, %.3g)",
					label, i, p.Mean[i], p.Var[i], p.Prob[i], pf.Prob[i], want.Mean[i], want.Var[i], want.Prob[i], tm[i], tv[i], tp[i])
			}
		}
	}
}

// TestFGPredictInterceptProjection: probit regression with an intercept
// latent, y_i ~ probit(x_iᵀw + b), predicts x*ᵀw (Xnew rows are
// projections of w) and p(y* = +1) with the sites' argument x*ᵀw + b.
// The reference folds b into w as a last coordinate with its prior
// (a Gaussian block, infer/ep): predictive(v, [x*, 0]) gives x*ᵀw and the
// rows [x*, 1] give p(y* = +1); both equal to 1e-6. Under family =
// factorized the prediction is the product of the beliefs: Σ x_k m_k and
// Σ x_k² v_k from the result's own marginals.
func TestFGPredictInterceptProjection(t *testing.T) {
	head := `
data X: real[8, 2] = [[1, 0.5], [-0.3, 1], [0.7, -1.2], [2, 0.1], [-1, -0.4], [0.2, 0.3], [-1.5, 0.8], [0.4, -0.6]]
data y: spin[8] = [1, 1, -1, 1, -1, 1, -1, 1]
`
	src := head + `
data Xs: real[3, 2] = [[0.5, 0.5], [-1, 2], [1.5, -1]]
latent w: real[2] ~ normal(0, 2)
latent b: real ~ normal(0, 3)
for i in 0..8 { y[i] ~ probit(dot(X[i], w) + b) }
predict p = predictive(w, Xs)
infer ep { tol = 1e-11, max_iter = 1000 }
infer ep as fact { family = factorized, tol = 1e-11, max_iter = 1000 }
`
	folded := head + `
data X1: real[8, 3] = [[1, 0.5, 1], [-0.3, 1, 1], [0.7, -1.2, 1], [2, 0.1, 1], [-1, -0.4, 1], [0.2, 0.3, 1], [-1.5, 0.8, 1], [0.4, -0.6, 1]]
data Xw: real[3, 3] = [[0.5, 0.5, 0], [-1, 2, 0], [1.5, -1, 0]]
data Xb: real[3, 3] = [[0.5, 0.5, 1], [-1, 2, 1], [1.5, -1, 1]]
latent v: real[3] ~ mvnormal([0, 0, 0], [[2, 0, 0], [0, 2, 0], [0, 0, 3]])
for i in 0..8 { y[i] ~ probit(dot(X1[i], v)) }
predict pw = predictive(v, Xw)
predict pb = predictive(v, Xb)
infer ep { tol = 1e-11, max_iter = 1000 }
`
	rs := runSrc(t, src)
	ref := runSrc(t, folded)["ep"]
	got, pw, pb := prediction(t, rs["ep"], "p"), prediction(t, ref, "pw"), prediction(t, ref, "pb")
	closeTo(t, "x*ᵀw mean", got.Mean, pw.Mean, 1e-6)
	closeTo(t, "x*ᵀw var", got.Var, pw.Var, 1e-6)
	closeTo(t, "p(y* = +1)", got.Prob, pb.Prob, 1e-6)
	fr := rs["fact"]
	if fr.Status != infer.Converged {
		t.Fatalf("factorized: %v (%s)", fr.Status, fr.Message)
	}
	xs := [][2]float64{{0.5, 0.5}, {-1, 2}, {1.5, -1}}
	w := fr.Variables.At(0)
	fm, fv := make([]float64, 3), make([]float64, 3)
	for i, x := range xs {
		fm[i] = x[0]*w.Mean[0] + x[1]*w.Mean[1]
		fv[i] = x[0]*x[0]*w.Var[0] + x[1]*x[1]*w.Var[1]
	}
	fp := prediction(t, fr, "p")
	closeTo(t, "factorized mean", fp.Mean, fm, 1e-12)
	closeTo(t, "factorized var", fp.Var, fv, 1e-12)
}
