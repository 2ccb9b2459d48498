package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/stdlib/ad"
	"github.com/fg-infer/fg/stdlib/loss"
)

// compileBoth compiles a model with and without the loss.Batch fast path.
func compileBoth(t *testing.T, compile func() (*Model, error)) (fast, generic *Model) {
	t.Helper()
	var err error
	if fast, err = compile(); err != nil {
		t.Fatal(err)
	}
	lossFastPath = false
	defer func() { lossFastPath = true }()
	if generic, err = compile(); err != nil {
		t.Fatal(err)
	}
	return fast, generic
}

// sameBatches checks that every batch factor of fast is a *loss.Batch, every
// one of generic an ad.Potential, and that LogF, Derivs (gradient and
// diagonal Hessian) and LogFAxes agree to 1e-12 (relative to max(1, |v|))
// at random points; the ad version is the independent computation.
func sameBatches(t *testing.T, fast, generic *Model) {
	t.Helper()
	fb, gb := fast.Blocks()[0].Batches, generic.Blocks()[0].Batches
	if len(fb) == 0 || len(fb) != len(gb) {
		t.Fatalf("%d fast and %d generic batch factors", len(fb), len(gb))
	}
	d := fast.Blocks()[0].N
	rng := rand.New(rand.NewPCG(1, 2))
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	for i := range fb {
		bf, ok := fb[i].F.(*loss.Batch)
		if !ok {
			t.Fatalf("batch %d: fast path not taken (%T)", i, fb[i].F)
		}
		if _, ok := gb[i].F.(ad.Potential); !ok {
			t.Fatalf("batch %d: generic path is %T", i, gb[i].F)
		}
		for trial := 0; trial < 5; trial++ {
			w := make([]float64, d)
			for j := range w {
				w[j] = 3 * rng.NormFloat64()
			}
			g1, h1, g2, h2 := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
			v1, v2 := bf.Derivs(w, g1, h1), gb[i].F.Derivs(w, g2, h2)
			if !close(v1, v2) || !close(bf.LogF(w), gb[i].F.LogF(w)) {
				t.Fatalf("batch %d: log f %v (batch) vs %v (ad)", i, v1, v2)
			}
			for j := range w {
				if !close(g1[j], g2[j]) || !close(h1[j], h2[j]) {
					t.Fatalf("batch %d coord %d: grad %v vs %v, hdiag %v vs %v", i, j, g1[j], g2[j], h1[j], h2[j])
				}
			}
			step := make([]float64, d)
			for j := range step {
				step[j] = 0.1 + rng.Float64()
			}
			lp, lm := make([]float64, d), make([]float64, d)
			bf.LogFAxes(w, step, lp, lm)
			for j := range w {
				w[j] += step[j]
				p := gb[i].F.LogF(w)
				w[j] -= 2 * step[j]
				m := gb[i].F.LogF(w)
				w[j] += step[j]
				if !close(lp[j], p) || !close(lm[j], m) {
					t.Fatalf("batch %d axis %d: %v %v vs ad %v %v", i, j, lp[j], lm[j], p, m)
				}
			}
		}
	}
}

// TestLossBatchHingeExample: examples/hinge_batches.fg compiles to loss.Batch
// factors identical (1e-12) to the generic ad potentials.
func TestLossBatchHingeExample(t *testing.T) {
	fast, generic := compileBoth(t, func() (*Model, error) {
		return CompileFile("../examples/hinge_batches.fg", Options{})
	})
	sameBatches(t, fast, generic)
}

const lossBatchData = `
data X: real[5, 3] = [[1, 0.5, -1], [0.2, -1, 2], [-1, 1, 0.3], [0.5, 0.5, 0.5], [2, -0.3, 0.1]]
data y: spin[5] = [1, -1, -1, 1, -1]
param beta = 0.7
latent w: real[3] ~ normal(0, 25)
`

// batchModel compiles lossBatchData with one factor exp(logf) per batch of 2.
func batchModel(logf string) (*Model, error) {
	src := lossBatchData + "for b in batches(5, 2) {\n  factor exp(" + logf + ")\n}\n"
	return CompileSource("t.fg", []byte(src), Options{})
}

// TestLossBatchShapes: every recognised spelling (with and without beta,
// both margin orders, parentheses, each loss, quasi01's eps positional or
// named) takes the fast path with the same values as the generic path.
func TestLossBatchShapes(t *testing.T) {
	for _, f := range []string{
		"-beta * sum(hinge(y[b] * (X[b] @ w)))",
		"-sum(hinge(y[b] * (X[b] @ w)))",
		"-beta * sum(logistic_loss((X[b] @ w) * y[b]))",
		"sum(logistic_loss(y[b] * (X[b] @ w))) * -beta",
		"(-2.5) * (sum(quasi01(y[b] * (X[b] @ w), 0.3)))",
		"-beta * sum(quasi01(y[b] * (X[b] @ w), eps = 2))",
		"-sum(quasi01((X[b] @ w) * y[b]))",
		"-beta * sum(hinge(y * (X @ w)))",
	} {
		t.Run(f, func(t *testing.T) {
			fast, generic := compileBoth(t, func() (*Model, error) { return batchModel(f) })
			sameBatches(t, fast, generic)
		})
	}
}

// TestLossBatchOtherShapes: anything else keeps the generic ad potential.
func TestLossBatchOtherShapes(t *testing.T) {
	for _, f := range []string{
		"-beta * sum(hinge(y[b] * (X[b] @ w))) - 0.1 * sum(w * w)",
		"-beta * sum(hinge(2 * y[b] * (X[b] @ w)))",
		"-beta * sum(hinge(y[b] * (X[b] @ w) + 1))",
		"beta * sum(hinge(y[b] * (X[b] @ w)))",
		"-beta * sum(hinge(y[b] * (X[b][:, 0:2] @ w[0:2])))",
		"-beta * sum(exp(y[b] * (X[b] @ w)))",
		"-w[0] * sum(hinge(y[b] * (X[b] @ w)))",
	} {
		t.Run(f, func(t *testing.T) {
			m, err := batchModel(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, bf := range m.Blocks()[0].Batches {
				if _, ok := bf.F.(ad.Potential); !ok {
					t.Errorf("%s: %T, want the generic ad.Potential", f, bf.F)
				}
			}
		})
	}
}

// BenchmarkHingeBatchAxes measures the 2d+1 log-potential evaluations of
// one GQ/VQ update of the first hinge_batches.fg factor (d = 10, s = 10):
// loss.Batch.LogFAxes (fast) against 2d+1 ad.Potential.LogF calls (generic).
func BenchmarkHingeBatchAxes(b *testing.B) {
	for _, fast := range []bool{true, false} {
		lossFastPath = fast
		m, err := CompileFile("../examples/hinge_batches.fg", Options{})
		lossFastPath = true
		if err != nil {
			b.Fatal(err)
		}
		f := m.Blocks()[0].Batches[0].F
		d := m.Blocks()[0].N
		w, step, lp, lm := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		for j := range w {
			w[j], step[j] = 0.1*float64(j), 0.5
		}
		name := map[bool]string{true: "batch", false: "ad"}[fast]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if ax, ok := f.(interface {
					LogFAxes(w, step, lp, lm []float64) float64
				}); ok {
					ax.LogFAxes(w, step, lp, lm)
					continue
				}
				f.LogF(w)
				for j := range w {
					w[j] += step[j]
					lp[j] = f.LogF(w)
					w[j] -= 2 * step[j]
					lm[j] = f.LogF(w)
					w[j] += step[j]
				}
			}
		})
	}
}
