package run

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/learn"
	"github.com/fg-infer/fg/internal/benchdata"
)

// noisyFITCModel writes bench/peers' 2-D probit data (benchdata.ProbitGPData,
// separable) with 10% of the labels flipped and m inducing inputs (every
// n/m-th input), and compiles a FITC probit model learning log_ell and
// log_sf from bench/peers' start (ℓ = 0.7, σf² = 2).
func noisyFITCModel(t *testing.T, n, m int) *compile.Model {
	t.Helper()
	dir := t.TempDir()
	X, y := benchdata.ProbitGPData(n, uint64(n))
	rng := rand.New(rand.NewPCG(3, 5))
	var tr, xu strings.Builder
	tr.WriteString("x1,x2,label\n")
	for i := range n {
		if rng.Float64() < 0.1 {
			y[i] = -y[i]
		}
		fmt.Fprintf(&tr, "%.17g,%.17g,%g\n", X.At(i, 0), X.At(i, 1), y[i])
	}
	xu.WriteString("x1,x2\n")
	for k := range m {
		fmt.Fprintf(&xu, "%.17g,%.17g\n", X.At(k*n/m, 0), X.At(k*n/m, 1))
	}
	for name, s := range map[string]string{"train.csv": tr.String(), "xu.csv": xu.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := `
param log_ell = -0.35667494393873245
param log_sf = 0.34657359027997264
data X = csv("train.csv", exclude = ["label"])
data y: spin[len(X)] = csv("train.csv", column = "label")
data Z = csv("xu.csv")
latent f: real[len(X)] ~ gp(se(exp(log_ell), exp(2 * log_sf)), X, inducing = Z)
for i in 0..len(X) {
  y[i] ~ probit(f[i])
}
infer ep
learn log_ell, log_sf
`
	mod, err := compile.CompileSource("noisy_fitc.fg", []byte(src), compile.Options{BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// TestLearnFITCStopsAtOptimum learns (log_ell, log_sf) of a FITC probit
// model with n = 10⁴ noisy labels and m = 100 inducing inputs, whose
// evidence is so sharp (curvature ≈ 10⁴) that the last steps under a fixed
// gradient threshold fall below the rounding noise of log Z_EP: learning
// must report converged within 16 evaluations (the optimum is reached at
// about the 12th; with the unscaled threshold the line search failed after
// 48), and the learned point must beat its four neighbours at ±1e-4 in
// each coordinate, evaluated independently (recompiled models, FITC EP to
// 1e-12 from flat sites).
func TestLearnFITCStopsAtOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 10⁴ FITC learning")
	}
	lb := testBuilder(t, noisyFITCModel(t, 10000, 100))
	res, err := learn.Optimize(context.Background(), lb.build, lb.params, learn.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Trace {
		t.Logf("eval %2d: x %.10v  log Z %.10f  grad %.3g  sweeps %d", e.N, e.X, e.LogZ, e.Grad, e.Sweeps)
	}
	if res.Status != infer.Converged || len(res.Trace) > 16 {
		t.Fatalf("status %v (%s) after %d evaluations, want converged within 16", res.Status, res.Message, len(res.Trace))
	}
	at := fitcEvidenceAt(t, lb, res.X)
	for k := range res.X {
		for _, h := range []float64{-1e-4, 1e-4} {
			x := append([]float64(nil), res.X...)
			x[k] += h
			if v := fitcEvidenceAt(t, lb, x); !(v < at) {
				t.Errorf("log Z_EP at %v is %.12f, above %.12f at the learned %v", x, v, at, res.X)
			}
		}
	}
}
