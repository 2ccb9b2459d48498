package stream

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/ffep"
	"github.com/fg-infer/fg/internal/mathx"
	"github.com/fg-infer/fg/internal/testkit"
	"github.com/fg-infer/fg/stdlib"
)

// writeSynthetic writes n examples over d features with about nnz non-zeros
// each (unsorted, 1-based, some rows empty), labels from probit(xᵀw*) as
// 0/1, to a libsvm file; values print with %.17g so they read back exactly.
func writeSynthetic(t testing.TB, n, d, nnz int, seed uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "synth.svm")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	if err := Generate(bw, n, d, nnz, seed, 1); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// projSite is a probit/step site as a ffep.Projected potential, for the
// in-memory FF-EP reference.
type projSite struct {
	idx []int32
	a   []float64
	y   float64
	lik ep.Likelihood
}

func (s projSite) Projection() ([]int32, []float64)                { return s.idx, s.a }
func (s projSite) Tilted(m, v float64) (float64, float64, float64) { return s.lik.Tilted(s.y, m, v, 1) }
func (s projSite) LogF(w []float64) float64 {
	t := 0.0
	for k, i := range s.idx {
		t += s.a[k] * w[i]
	}
	z, _, _ := s.lik.Tilted(s.y, t, 1e-300, 1)
	return z
}
func (s projSite) Derivs(w, g, h []float64) float64 { clear(g); clear(h); return s.LogF(w) }

