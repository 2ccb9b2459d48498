package fg_test

import (
	"context"
	"math"
	"os"
	"testing"
	"testing/fstest"

	"github.com/fg-infer/fg"
)

// TestLibSVMThroughAPI runs examples/sparse_probit.fg through the public
// API: the streamed weights w equal the in-memory fully factorised EP
// weights v of the same data to 1e-12, for ADF and for EP to convergence.
func TestLibSVMThroughAPI(t *testing.T) {
	m, err := fg.Load("examples/sparse_probit.fg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"adf", "ep"} {
		r := res.Get(label)
		for i := range 20 {
			w, _ := r.Mean("w", i)
			v, _ := r.Mean("v", i)
			ww, _ := r.Variance("w", i)
			vv, _ := r.Variance("v", i)
			if !(math.Abs(w-v) <= 1e-12) || !(math.Abs(ww-vv) <= 1e-12) || math.IsNaN(w) {
				t.Errorf("%s: w[%d] = %g ± %g, in memory %g ± %g", label, i, w, ww, v, vv)
			}
		}
	}
}

// TestLibSVMFromFS: libsvm paths resolve inside an fs.FS model.
func TestLibSVMFromFS(t *testing.T) {
	svm, err := os.ReadFile("data/sparse/sparse_train.svm")
	if err != nil {
		t.Fatal(err)
	}
	src := `model m
data X = libsvm("d/train.svm")
data y = libsvm_labels("d/train.svm")
latent w: real[cols(X)] ~ normal(0, 1)
for i in 0..len(y) {
  y[i] ~ step(dot(X[i], w), 0.1)
}
infer ep { passes = 1 }
`
	fsys := fstest.MapFS{"m.fg": {Data: []byte(src)}, "d/train.svm": {Data: svm}}
	m, err := fg.LoadFS(fsys, "m.fg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := res.Get("ep")
	if r.Status() != fg.StatusDone {
		t.Fatalf("status %v", r.Status())
	}
	if v, err := r.Variance("w", 3); err != nil || !(v > 0 && v < 1) {
		t.Errorf("var(w[3]) = %g, %v: the data should shrink the prior variance", v, err)
	}
}

// TestLibSVMLogisticOneExample: one logistic example, x = (2, −1), y = +1,
// prior N(0, I): ADF's posterior marginals equal the exact marginals of the
// tilted distribution, computed here by the trapezoid rule on t = xᵀw
// (w | t is Gaussian: E w = (x/v_t) E t, Var w = 1 − x²/v_t + (x/v_t)² Var t
// with v_t = |x|² = 5). Tolerance 1e-7 (Gauss–Hermite with 32 nodes).
func TestLibSVMLogisticOneExample(t *testing.T) {
	src := `model m
data X = libsvm("one.svm")
data y = libsvm_labels("one.svm")
latent w: real[cols(X)] ~ normal(0, 1)
for i in 0..len(y) {
  y[i] ~ logistic(dot(X[i], w))
}
infer ep as gh32 { passes = 1 }
infer ep as gh200 { passes = 1, approx = gh(n = 200) }
`
	m, err := fg.LoadFS(fstest.MapFS{"m.fg": {Data: []byte(src)}, "one.svm": {Data: []byte("1 1:2 2:-1\n")}}, "m.fg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const vt, n = 5.0, 200_000
	var z, s1, s2 float64
	for k := range n + 1 {
		x := -40 + 80*float64(k)/n
		f := math.Exp(-x*x/(2*vt)) / (1 + math.Exp(-x))
		if k == 0 || k == n {
			f /= 2
		}
		z, s1, s2 = z+f, s1+f*x, s2+f*x*x
	}
	et, vart := s1/z, s2/z-(s1/z)*(s1/z)
	for _, c := range []struct {
		label string
		tol   float64
	}{{"gh32", 1e-5}, {"gh200", 1e-9}} {
		for j, x := range []float64{2, -1} {
			mean, _ := res.Get(c.label).Mean("w", j)
			v, _ := res.Get(c.label).Variance("w", j)
			wm, wv := x/vt*et, 1-x*x/vt+(x/vt)*(x/vt)*vart
			if !(math.Abs(mean-wm) <= c.tol) || !(math.Abs(v-wv) <= c.tol) {
				t.Errorf("%s: w[%d] = %.10g ± %.10g, quadrature %.10g ± %.10g", c.label, j, mean, v, wm, wv)
			}
		}
	}
}
