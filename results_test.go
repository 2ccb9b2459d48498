package fg_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	fg "github.com/fg-infer/fg"
)

func runFile(t *testing.T, path string) *fg.Results {
	t.Helper()
	m, err := fg.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// linregPosterior is the closed form of testdata/linreg.fg: prior
// w ~ N(0, s0 I), y = X w + ε with ε ~ N(0, σ² I), so
//
//	Σ = (I/s0 + XᵀX/σ²)⁻¹,  μ = Σ Xᵀy/σ²,  Z = N(y; 0, s0 X Xᵀ + σ² I),
//
// computed with a Cholesky factor (Σ column by column) and gonum's
// multivariate normal for the evidence.
func linregPosterior(t *testing.T) (mean, variance []float64, logZ float64) {
	X := mat.NewDense(4, 2, []float64{1, 0.5, -0.3, 1, 0.7, -1.2, 2, 0.1})
	y := mat.NewVecDense(4, []float64{0.9, 0.4, -0.8, 1.7})
	const s0, s2 = 2.0, 0.25
	var prec mat.SymDense
	prec.SymOuterK(1/s2, X.T())
	for i := 0; i < 2; i++ {
		prec.SetSym(i, i, prec.At(i, i)+1/s0)
	}
	var chol mat.Cholesky
	if !chol.Factorize(&prec) {
		t.Fatal("posterior precision not PD")
	}
	var xty, mu mat.VecDense
	xty.MulVec(X.T(), y)
	xty.ScaleVec(1/s2, &xty)
	if err := chol.SolveVecTo(&mu, &xty); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		e := mat.NewVecDense(2, nil)
		e.SetVec(i, 1)
		var col mat.VecDense
		if err := chol.SolveVecTo(&col, e); err != nil {
			t.Fatal(err)
		}
		mean, variance = append(mean, mu.AtVec(i)), append(variance, col.AtVec(i))
	}
	var cov mat.SymDense
	cov.SymOuterK(s0, X)
	for i := 0; i < 4; i++ {
		cov.SetSym(i, i, cov.At(i, i)+s2)
	}
	n, ok := distmv.NewNormal(make([]float64, 4), &cov, nil)
	if !ok {
		t.Fatal("evidence covariance not PD")
	}
	return mean, variance, n.LogProb(y.RawVector().Data)
}

// TestResultAccessorsClosedForm: Mean, Variance and LogZ of ep (exact for a
// Gaussian likelihood) and of exact quadrature against the closed form.
func TestResultAccessorsClosedForm(t *testing.T) {
	mean, variance, logZ := linregPosterior(t)
	res := runFile(t, "testdata/linreg.fg")
	for label, tol := range map[string]float64{"ep": 1e-9, "exact": 1e-5} {
		r := res.Get(label)
		if r == nil || !r.Status().OK() {
			t.Fatalf("%s: %v", label, r)
		}
		for i := range mean {
			m, err1 := r.Mean("w", i)
			v, err2 := r.Variance("w", i)
			if err1 != nil || err2 != nil || !(math.Abs(m-mean[i]) <= tol) || !(math.Abs(v-variance[i]) <= tol) {
				t.Errorf("%s: w[%d] = %g ± %g (%v, %v), closed form %g ± %g", label, i, m, v, err1, err2, mean[i], variance[i])
			}
		}
		if z, ok := r.LogZ(); !ok || !(math.Abs(z-logZ) <= tol) {
			t.Errorf("%s: log Z = %g (%v), closed form %g", label, z, ok, logZ)
		}
	}
	if r := res.Get("ep"); r.Status() != fg.StatusConverged || r.Method() != "ep" || r.Divergence() != "kl" {
		t.Errorf("ep: status %s method %s divergence %s", r.Status(), r.Method(), r.Divergence())
	}
	if r := res.Get("exact"); r.Status() != fg.StatusDone || r.Divergence() != "" {
		t.Errorf("exact: status %s divergence %q", r.Status(), r.Divergence())
	}
}

// TestResultProbEnumeration: Prob and LogZ of bp (exact on a tree) and of
// the junction tree against enumeration of the four states of two spins,
// p(x) ∝ exp(J x0 x1 + h0 x0 + h1 x1).
func TestResultProbEnumeration(t *testing.T) {
	const J, h0, h1 = 0.8, 0.5, -0.3
	var z, p0, p1 float64
	for _, x0 := range []float64{-1, 1} {
		for _, x1 := range []float64{-1, 1} {
			w := math.Exp(J*x0*x1 + h0*x0 + h1*x1)
			z += w
			if x0 > 0 {
				p0 += w
			}
			if x1 > 0 {
				p1 += w
			}
		}
	}
	want := []float64{p0 / z, p1 / z}
	res := runFile(t, "testdata/pair.fg")
	for _, label := range []string{"bp", "exact"} {
		r := res.Get(label)
		for i, w := range want {
			p, err := r.Prob("x", i, "+1")
			q, err2 := r.Prob("x", i, "-1")
			if err != nil || err2 != nil || !(math.Abs(p-w) <= 1e-12) || !(math.Abs(q-(1-w)) <= 1e-12) {
				t.Errorf("%s: P(x[%d] = +1) = %g, P(-1) = %g (%v, %v), enumeration %g", label, i, p, q, err, err2, w)
			}
		}
		if p, err := r.Prob("x", 0, "1"); err != nil || !(math.Abs(p-want[0]) <= 1e-12) {
			t.Errorf(`%s: state "1" = %g, %v`, label, p, err)
		}
		if lz, ok := r.LogZ(); !ok || !(math.Abs(lz-math.Log(z)) <= 1e-12) {
			t.Errorf("%s: log Z = %g, enumeration %g", label, lz, math.Log(z))
		}
	}
}

