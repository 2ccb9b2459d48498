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
// weights v of the same data to 1e-12, for ADF and for 5 EP passes.
func TestLibSVMThroughAPI(t *testing.T) {
	m, err := fg.Load("examples/sparse_probit.fg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"adf", "ep5"} {
		r := res.Get(label)
		for i := range 20 {
			w, _ := r.Mean("w", i)
			v, _ := r.Mean("v", i)
			ww, _ := r.Variance("w", i)
			vv, _ := r.Variance("v", i)
			if math.Abs(w-v) > 1e-12 || math.Abs(ww-vv) > 1e-12 || math.IsNaN(w) {
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
