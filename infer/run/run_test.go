package run

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

func compileSrc(t *testing.T, src string) *compile.Model {
	t.Helper()
	m, err := compile.CompileSource("test.fg", []byte(src), compile.Options{})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return m
}

// TestRegressionEndToEnd: Bayesian linear regression compiled from source
// and run by every continuous method. EP is exact here; the reference is the
// closed form Σ = (I/s0 + XᵀX/σ²)⁻¹, μ = Σ Xᵀy/σ² and
// log Z = log N(y; 0, s0 X Xᵀ + σ² I), computed in the test.
func TestRegressionEndToEnd(t *testing.T) {
	src := `
data X: real[4, 2] = [[1, 0.5], [-0.3, 1], [0.7, -1.2], [2, 0.1]]
data y: real[4] = [0.9, 0.4, -0.8, 1.7]
latent w: real[2] ~ normal(0, 2)
for i in 0..4 { y[i] ~ normal(dot(X[i], w), 0.25) }
infer ep
infer ep as par { schedule = parallel }
infer exact
`
	m := compileSrc(t, src)
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	X := mat.NewDense(4, 2, []float64{1, 0.5, -0.3, 1, 0.7, -1.2, 2, 0.1})
	y := mat.NewVecDense(4, []float64{0.9, 0.4, -0.8, 1.7})
	mean, vr, logZ := linregClosedForm(X, y, 2, 0.25)
	tol := map[string]float64{"ep": 1e-9, "par": 1e-9, "exact": 1e-5}
	for _, r := range rs {
		if r.Status != infer.Converged && r.Status != infer.Done {
			t.Fatalf("%s: status %v (%s)", r.Label, r.Status, r.Message)
		}
		v := r.Variables.At(0)
		for i := range mean {
			if !(math.Abs(v.Mean[i]-mean[i]) <= tol[r.Label]) || !(math.Abs(v.Var[i]-vr[i]) <= tol[r.Label]) {
				t.Errorf("%s: w[%d] = %g ± %g, closed form %g ± %g", r.Label, i, v.Mean[i], v.Var[i], mean[i], vr[i])
			}
		}
		if !r.HasEvidence || !(math.Abs(r.LogEvidence-logZ) <= tol[r.Label]) {
			t.Errorf("%s: log Z = %g (has %v), closed form %g", r.Label, r.LogEvidence, r.HasEvidence, logZ)
		}
	}
	if rs[0].Errors == nil || rs[0].Errors.Reference != "exact" || rs[0].Errors.MeanMAE > 1e-5 {
		t.Errorf("error columns against exact: %+v", rs[0].Errors)
	}
}

func linregClosedForm(X *mat.Dense, y *mat.VecDense, s0, s2 float64) (mean, vr []float64, logZ float64) {
	n, d := X.Dims()
	var P mat.SymDense
	P.SymOuterK(1/s2, X.T())
	for i := 0; i < d; i++ {
		P.SetSym(i, i, P.At(i, i)+1/s0)
	}
	var ch mat.Cholesky
	ch.Factorize(&P)
	var S mat.SymDense
	ch.InverseTo(&S)
	var xty, mu mat.VecDense
	xty.MulVec(X.T(), y)
	xty.ScaleVec(1/s2, &xty)
	mu.MulVec(&S, &xty)
	var C mat.SymDense
	C.SymOuterK(s0, X)
	for i := 0; i < n; i++ {
		C.SetSym(i, i, C.At(i, i)+s2)
	}
	var cc mat.Cholesky
	cc.Factorize(&C)
	var a mat.VecDense
	cc.SolveVecTo(&a, y)
	logZ = -0.5*mat.Dot(y, &a) - 0.5*cc.LogDet() - float64(n)/2*math.Log(2*math.Pi)
	for i := 0; i < d; i++ {
		mean = append(mean, mu.AtVec(i))
		vr = append(vr, S.At(i, i))
	}
	return mean, vr, logZ
}