// TestResultAccessorErrors: a wrong name, kind, index or state is an error
// that says what exists.
func TestResultAccessorErrors(t *testing.T) {
	lin := runFile(t, "testdata/linreg.fg").Get("ep")
	pair := runFile(t, "testdata/pair.fg").Get("bp")
	_, e1 := lin.Mean("v", 0)
	_, e2 := lin.Mean("w", 2)
	_, e3 := lin.Prob("w", 0, "+1")
	_, e4 := pair.Mean("x", 0)
	_, e5 := pair.Prob("x", 0, "0")
	_, e6 := lin.Prediction("p", 0)
	for i, c := range []struct {
		err  error
		want string
	}{
		{e1, "no latent v (latents: w)"}, {e2, "w has 2 elements; index 2 out of range"},
		{e3, "w is continuous"}, {e4, "x is discrete"}, {e5, `"0" is not a state of x (states: -1, +1)`},
		{e6, "no prediction p"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%d: %v, want %q", i, c.err, c.want)
		}
	}
}

// TestGetUnknownLabel: Get of a label no infer line has is a failed result,
// not nil: every accessor answers with an error naming the labels that
// exist (it panicked on nil), and Lookup says the label is missing.
func TestGetUnknownLabel(t *testing.T) {
	res := runFile(t, "testdata/linreg.fg")
	r := res.Get("nope")
	if r == nil || r.Status() != fg.StatusFailed || r.Label() != "nope" {
		t.Fatalf("Get(nope) = %+v", r)
	}
	_, e1 := r.Mean("w", 0)
	_, e2 := r.Variance("w", 0)
	_, e3 := r.Prob("w", 0, "+1")
	_, e4 := r.Prediction("p", 0)
	_, e5 := r.Shape("w")
	for i, err := range []error{e1, e2, e3, e4, e5} {
		if err == nil || !strings.Contains(err.Error(), `no infer line labelled "nope" (labels: ep, exact`) && !strings.Contains(err.Error(), "no prediction p") {
			t.Errorf("%d: %v", i, err)
		}
	}
	if _, ok := r.LogZ(); ok || len(r.Variables()) != 0 || len(r.Warnings()) != 0 || r.Relaxation("x") != 0 {
		t.Errorf("the missing result carries numbers")
	}
	if _, ok := res.Lookup("nope"); ok {
		t.Error("Lookup(nope) found a result")
	}
	if x, ok := res.Lookup("ep"); !ok || x != res.Get("ep") {
		t.Error("Lookup(ep) and Get(ep) differ")
	}
}

// TestWarningsAndSucceeded: a degenerate setting replaced by its limit is a
// warning on the result (with the infer line's position), a method that
// fails makes Succeeded false (fg run's exit status 3) and keeps no
// posterior, and a stalled FF-EP run reports StatusStalled.
func TestWarningsAndSucceeded(t *testing.T) {
	m, err := fg.LoadBytes("w.fg", []byte(`
data y: real[2] = [0.3, -0.2]
latent w: real[2] ~ normal(0, 1)
for i in 0..2 { y[i] ~ normal(w[i], 0.5) }

infer ep as a { divergence = alpha(1e-20) }
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a := res.Get("a")
	if ws := a.Warnings(); len(ws) != 1 || ws[0].Pos != "w.fg:6:1" || !strings.Contains(ws[0].String(), "w.fg:6:1: warning: alpha(1e-20)") {
		t.Errorf("warnings %v", ws)
	}
	if !res.Succeeded() {
		t.Errorf("alpha limit: status %v (%s)", a.Status(), a.Message())
	}
	m, err = fg.LoadBytes("s.fg", []byte(`
latent c: real[50] ~ normal(0, 1)
for i in 0..49 { factor exp(-2 * (c[i + 1] - c[i])^2) }
factor exp(-(c[0] - 3)^2)
infer ep as gq { approx = gq, family = factorized }
latent v: real[4] ~ normal(0, 1)
factor exp(-sum(v^2))
infer exact
`))
	if err != nil {
		t.Fatal(err)
	}
	if res, err = m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := res.Get("gq").Status(); st != fg.StatusStalled {
		t.Errorf("gq: status %v, want stalled", st)
	}
	ex := res.Get("exact")
	if _, err := ex.Mean("v", 0); res.Succeeded() || ex.Status() != fg.StatusFailed || err == nil {
		t.Errorf("exact on d = 4: status %v, Succeeded %v, Mean error %v", ex.Status(), res.Succeeded(), err)
	}
}