// inMemory runs infer/ffep's FF-EP with scheme exact over the file's
// examples, held in memory.
func inMemory(t *testing.T, path string, lik ep.Likelihood, prior []float64, passes int, damping, tol float64) *ffep.Result {
	m, err := stdlib.LoadLibSVM(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	y, err := stdlib.LabelSpins(m.Labels, m.Lines, path)
	if err != nil {
		t.Fatal(err)
	}
	p := &ffep.Problem{PriorMean: make([]float64, len(prior)), PriorVar: prior}
	for i := range m.Rows {
		idx, a := m.Row(i)
		p.Factors = append(p.Factors, projSite{idx, a, y[i], lik})
	}
	res, err := ffep.RunFF(context.Background(), p, &ffep.Settings{Scheme: ffep.Scheme{Kind: ffep.Exact}, Passes: passes, Damping: damping, Tol: tol})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestStreamEqualsInMemoryFFEP: streaming ADF (passes = 1) and streaming EP
// (sites on disk) equal infer/ffep's in-memory FF-EP with exact projected
// moments, an independent implementation (dense cavities in standardised
// coordinates), to 1e-12.
func TestStreamEqualsInMemoryFFEP(t *testing.T) {
	const d = 60
	path := writeSynthetic(t, 400, d, 6, 1)
	prior := make([]float64, d)
	for j := range prior {
		prior[j] = 1 + float64(j%3)
	}
	for _, tc := range []struct {
		lik          ep.Likelihood
		passes       int
		damping, tol float64
	}{
		{ep.Probit{}, 1, 0, 0}, {ep.Probit{}, 4, 0, 0}, {ep.Probit{}, 3, 0.6, 0}, {ep.Step{Eps: 0.1}, 1, 0, 0}, {ep.Step{Eps: 0.1}, 3, 0, 0},
		{ep.Probit{}, 100, 0, 1e-9},
	} {
		want := inMemory(t, path, tc.lik, prior, tc.passes, tc.damping, tc.tol)
		got, err := Run(context.Background(), &Problem{PriorMean: make([]float64, d), PriorVar: prior, Lik: tc.lik,
			Train: LibSVMFile{Path: path}}, &Settings{Passes: tc.passes, Damping: tc.damping, Tol: tc.tol, SiteDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s passes=%d damping=%g tol=%g", tc.lik.Name(), tc.passes, tc.damping, tc.tol)
		if tc.tol > 0 && got.Status != infer.Converged {
			t.Errorf("%s: status %v", name, got.Status)
		}
		if got.Updates != want.Updates || got.Skipped != want.Skipped || got.Examples != 400 || got.Status != want.Status || got.Iterations != want.Iterations {
			t.Errorf("%s: updates %d/%d skipped %d/%d status %v/%v passes %d/%d", name, got.Updates, want.Updates, got.Skipped, want.Skipped, got.Status, want.Status, got.Iterations, want.Iterations)
		}
		for j := range d {
			if !scalar.EqualWithinAbsOrRel(got.Mean[j], want.Mean[j], 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(got.Var[j], want.Var[j], 1e-12, 1e-12) {
				t.Fatalf("%s: w[%d] = %g ± %g, in-memory FF-EP %g ± %g", name, j, got.Mean[j], got.Var[j], want.Mean[j], want.Var[j])
			}
		}
		if tc.passes > 1 && tc.lik.Name() == "probit" && got.Trace[len(got.Trace)-1] >= got.Trace[0] {
			t.Errorf("%s: residuals %v do not fall", name, got.Trace)
		}
	}
}

// TestStreamOneExample checks one probit update against the closed form
// by hand: prior N(0, 1) on w₁, w₂, x = (2, −1), y = +1: v_t = 5, z = 0,
// r = N(0)/Φ(0) = 2φ(0); E w = σ² x r/√6, Var w = 1 − x² r(z + r)/6.
func TestStreamOneExample(t *testing.T) {
	res, err := Run(context.Background(), &Problem{PriorMean: []float64{0, 0, 0}, PriorVar: []float64{1, 1, 1}, Lik: ep.Probit{},
		Train: LibSVMFile{Path: writeFile(t, "1 1:2 2:-1\n")}}, &Settings{})
	if err != nil || res.Status != infer.Done {
		t.Fatal(res, err)
	}
	r := 2 / math.Sqrt(2*math.Pi)
	for j, x := range []float64{2, -1} {
		m, v := x*r/math.Sqrt(6), 1-x*x*r*r/6
		if !(math.Abs(res.Mean[j]-m) <= 1e-15) || !(math.Abs(res.Var[j]-v) <= 1e-15) {
			t.Errorf("w[%d] = %g ± %g, want %g ± %g", j, res.Mean[j], res.Var[j], m, v)
		}
	}
	if res.Mean[2] != 0 || res.Var[2] != 1 {
		t.Errorf("untouched w[2] = %g ± %g", res.Mean[2], res.Var[2])
	}
}

func writeFile(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.svm")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStreamErrors(t *testing.T) {
	run := func(src string, d, passes int) error {
		_, err := Run(context.Background(), &Problem{PriorMean: make([]float64, d), PriorVar: ones(d), Lik: ep.Probit{},
			Train: LibSVMFile{Path: writeFile(t, src)}}, &Settings{Passes: passes})
		return err
	}
	cases := []struct {
		src    string
		d      int
		passes int
		want   string
	}{
		{"1 1:1\n-1 2:x\n", 3, 1, "x.svm:2:6: libsvm: value \"x\" of index 2 is not a finite number"},
		{"-1 1:1\n0 2:1\n", 3, 1, "x.svm:2:1: libsvm: labels mix -1 and 0"},
		{"1 1:1\n2 2:1\n", 3, 2, "x.svm:2:1: libsvm: label 2 is not binary"},
		{"1 1:1\n1 5:1\n", 3, 1, "example 2 has feature 5 but the model has 3"},
	}
	for _, tc := range cases {
		if err := run(tc.src, tc.d, tc.passes); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}

func ones(d int) []float64 {
	v := make([]float64, d)
	for j := range v {
		v[j] = 1
	}
	return v
}

func TestStreamCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, &Problem{PriorMean: make([]float64, 60), PriorVar: ones(60), Lik: ep.Probit{},
		Train: LibSVMFile{Path: writeSynthetic(t, 100, 60, 5, 2)}}, &Settings{Passes: 3})
	if err != nil || res.Status != infer.Canceled {
		t.Fatalf("%v %v", res, err)
	}
}

// TestScore compares the streamed test scores with a direct computation
// from the CSR matrix and Φ.
func TestScore(t *testing.T) {
	path := writeSynthetic(t, 200, 30, 4, 3)
	r := rand.New(rand.NewPCG(4, 5))
	mean, vr := make([]float64, 30), make([]float64, 30)
	for j := range mean {
		mean[j], vr[j] = r.NormFloat64(), r.Float64()
	}
	sc, err := Score(context.Background(), ep.Probit{}, mean, vr, LibSVMFile{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := stdlib.LoadLibSVM(nil, path)
	y, _ := stdlib.LabelSpins(m.Labels, m.Lines, path)
	acc, ll := 0.0, 0.0
	for i := range m.Rows {
		idx, a := m.Row(i)
		mt, vt := 0.0, 0.0
		for k, j := range idx {
			mt += a[k] * mean[j]
			vt += a[k] * a[k] * vr[j]
		}
		p := mathx.Phi(y[i] * mt / math.Sqrt(1+vt))
		if p > 0.5 {
			acc++
		}
		ll -= math.Log(p)
	}
	if sc.N != 200 || !(math.Abs(sc.Accuracy-acc/200) <= 1e-15) || !(math.Abs(sc.LogLoss-ll/200) <= 1e-12) {
		t.Errorf("scores %+v, want accuracy %g log loss %g", sc, acc/200, ll/200)
	}
}

// TestStreamProgress: progress every 50 examples and after each pass with
// that pass's residual.
func TestStreamProgress(t *testing.T) {
	var got []Progress
	res, err := Run(context.Background(), &Problem{PriorMean: make([]float64, 30), PriorVar: ones(30), Lik: ep.Probit{},
		Train: LibSVMFile{Path: writeSynthetic(t, 120, 30, 4, 9)}}, &Settings{Passes: 2, ProgressEvery: 50, SiteDir: t.TempDir(),
		Progress: func(p Progress) { got = append(got, p) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		pass, n int
		end     bool
	}{{1, 50, false}, {1, 100, false}, {1, 120, true}, {2, 30, false}, {2, 80, false}, {2, 120, true}}
	if len(got) != len(want) {
		t.Fatalf("progress calls %+v", got)
	}
	for k, w := range want {
		g := got[k]
		if g.Pass != w.pass || g.Examples != w.n || g.EndOfPass != w.end || !(g.PerSecond > 0) || (w.end && g.Residual != res.Trace[w.pass-1]) {
			t.Errorf("call %d: %+v, want %+v", k, g, w)
		}
	}
}

// TestStreamWideMemory runs ADF and EP over d = 2²⁰ weights with the
// largest feature index d, and bounds the bytes the engine allocates per
// weight (runtime.MemStats.TotalAlloc, every allocation of the run): q's
// two natural parameters and the means (24 bytes; the variances are
// written over q), plus a constant for the file buffers. The results are
// checked against the one-site probit closed form (to 1e-10): weights seen
// by no example keep their prior exactly, and each example's weights equal
// ADF's moment match on the prior, p(w | y) ∝ Φ(y xᵀw) N(w; m0, v0 I)
// (testkit.ProbitOneSite).
//
// The examples share no weight, so EP's further passes leave ADF's answer.
func TestStreamWideMemory(t *testing.T) {
	const d, m0, v0 = 1 << 20, 0.25, 2.0 // m0/v0 and 1/v0 are exact, so η/λ gives m0 back exactly
	examples := []struct {
		y   float64
		idx []int
		x   []float64
	}{{1, []int{0, d - 1}, []float64{0.5, 1}}, {-1, []int{1}, []float64{1.5}}, {1, []int{6}, []float64{-0.8}}}
	path := writeFile(t, "1 1:0.5 1048576:1\n-1 2:1.5\n1 7:-0.8\n")
	pm, pv := make([]float64, d), make([]float64, d)
	for j := range pm {
		pm[j], pv[j] = m0, v0
	}
	for _, passes := range []int{1, 3} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Run(context.Background(), &Problem{PriorMean: pm, PriorVar: pv, Lik: ep.Probit{}, Train: LibSVMFile{Path: path}},
			&Settings{Passes: passes, Tol: 1e-12})
		runtime.ReadMemStats(&after)
		if err != nil || !res.Status.HasNumbers() {
			t.Fatal(res, err)
		}
		t.Logf("passes %d: %d bytes, %.2f per weight", passes, after.TotalAlloc-before.TotalAlloc, float64(after.TotalAlloc-before.TotalAlloc)/d)
		if perWeight := float64(after.TotalAlloc-before.TotalAlloc-fileBuffers) / d; perWeight > 24 {
			t.Errorf("passes %d: %.1f bytes allocated per weight (beyond %d for buffers), want ≤ 24", passes, perWeight, fileBuffers)
		}
		seen := map[int]bool{}
		for _, ex := range examples {
			ms, vs := testkit.ProbitOneSite(ex.y, ex.x, m0, v0)
			for k, j := range ex.idx {
				m, v := ms[k], vs[k]
				if !(math.Abs(res.Mean[j]-m) <= 1e-10) || !(math.Abs(res.Var[j]-v) <= 1e-10) {
					t.Errorf("passes %d: w[%d] = %.17g ± %.17g, closed form %.17g ± %.17g", passes, j, res.Mean[j], res.Var[j], m, v)
				}
				seen[j] = true
			}
		}
		for j := range d {
			if !seen[j] && (res.Mean[j] != m0 || res.Var[j] != v0) {
				t.Fatalf("passes %d: unseen w[%d] = %g ± %g, want the prior %g ± %g", passes, j, res.Mean[j], res.Var[j], m0, v0)
			}
		}
	}
}

// fileBuffers bounds the run's allocations that do not grow with d: the
// 1 MiB reader buffer of each pass, EP's two 1 MiB site-file buffers per
// pass, and small scratch.
const fileBuffers = 8 << 20

// TestStreamSharedPrior: a prior shared by all weights (Problem.D, the
// compact latent's form) gives bit for bit the result of the same prior
// repeated per weight, for ADF and for damped EP.
func TestStreamSharedPrior(t *testing.T) {
	const d = 300
	path := writeSynthetic(t, 400, d, 8, 3)
	pm, pv := make([]float64, d), make([]float64, d)
	for j := range pm {
		pm[j], pv[j] = 0.3, 1.7
	}
	for _, s := range []Settings{{}, {Passes: 7, Damping: 0.7}} {
		s1, s2 := s, s
		a, err := Run(context.Background(), &Problem{PriorMean: pm, PriorVar: pv, Lik: ep.Probit{}, Train: LibSVMFile{Path: path}}, &s1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(context.Background(), &Problem{PriorMean: []float64{0.3}, PriorVar: []float64{1.7}, D: d, Lik: ep.Probit{}, Train: LibSVMFile{Path: path}}, &s2)
		if err != nil {
			t.Fatal(err)
		}
		for j := range d {
			if a.Mean[j] != b.Mean[j] || a.Var[j] != b.Var[j] {
				t.Fatalf("passes %d: w[%d] = %v ± %v shared, %v ± %v per weight", s.Passes, j, b.Mean[j], b.Var[j], a.Mean[j], a.Var[j])
			}
		}
	}
	if _, err := Run(context.Background(), &Problem{PriorMean: pm, PriorVar: pv, D: d, Lik: ep.Probit{}, Train: LibSVMFile{Path: path}}, &Settings{}); err == nil {
		t.Error("a shared prior of d means was accepted")
	}
}