// TestIsingEndToEnd: a 3-spin chain compiled from source; BP is exact on a
// tree, so BP and the junction tree must equal brute-force enumeration of
// p(x) ∝ exp(Σ h_i x_i + Σ J x_i x_{i+1}).
func TestIsingEndToEnd(t *testing.T) {
	src := `
data h: real[3] = [0.3, -0.5, 0.8]
param J = 0.7
latent x: spin[3]
for i in 0..3 { factor field(x[i], h[i]) }
for i in 0..2 { factor ising(x[i], x[i + 1], J) }
infer bp
infer exact
`
	m := compileSrc(t, src)
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, J := []float64{0.3, -0.5, 0.8}, 0.7
	var Z float64
	pplus := make([]float64, 3)
	for s := 0; s < 8; s++ {
		x := [3]float64{}
		for i := range x {
			x[i] = float64(2*((s>>i)&1) - 1)
		}
		e := J * (x[0]*x[1] + x[1]*x[2])
		for i := range x {
			e += h[i] * x[i]
		}
		Z += math.Exp(e)
		for i := range x {
			if x[i] > 0 {
				pplus[i] += math.Exp(e)
			}
		}
	}
	for _, r := range rs {
		v := r.Variables.At(0)
		if v.Name != "x" || len(v.Probs) != 3 || v.States[1] != "+1" {
			t.Fatalf("%s: variable %+v", r.Label, v)
		}
		for i := range pplus {
			if !(math.Abs(v.Probs[i][1]-pplus[i]/Z) <= 1e-9) {
				t.Errorf("%s: p(x[%d] = +1) = %g, enumeration %g", r.Label, i, v.Probs[i][1], pplus[i]/Z)
			}
		}
		if !r.HasEvidence || !(math.Abs(r.LogEvidence-math.Log(Z)) <= 1e-9) {
			t.Errorf("%s: log Z = %g, enumeration %g", r.Label, r.LogEvidence, math.Log(Z))
		}
	}
}

// TestSelectLabels: unknown labels are an error naming the labels that exist.
func TestSelectLabels(t *testing.T) {
	m := compileSrc(t, "latent w: real ~ normal(0, 1)\ndata y = 1\ny ~ probit(w)\ninfer ep\ninfer exact\n")
	if _, err := Run(context.Background(), m, Options{Labels: []string{"nope"}}); err == nil {
		t.Fatal("no error for an unknown label")
	}
	rs, err := Run(context.Background(), m, Options{Labels: []string{"exact"}})
	if err != nil || len(rs) != 1 || rs[0].Label != "exact" {
		t.Fatalf("rs = %v, err = %v", rs, err)
	}
}

// TestSiteLogLikDerivatives checks every site's log-likelihood derivatives
// against central finite differences.
func TestSiteLogLikDerivatives(t *testing.T) {
	sites := []graph.Site{
		{Lik: factor.Probit{}, Y: 1}, {Lik: factor.Probit{}, Y: -1}, {Lik: factor.Logistic{}, Y: 1}, {Lik: factor.Logistic{}, Y: -1},
		{Lik: factor.Normal{Var: 0.5}, Y: 0.3},
	}
	const h = 1e-5
	for _, s := range sites {
		for _, f := range []float64{-3, -0.7, 0.2, 1.5, 6} {
			v, g, hh := siteLogLik(s, f)
			vp, gp, _ := siteLogLik(s, f+h)
			vm, gm, _ := siteLogLik(s, f-h)
			if !(math.Abs((vp-vm)/(2*h)-g) <= 1e-6*math.Max(1, math.Abs(g))) || !(math.Abs((gp-gm)/(2*h)-hh) <= 1e-6*math.Max(1, math.Abs(hh))) {
				t.Errorf("%s y=%g f=%g: v=%g g=%g h=%g; differences give g=%g h=%g", s.Lik.Name(), s.Y, f, v, g, hh, (vp-vm)/(2*h), (gp-gm)/(2*h))
			}
		}
	}
	// Step: piecewise constant, with Θ(0) = ½ at the kink.
	st := graph.Site{Lik: factor.Step{Eps: 0.1}, Y: 1}
	if v, _, _ := siteLogLik(st, 1); !(math.Abs(v-math.Log(0.9)) <= 1e-15) {
		t.Errorf("step correct side: %g", v)
	}
	if v, _, _ := siteLogLik(st, -1); !(math.Abs(v-math.Log(0.1)) <= 1e-15) {
		t.Errorf("step wrong side: %g", v)
	}
}

// TestSiteValue: the gold standards' value-only site log-likelihood equals
// siteLogLik's value for every site kind, on both sides of a step's kink.
func TestSiteValue(t *testing.T) {
	sites := []graph.Site{
		{Lik: factor.Probit{}, Y: 1}, {Lik: factor.Probit{}, Y: -1}, {Lik: factor.Logistic{}, Y: -1},
		{Lik: factor.Normal{Var: 0.5}, Y: 0.3},
		{Lik: factor.Step{Eps: 0.1}, Y: -1},
	}
	for _, s := range sites {
		v := siteValue(s)
		for _, f := range []float64{-3, -0.7, 0, 0.2, 6} {
			if want, _, _ := siteLogLik(s, f); v(f) != want {
				t.Errorf("%s y=%g f=%g: siteValue %g, siteLogLik %g", s.Lik.Name(), s.Y, f, v(f), want)
			}
		}
	}
}

