package run

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
)

// TestStreamWideDiagonalPrior streams a libsvm file with 40000 features
// (a dense covariance of the weights would take 12.8 GB, over the 2 GB
// budget): the iid normal prior stays two numbers shared by every weight
// (a compact latent: O(d) memory, the engine's) and ADF runs.
// The first example touches feature 40000 alone with label +1, so its
// weight's posterior is the probit tilted moments of N(0, 1) at the first
// site: mean φ(0)/(Φ(0)·√2) = 1/√π, variance 1 − φ(0)²/(Φ(0)²·2) = 1 − 1/π
// (closed form, to 1e-12); feature 3, which no example touches, keeps
// its prior.
func TestStreamWideDiagonalPrior(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "wide.svm"), []byte("1 40000:1\n-1 1:1 2:0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `
data X = libsvm("wide.svm")
data y = libsvm_labels("wide.svm")
latent w: real[cols(X)] ~ normal(0, 1)
for i in 0..len(y) {
  y[i] ~ probit(dot(X[i], w))
}
infer ep { passes = 1 }
`
	m, err := compile.CompileSource("wide.fg", []byte(src), compile.Options{BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if b := m.Blocks()[0]; b.N != 40000 || b.Prior.Cov != nil || !b.Prior.Shared || len(b.Prior.Var) != 1 {
		t.Fatalf("block of %d with a dense covariance %v, %d variances (shared %v)", b.N, b.Prior.Cov != nil, len(b.Prior.Var), b.Prior.Shared)
	}
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r.Status != infer.Done || r.Variables.Len() != 1 {
		t.Fatalf("status %v (%s)", r.Status, r.Message)
	}
	v := r.Variables.At(0)
	if m, s2 := v.Mean[39999], v.Var[39999]; math.Abs(m-1/math.Sqrt(math.Pi)) > 1e-12 || math.Abs(s2-(1-1/math.Pi)) > 1e-12 {
		t.Errorf("w[39999] = %.15g ± var %.15g, want 1/√π = %.15g, 1 − 1/π = %.15g", m, s2, 1/math.Sqrt(math.Pi), 1-1/math.Pi)
	}
	if v.Mean[2] != 0 || v.Var[2] != 1 {
		t.Errorf("w[2] = %g, var %g: want the prior", v.Mean[2], v.Var[2])
	}
}
