package factor_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	fg "github.com/fg-infer/fg"
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

// runModel loads a model through the public Go API and runs its infer lines.
func runModel(t *testing.T, src string) []*fg.Result {
	t.Helper()
	m, err := fg.LoadBytes("m.fg", []byte(src))
	if err != nil {
		t.Fatalf("load: %v\n%s", err, src)
	}
	rs, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs.All() {
		if !r.Status().OK() {
			t.Fatalf("%s: %v (%s)", r.Label(), r.Status(), r.Message())
		}
	}
	return rs.All()
}

// sameResults compares two runs of the same infer lines: every marginal
// mean and variance, the log evidence and every class probability.
func sameResults(t *testing.T, what string, got, want []*fg.Result, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d", what, len(got), len(want))
	}
	for k, g := range got {
		w := want[k]
		eq := func(name string, x, y float64, errs ...error) {
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("%s %s: %s: %v", what, g.Label(), name, err)
			}
			if !scalar.EqualWithinAbsOrRel(x, y, tol, tol) {
				t.Errorf("%s %s: %s = %.17g, logistic on spins %.17g (tolerance %g)", what, g.Label(), name, x, y, tol)
			}
		}
		gz, _ := g.LogZ()
		wz, _ := w.LogZ()
		eq("log Z", gz, wz)
		for _, name := range g.Variables() {
			shape, err := g.Shape(name)
			n := 1
			for _, d := range shape {
				n *= d
			}
			for e := range n {
				gm, err1 := g.Mean(name, e)
				wm, err2 := w.Mean(name, e)
				eq(fmt.Sprintf("%s mean[%d]", name, e), gm, wm, err, err1, err2)
				gv, err1 := g.Variance(name, e)
				wv, err2 := w.Variance(name, e)
				eq(fmt.Sprintf("%s var[%d]", name, e), gv, wv, err1, err2)
			}
		}
		for e := range predictions {
			if _, err := g.Prediction("p", 0); err != nil {
				break // the model has no predict line
			}
			gp, err1 := g.Prediction("p", e)
			wp, err2 := w.Prediction("p", e)
			eq(fmt.Sprintf("p(y = 1)[%d]", e), gp, wp, err1, err2)
		}
	}
}

// predictions is the number of points of the block model's predict line.
const predictions = 2

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

// gpLogitSrc is a GP classifier on 0/1 labels whose kernel length-scale
// ell is a param.
const gpLogitSrc = `model gp
param ell = 1
data X: real[8, 1] = [[-2], [-1.4], [-0.8], [-0.3], [0.2], [0.9], [1.5], [2.1]]
data y: int[8] = [0, 0, 1, 0, 1, 1, 0, 1]
latent f: real[8] ~ gp(se(ell, 2), X)
y ~ bernoulli_logit(f)
`

// TestBernoulliLogitLearn: `learn ell` (evidence maximisation with
// bernoulli_logit's quadrature sites) lands on the maximiser of the EP
// evidence of runs at fixed ell: the vertex of the parabola through
// log Z_EP at log ell − h, log ell, log ell + h (h = 0.01) is within 1e-4
// of the learned log ell, and the parabola is concave.
func TestBernoulliLogitLearn(t *testing.T) {
	ell, ok := runModel(t, gpLogitSrc+"learn ell\ninfer ep\n")[0].Learned("ell")
	if !ok {
		t.Fatal("no learned ell")
	}
	logZ := func(u float64) float64 {
		m, err := fg.LoadBytes("gp.fg", []byte(gpLogitSrc+"infer ep\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Set("ell", strconv.FormatFloat(math.Exp(u), 'g', -1, 64)); err != nil {
			t.Fatal(err)
		}
		rs, err := m.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		lz, ok := rs.All()[0].LogZ()
		if !ok || !rs.All()[0].Status().OK() {
			t.Fatalf("ell = %g: %s (%s)", math.Exp(u), rs.All()[0].Status(), rs.All()[0].Message())
		}
		return lz
	}
	const h = 0.01
	u := math.Log(ell)
	zm, z0, zp := logZ(u-h), logZ(u), logZ(u+h)
	curv := zm - 2*z0 + zp
	vertex := u + h*(zm-zp)/(2*curv)
	if !(curv < 0) || !(math.Abs(vertex-u) <= 1e-4) {
		t.Errorf("learned ell %.8g (log %.8g); the evidence's parabola peaks at log ell %.8g (second difference %g)", ell, u, vertex, curv)
	}
}