// TestGoldPredictions: predictions of exact and mcmc on a linear probit
// model. The reference is a direct 2-D Gauss–Hermite integral of
// Φ(x*ᵀw) N(w; 0, I) Π Φ(y_i x_iᵀw) / Z, computed here independently.
func TestGoldPredictions(t *testing.T) {
	src := `
data X: real[3, 2] = [[1, 0.5], [-0.3, 1], [0.7, -1.2]]
data y: spin[3] = [1, -1, 1]
data Xt: real[2, 2] = [[1, 1], [-0.5, 0.2]]
latent w: real[2] ~ normal(0, 1)
for i in 0..3 { y[i] ~ probit(dot(X[i], w)) }
predict pt = predictive(w, Xt)
infer exact
infer mcmc { samples = 4000, chains = 2 }
`
	m := compileSrc(t, src)
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := probitPredictiveGH(t, [][]float64{{1, 0.5}, {-0.3, 1}, {0.7, -1.2}}, []float64{1, -1, 1}, [][]float64{{1, 1}, {-0.5, 0.2}})
	for _, r := range rs {
		if len(r.Predictions) != 1 {
			t.Fatalf("%s: %d predictions (%s)", r.Label, len(r.Predictions), r.Message)
		}
		tol := 1e-6
		if r.Method == "mcmc" {
			tol = 0.02 // Monte Carlo: ~4 standard errors at 8000 draws
		}
		for i, p := range r.Predictions[0].Prob {
			if !(math.Abs(p-want[i]) <= tol) {
				t.Errorf("%s: p(y=+1 | x%d) = %g, quadrature %g", r.Label, i, p, want[i])
			}
		}
	}
}

func probitPredictiveGH(t *testing.T, X [][]float64, y []float64, Xt [][]float64) []float64 {
	t.Helper()
	const n = 80
	xs, ws := make([]float64, n), make([]float64, n)
	ghNodes(xs, ws)
	Z := 0.0
	num := make([]float64, len(Xt))
	for a := range xs {
		for b := range xs {
			w := []float64{math.Sqrt2 * xs[a], math.Sqrt2 * xs[b]}
			lik := ws[a] * ws[b] / math.Pi
			for i := range X {
				lik *= phi(y[i] * (X[i][0]*w[0] + X[i][1]*w[1]))
			}
			Z += lik
			for k := range Xt {
				num[k] += lik * phi(Xt[k][0]*w[0]+Xt[k][1]*w[1])
			}
		}
	}
	for k := range num {
		num[k] /= Z
	}
	return num
}

func phi(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// TestGoldPredictionNotFinite: a predict whose expected count overflows at
// one input (E[exp(x*·w)] at x* = (1, 2000)) leaves exact and mcmc done,
// with their posterior and the other inputs' predictions equal to those of
// the same model without that input (1e-9 relative: the same quadrature
// and the same draws), that element not finite (null/— when presented), and a
// warning at the predict statement; ep does the same.
func TestGoldPredictionNotFinite(t *testing.T) {
	src := func(xnew string) string {
		return `
data X: real[4, 2] = [[1, -1], [1, 0], [1, 0.5], [1, 1.5]]
data y: int[4] = [0, 1, 2, 4]
latent w: real[2] ~ normal(0, 1)
y ~ poisson_log(X @ w)
predict rate = predictive(w, ` + xnew + `)
infer ep
infer exact
infer mcmc { samples = 2000, seed = 3 }
`
	}
	run := func(s string) []*infer.Result {
		rs, err := Run(context.Background(), compileSrc(t, s), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	far, near := run(src("[[1, 0], [1, 1], [1, 2000]]")), run(src("[[1, 0], [1, 1]]"))
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for k, r := range far {
		ref := near[k]
		if !r.Status.Succeeded() || r.Variables.Len() != 1 || len(r.Predictions) != 1 {
			t.Fatalf("%s: status %v (%s), %d variables, %d predictions", r.Label, r.Status, r.Message, r.Variables.Len(), len(r.Predictions))
		}
		for i, m := range r.Variables.At(0).Mean {
			if !close(m, ref.Variables.At(0).Mean[i]) || !close(r.Variables.At(0).Var[i], ref.Variables.At(0).Var[i]) {
				t.Errorf("%s: w[%d] = %g ± %g, without the far input %g ± %g", r.Label, i, m, r.Variables.At(0).Var[i], ref.Variables.At(0).Mean[i], ref.Variables.At(0).Var[i])
			}
		}
		got, want := r.Predictions[0].MeanY, ref.Predictions[0].MeanY
		for i := range want {
			if !close(got[i], want[i]) {
				t.Errorf("%s: rate[%d] = %g, without the far input %g", r.Label, i, got[i], want[i])
			}
		}
		if !math.IsNaN(got[2]) && !math.IsInf(got[2], 0) {
			t.Errorf("%s: rate[2] = %g, want not finite (exp overflows)", r.Label, got[2])
		}
		if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].Message, "rate[2] not finite") || r.Warnings[0].Pos != "test.fg:6:1" {
			t.Errorf("%s: warnings %v", r.Label, r.Warnings)
		}
	}
}
