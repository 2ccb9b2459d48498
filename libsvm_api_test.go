package fg_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fg-infer/fg"
	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/testkit"
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

// TestLibSVMWideWeights runs weights of d = 2²⁶ elements (libsvm's largest
// index; 10⁷ + 1 under -short, still above the limit of latents held
// element by element) through Load and Run: a compact latent whose prior is
// two numbers, streamed by ADF. It bounds the bytes allocated per weight
// from compile to results (runtime.MemStats.TotalAlloc: the engine's 24,
// see compile's streamWeightBytes, plus a constant for buffers) and checks
// the weights against the one-site probit closed form to 1e-10 (prior
// N(m0, v0), testkit.ProbitOneSite); weights no example sees keep the
// prior exactly.
func TestLibSVMWideWeights(t *testing.T) {
	d := 1 << 26
	if testing.Short() {
		d = 10_000_001
	}
	const m0, v0 = 0.25, 2.0 // m0/v0 and 1/v0 are exact, so η/λ gives m0 back exactly
	dir := t.TempDir()
	svm := fmt.Sprintf("1 1:0.5 %d:1\n-1 2:1.5\n1 7:-0.8\n", d)
	if err := os.WriteFile(filepath.Join(dir, "wide.svm"), []byte(svm), 0o644); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`model wide
data X = libsvm(%q)
data y = libsvm_labels(%q)
latent w: real[cols(X)] ~ normal(%g, %g)
for i in 0..len(y) {
  y[i] ~ probit(dot(X[i], w))
}
infer ep { passes = 1 }
`, filepath.Join(dir, "wide.svm"), filepath.Join(dir, "wide.svm"), m0, v0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := fg.LoadBytes(filepath.Join(dir, "wide.fg"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(context.Background())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	const buffers = 16 << 20
	perWeight := float64(after.TotalAlloc-before.TotalAlloc) / float64(d)
	t.Logf("d = %d: %.2f bytes allocated per weight", d, perWeight)
	if float64(after.TotalAlloc-before.TotalAlloc-buffers)/float64(d) > 24 {
		t.Errorf("%.2f bytes allocated per weight, want ≤ 24 beyond %d for buffers", perWeight, buffers)
	}
	r := res.Get("ep")
	if _, err := r.Mean("w", 0); err != nil {
		t.Fatal(err)
	}
	for _, ex := range []struct {
		y   float64
		idx []int
		x   []float64
	}{{1, []int{0, d - 1}, []float64{0.5, 1}}, {-1, []int{1}, []float64{1.5}}, {1, []int{6}, []float64{-0.8}}} {
		ms, vs := testkit.ProbitOneSite(ex.y, ex.x, m0, v0)
		for k, j := range ex.idx {
			mean, vr := ms[k], vs[k]
			gm, _ := r.Mean("w", j)
			gv, _ := r.Variance("w", j)
			if !(math.Abs(gm-mean) <= 1e-10) || !(math.Abs(gv-vr) <= 1e-10) {
				t.Errorf("w[%d] = %.17g ± %.17g, closed form %.17g ± %.17g", j, gm, gv, mean, vr)
			}
		}
	}
	for _, j := range []int{2, 5, 7, 1 << 20, d - 2} {
		gm, _ := r.Mean("w", j)
		gv, _ := r.Variance("w", j)
		if gm != m0 || gv != v0 {
			t.Errorf("unseen w[%d] = %g ± %g, want the prior %g ± %g", j, gm, gv, m0, v0)
		}
	}
}

// TestStreamedWeightsCompactAtEverySize: weights used only by a libsvm
// plate are compact at any size (no graph variables, a prior of two
// numbers), and give the posterior of the ordinary latent the same model
// declares when w comes before the data it streams (so that the compiler
// cannot tell, and keeps one graph variable and prior entry per weight):
// at d = 50 over 400 examples, for ADF and EP to convergence, under probit
// and logistic, every mean and variance within 1e-12. At d = 2²⁰ the
// compact form allocates at most 24 bytes per weight from compile to
// results beyond 16 MiB of buffers (runtime.MemStats.TotalAlloc), as above
// 10⁷; the ordinary form's figure is logged (~60 bytes).
func TestStreamedWeightsCompactAtEverySize(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 5))
	const d, n = 50, 400
	var svm strings.Builder
	for range n {
		label := 1
		if rng.IntN(2) == 0 {
			label = -1
		}
		fmt.Fprintf(&svm, "%d", label)
		for j := 1; j <= d; j++ {
			if rng.IntN(8) == 0 {
				fmt.Fprintf(&svm, " %d:%.3f", j, rng.NormFloat64()+0.3*float64(label))
			}
		}
		svm.WriteString("\n")
	}
	path := filepath.Join(dir, "train.svm")
	if err := os.WriteFile(path, []byte(svm.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	forms := func(d int, lik, infer string) (compact, ordinary string) {
		data := fmt.Sprintf("data X = libsvm(%q, cols = %d)\ndata y = libsvm_labels(%q)\n", path, d, path)
		plate := fmt.Sprintf("for i in 0..len(y) {\n  y[i] ~ %s(dot(X[i], w))\n}\n%s", lik, infer)
		lat := fmt.Sprintf("latent w: real[%d] ~ normal(0.25, 2)\n", d)
		return data + lat + plate, lat + data + plate
	}
	for _, lik := range []string{"probit", "logistic"} {
		compact, ordinary := forms(d, lik, "infer ep as adf { passes = 1 }\ninfer ep as ep { passes = 100, tol = 1e-10 }\n")
		for src, want := range map[string]bool{compact: true, ordinary: false} {
			m, err := compile.CompileSource("w.fg", []byte(src), compile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Graph.Latents[0].Compact; got != want {
				t.Fatalf("%s: compact %v, want %v:\n%s", lik, got, want, src)
			}
		}
		a, b := runSource(t, compact), runSource(t, ordinary)
		for _, label := range []string{"adf", "ep"} {
			if s := a.Get(label).Status(); label == "ep" && s != fg.StatusConverged {
				t.Errorf("%s %s: status %s", lik, label, s)
			}
			for j := range d {
				ma, _ := a.Get(label).Mean("w", j)
				mb, _ := b.Get(label).Mean("w", j)
				va, _ := a.Get(label).Variance("w", j)
				vb, _ := b.Get(label).Variance("w", j)
				if !(math.Abs(ma-mb) <= 1e-12) || !(math.Abs(va-vb) <= 1e-12) {
					t.Errorf("%s %s: w[%d] compact %.17g ± %.17g, ordinary %.17g ± %.17g", lik, label, j, ma, va, mb, vb)
				}
			}
		}
	}
	const wide, buffers = 1 << 20, 16 << 20
	perWeight := func(src string) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := fg.LoadBytes(filepath.Join(dir, "wide.fg"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / wide
	}
	compact, ordinary := forms(wide, "probit", "infer ep { passes = 1 }\n")
	pc, po := perWeight(compact), perWeight(ordinary)
	t.Logf("d = 2²⁰: %.2f bytes allocated per weight compact, %.2f ordinary", pc, po)
	if pc > 24+float64(buffers)/wide {
		t.Errorf("compact: %.2f bytes per weight, want ≤ 24 beyond %d for buffers", pc, buffers)
	}
}
