package compile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib/kernel"
)

func mustCompile(t *testing.T, src string, opt Options) *Model {
	t.Helper()
	m, err := CompileSource("test.fg", []byte(src), opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func compileErr(t *testing.T, src string, opt Options) string {
	t.Helper()
	_, err := CompileSource("test.fg", []byte(src), opt)
	if err == nil {
		t.Fatalf("no error for:\n%s", src)
	}
	var list ast.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not an ast.ErrorList", err)
	}
	msgs := make([]string, len(list))
	for i, e := range list {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// readCSV parses a numeric CSV independently of stdlib (header skipped).
func readCSV(t *testing.T, path string) [][]float64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for _, r := range recs[1:] {
		row := make([]float64, len(r))
		for i, s := range r {
			row[i], _ = strconv.ParseFloat(s, 64)
		}
		out = append(out, row)
	}
	return out
}

// TestGPMLKernels checks the Gram matrices of the gpml examples against the
// GPML covariance formulas evaluated here from the raw CSV rows:
// covSEiso k = sf² exp(−|x − x'|²/(2 ell²)), covLINiso k = xᵀx'/ell².
func TestGPMLKernels(t *testing.T) {
	d := datadir.Dir()
	rows := readCSV(t, filepath.Join(d, "reference/gpml/toy2d_se_probit/train.csv"))
	ell, sf := math.Exp(0.5), math.Exp(-0.3)
	m, err := CompileFile("../examples/gpml/se_probit.fg", Options{Set: map[string]string{"log_ell": "0.5", "log_sf": "-0.3"}})
	if err != nil {
		t.Fatal(err)
	}
	K := m.Blocks()[0].Prior.Cov
	for _, ij := range [][2]int{{0, 0}, {0, 1}, {3, 17}, {39, 12}} {
		a, b := rows[ij[0]], rows[ij[1]]
		d2 := (a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1])
		want := sf * sf * math.Exp(-d2/(2*ell*ell))
		if got := K.At(ij[0], ij[1]); !(math.Abs(got-want) <= 1e-14) {
			t.Errorf("se K%v = %.17g, want %.17g", ij, got, want)
		}
	}
	if m.Predicts[0].Lik != (factor.Probit{}) || m.Blocks()[0].Sites[5].Y != rows[5][2] {
		t.Errorf("predict lik %v, site y %g vs %g", m.Predicts[0].Lik, m.Blocks()[0].Sites[5].Y, rows[5][2])
	}
	rows = readCSV(t, filepath.Join(d, "reference/gpml/ionosphere_lin_probit/train.csv"))
	m, err = CompileFile("../examples/gpml/lin_probit.fg", Options{Set: map[string]string{"log_ell": "0.25"}})
	if err != nil {
		t.Fatal(err)
	}
	ell = math.Exp(0.25)
	K = m.Blocks()[0].Prior.Cov
	D := len(rows[0]) - 1
	for _, ij := range [][2]int{{0, 0}, {2, 100}, {233, 7}} {
		want := 0.0
		for k := 0; k < D; k++ {
			want += rows[ij[0]][k] * rows[ij[1]][k]
		}
		want /= ell * ell
		if got := K.At(ij[0], ij[1]); !(math.Abs(got-want) <= 1e-12*(1+math.Abs(want))) {
			t.Errorf("linear K%v = %g, want %g", ij, got, want)
		}
	}
	step, err := CompileFile("../examples/gpml/se_step.fg", Options{Set: map[string]string{"eps": "0.05"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := step.Predicts[0]; p.Lik != (factor.Step{Eps: 0.05}) {
		t.Errorf("step predict %v", p.Lik)
	}
}

// TestDiscreteTables compares ising/field tables with exp(J xi xj) and
// exp(h x) enumerated in libDAI order (first variable fastest, state 0 = −1).
func TestDiscreteTables(t *testing.T) {
	m := mustCompile(t, `
latent x: spin[3]
factor ising(x[2], x[0], 0.7)
factor field(x[1], -0.4)
factor table(x[0], x[1], [1, 2, 3, 4])
`, Options{})
	spin := []float64{-1, 1}
	f := m.Graph.Factor(0)
	if f.Vars[0] != 2 || f.Vars[1] != 0 {
		t.Fatalf("vars %v", f.Vars)
	}
	for si := 0; si < 2; si++ {
		for sj := 0; sj < 2; sj++ {
			if got, want := f.Table[si+2*sj], math.Exp(0.7*spin[si]*spin[sj]); !(math.Abs(got-want) <= 1e-15) {
				t.Errorf("ising[%d,%d] = %g, want %g", si, sj, got, want)
			}
		}
	}
	h := m.Graph.Factor(1)
	if !(math.Abs(h.Table[0]-math.Exp(0.4)) <= 1e-15) || !(math.Abs(h.Table[1]-math.Exp(-0.4)) <= 1e-15) {
		t.Errorf("field table %v", h.Table)
	}
	if tb := m.Graph.Factor(2); tb.Label != "table(x[0], x[1])" || tb.Table[3] != 4 {
		t.Errorf("table factor %+v", tb)
	}
}

// TestDomeAndGrid checks graph data values inside a model.
func TestDomeAndGrid(t *testing.T) {
	m := mustCompile(t, `
data G = geodesic_dome()
data T = grid(3, 4, periodic = true)
data n = nodes(G)
data e = len(G)
data et = len(T)
`, Options{})
	if m.Data["n"].Num[0] != 60 || m.Data["e"].Num[0] != 90 || m.Data["et"].Num[0] != 24 || m.Data["G"].Nodes != 60 {
		t.Errorf("dome/grid sizes %v %v %v", m.Data["n"], m.Data["e"], m.Data["et"])
	}
}

// TestExpPotential checks a mini-batch logistic potential against a direct
// computation of −β Σ log(1 + exp(−y xᵀw)) and its derivatives against
// central finite differences.
func TestExpPotential(t *testing.T) {
	m := mustCompile(t, `
data X: real[4, 3] = [[1, 0.5, -1], [0.2, -1, 2], [-1, 1, 0.3], [0.5, 0.5, 0.5]]
data y: spin[4] = [1, -1, -1, 1]
param beta = 0.7
latent w: real[3] ~ normal(0, 25)
for b in batches(4, 3) {
  factor exp(-beta * sum(logistic_loss(y[b] * (X[b] @ w))))
}
`, Options{})
	X := [][]float64{{1, 0.5, -1}, {0.2, -1, 2}, {-1, 1, 0.3}, {0.5, 0.5, 0.5}}
	y := []float64{1, -1, -1, 1}
	direct := func(w []float64, lo, hi int) float64 {
		s := 0.0
		for k := lo; k < hi; k++ {
			s += math.Log1p(math.Exp(-y[k] * (X[k][0]*w[0] + X[k][1]*w[1] + X[k][2]*w[2])))
		}
		return -0.7 * s
	}
	b := m.Blocks()[0]
	if len(b.Batches) != 2 || b.Batches[0].Label != "exp(b=0:3)" || b.Batches[1].Label != "exp(b=3:4)" {
		t.Fatalf("batches %+v", b.Batches)
	}
	w := []float64{0.3, -0.8, 0.5}
	ranges := [][2]int{{0, 3}, {3, 4}}
	g, h := make([]float64, 3), make([]float64, 3)
	for i, bf := range b.Batches {
		lo, hi := ranges[i][0], ranges[i][1]
		if got, want := bf.F.LogF(w), direct(w, lo, hi); !(math.Abs(got-want) <= 1e-14) {
			t.Errorf("LogF = %g, want %g", got, want)
		}
		bf.F.Derivs(w, g, h)
		const step = 1e-4
		for j := range w {
			wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
			wp[j] += step
			wm[j] -= step
			fd1 := (direct(wp, lo, hi) - direct(wm, lo, hi)) / (2 * step)
			fd2 := (direct(wp, lo, hi) - 2*direct(w, lo, hi) + direct(wm, lo, hi)) / (step * step)
			if !(math.Abs(g[j]-fd1) <= 1e-8) || !(math.Abs(h[j]-fd2) <= 1e-6) {
				t.Errorf("batch %d coord %d: grad %g (fd %g) hdiag %g (fd %g)", i, j, g[j], fd1, h[j], fd2)
			}
		}
	}
	if inf := m.Infers; len(inf) != 0 {
		t.Errorf("no infer lines expected")
	}
}

// TestProjections checks the affine extraction of site projections.
func TestProjections(t *testing.T) {
	m := mustCompile(t, `
data X: real[3, 2] = [[1, 2], [3, -4], [0, 5]]
data y: spin[3] = [1, -1, 1]
latent w: real[2] ~ normal(0, 1)
latent f: real[4] ~ mvnormal([0, 0, 0, 0], [[2, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
y ~ probit(X @ w)
y[0] ~ probit(f[3])
y[1] ~ probit(2 * f[1] - f[0] / 2)
y[2] ~ normal(dot(w, X[2]), 0.5)
`, Options{})
	w, f := m.Blocks()[0], m.Blocks()[1]
	for i, s := range w.Sites[:3] {
		if s.Index != -1 || s.Proj[0] != []float64{1, 3, 0}[i] || s.Proj[1] != []float64{2, -4, 5}[i] || s.Label != "probit(y["+strconv.Itoa(i)+"])" {
			t.Errorf("site %d: %+v", i, s)
		}
	}
	if s := w.Sites[3]; s.Lik != (factor.Normal{Var: 0.5}) || s.Lik.Params()["var"] != 0.5 || s.Y != 1 || s.Proj[1] != 5 {
		t.Errorf("normal site %+v", s)
	}
	if s := f.Sites[0]; s.Index != 3 || s.Proj != nil {
		t.Errorf("f[3] site %+v", s)
	}
	if s := f.Sites[1]; s.Index != -1 || s.Proj[0] != -0.5 || s.Proj[1] != 2 || s.Proj[2] != 0 {
		t.Errorf("2 f[1] - f[0]/2 site %+v", s)
	}
	if got := m.Factors().LabelledFactor(f.Sites[1].Factor).Vars; len(got) != 2 {
		t.Errorf("site vars %v", got)
	}
	if f.Prior.Kind != (factor.MVNormal{}) || f.Prior.Cov.At(0, 1) != 1 {
		t.Errorf("prior %+v", f.Prior)
	}
}

const toyModel = `
data X: real[3, 2] = [[1, 2], [3, -4], [0, 5]]
data y: spin[3] = [1, -1, 1]
param eps = 0.2
latent w: real[2] ~ normal(0, 1)
for i in 0..3 {
  y[i] ~ step(dot(X[i], w), eps)
}
`

func TestSetOverrides(t *testing.T) {
	m := mustCompile(t, toyModel, Options{Set: map[string]string{"eps": "1/8 + 0.125"}})
	if got := m.Blocks()[0].Sites[2].Lik.Params()["eps"]; got != 0.25 {
		t.Errorf("eps = %g", got)
	}
	if msg := compileErr(t, toyModel, Options{Set: map[string]string{"esp": "0.1"}}); !strings.Contains(msg, "--set esp: the model has no param `esp`; did you mean `eps`?") {
		t.Errorf("msg = %s", msg)
	}
	if msg := compileErr(t, toyModel, Options{Set: map[string]string{"eps": "0.1 +"}}); !strings.Contains(msg, "test.fg:4:7: --set eps=0.1 +:") {
		t.Errorf("msg = %s", msg)
	}
	if msg := compileErr(t, toyModel, Options{Set: map[string]string{"eps": "foo"}}); !strings.Contains(msg, "test.fg:4:7: --set eps=foo: undefined: `foo`") {
		t.Errorf("msg = %s", msg)
	}
	sm := mustCompile(t, "param dir = \"a\"\nparam n = 2\n", Options{Set: map[string]string{"dir": "../x y/z", "n": "3"}})
	if sm.Params["dir"].Str != "../x y/z" || sm.Params["n"].Num[0] != 3 {
		t.Errorf("string set: %+v", sm.Params)
	}
	sm = mustCompile(t, "param dir = \"a\"\n", Options{Set: map[string]string{"dir": `"q" + "r"`}})
	if sm.Params["dir"].Str != "qr" {
		t.Errorf("quoted string set: %+v", sm.Params)
	}
	r, err := m.Recompile(map[string]string{"eps": "0.05"})
	if err != nil || r.Blocks()[0].Sites[0].Lik.Params()["eps"] != 0.05 {
		t.Errorf("recompile: %v", err)
	}
}

func TestFSImportsAndData(t *testing.T) {
	fsys := fstest.MapFS{
		"m/main.fg":     {Data: []byte("import \"sub/part.fg\"\ninfer ep\ninfer exact\n")},
		"m/sub/part.fg": {Data: []byte("import \"../common.fg\"\nlatent w: real[2] ~ normal(0, 1)\nfor i in 0..2 { y[i] ~ probit(dot(X[i], w)) }\ninfer bp\n")},
		"m/common.fg":   {Data: []byte("data X = csv(\"d/x.csv\", exclude = [\"label\"])\ndata y: spin[2] = csv(\"d/x.csv\", column = \"label\")\n")},
		"m/d/x.csv":     {Data: []byte("a,b,label\n1,2,1\n3,4,-1\n")},
		"alt.csv":       {Data: []byte("a,b,label\n5,6,1\n7,8,-1\n")},
		"c/a.fg":        {Data: []byte("import \"b.fg\"\n")},
		"c/b.fg":        {Data: []byte("import \"a.fg\"\n")},
	}
	m, err := CompileFile("m/main.fg", Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 3 || len(m.Infers) != 2 || m.Blocks()[0].Sites[1].Proj[1] != 4 {
		t.Errorf("files %d infers %d", len(m.Files), len(m.Infers))
	}
	m, err = CompileFile("m/main.fg", Options{FS: fsys, Data: map[string]string{"X": "alt.csv"}})
	if err != nil || m.Blocks()[0].Sites[0].Proj[0] != 5 {
		t.Errorf("data override: %v", err)
	}
	_, err = CompileFile("c/a.fg", Options{FS: fsys})
	if err == nil || !strings.Contains(err.Error(), "import cycle: c/a.fg → c/b.fg → c/a.fg") {
		t.Errorf("cycle: %v", err)
	}
	_, err = CompileFile("m/nope.fg", Options{FS: fsys})
	if err == nil || !strings.Contains(err.Error(), "file not found") {
		t.Errorf("missing: %v", err)
	}
}

func TestLabels(t *testing.T) {
	m := mustCompile(t, toyModel+`
infer ep
infer ep
infer ep { divergence = alpha(0.5) }
infer ep as mine { divergence = relaxed_kl(c = 2) }
infer exact
infer mcmc { samples = 500, chains = 2 }
`, Options{})
	want := []string{"ep", "ep_2", "ep_alpha", "mine", "exact", "mcmc"}
	for i, s := range m.Infers {
		if s.Label != want[i] {
			t.Errorf("label %d = %s, want %s", i, s.Label, want[i])
		}
	}
	if s := m.Infers[5]; s.Samples != 500 || s.Chains != 2 || s.Burnin != infer.MCMCBurnin {
		t.Errorf("mcmc %+v", s)
	}
	if s := m.Infers[2]; s.Settings.Divergence != (infer.Alpha{A: 0.5}) || s.Settings.Tol != infer.DefaultMomentTol || s.Settings.MaxIter != infer.DefaultMaxIter {
		t.Errorf("ep alpha %+v", s.Settings)
	}
}

func TestMethodSpec(t *testing.T) {
	m := mustCompile(t, toyModel, Options{})
	s, err := MethodSpec(m, "ep as rep { divergence = relaxed_kl(c = 20), damping = 0.5, schedule = random(seed = 7) }")
	if err != nil {
		t.Fatal(err)
	}
	if s.Label != "rep" || s.Settings.Divergence != (infer.RelaxedKL{C: 20}) || s.Settings.Damping != 0.5 ||
		s.Settings.Schedule != infer.Random || s.Settings.Seed != 7 {
		t.Errorf("%+v", s)
	}
	if _, err := MethodSpec(m, "bp"); err == nil || !strings.Contains(err.Error(), "no rule for normal with divergence kl in bp; available: normal in ep with") {
		t.Errorf("bp on a Gaussian model: %v", err)
	}
	if _, err := MethodSpec(m, "ep { divergence = alpha(eps) }"); err != nil {
		t.Errorf("param in method spec: %v", err)
	}
	if _, err := MethodSpec(m, "ep {"); err == nil {
		t.Error("syntax error accepted")
	}
	dome := mustCompile(t, "data G = geodesic_dome()\nlatent x: spin[60]\nfor (i, j) in edges(G) { factor ising(x[i], x[j], 0.5) }\n", Options{})
	s, err = MethodSpec(dome, "bp as fbp { divergence = alpha(0.8), damping = 0.5 }")
	if err != nil || s.Label != "fbp" || s.Settings.Tol != infer.DefaultBeliefTol || s.Settings.MaxIter != infer.DefaultBPMaxIter {
		t.Errorf("%+v %v", s, err)
	}
	if _, err := MethodSpec(dome, "bp { divergence = t(nu = 3) }"); err == nil || !strings.Contains(err.Error(), "no rule for ising with divergence t in bp") {
		t.Errorf("t in bp: %v", err)
	}
	if dome.Graph.NumFactors() != 90 {
		t.Errorf("dome factors %d", dome.Graph.NumFactors())
	}
}

// TestLibDAIFile compiles a libDAI file directly and checks it against the
// graph package's reader.
func TestLibDAIFile(t *testing.T) {
	d := datadir.Dir()
	p := filepath.Join(d, "reference/libdai/ising_full10_seed4.fg")
	m, err := CompileFile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m2, err := CompileLibDAI(p, Options{}); err != nil || m2.Graph.NumFactors() != m.Graph.NumFactors() {
		t.Errorf("CompileLibDAI: %v", err)
	}
	if _, err := CompileLibDAI(p+".missing", Options{}); err == nil {
		t.Error("missing libDAI file accepted")
	}
	g, err := graph.ReadLibDAI(p, factor.Table{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Graph.Latents) != 10 || m.Graph.Latents[3].Name != "x3" || m.Graph.NumFactors() != g.NumFactors() {
		t.Fatalf("latents %d factors %d", len(m.Graph.Latents), m.Graph.NumFactors())
	}
	for i, f := range g.Factors() {
		mf := m.Graph.Factor(i)
		for k := range f.Table {
			if mf.Table[k] != f.Table[k] {
				t.Fatalf("factor %d table differs", i)
			}
		}
	}
	if m.Graph.FactorLabel(0) != "table(x0, x1)" || len(m.Infers) != 2 || m.Infers[0].Label != "bp" {
		t.Errorf("label %q infers %d", m.Graph.FactorLabel(0), len(m.Infers))
	}
	if !IsLibDAI([]byte("# c\n\n 12 \n")) || IsLibDAI([]byte("model x\n")) || IsLibDAI([]byte("// 3\ndata x = 3\n")) {
		t.Error("IsLibDAI")
	}
}

func TestCheckSkipsGram(t *testing.T) {
	src := "data X: real[3, 1] = [[0], [1], [2]]\nlatent f: real[3] ~ gp(se(1, 2) + white(0.1), X)\n"
	m, err := Check("t.fg", []byte(src), Options{})
	if err != nil || m.Blocks()[0].Prior.Cov != nil || m.Blocks()[0].Prior.Kernel.Kind != kernel.KindSum {
		t.Fatalf("check: %v", err)
	}
	m = mustCompile(t, src, Options{})
	K := m.Blocks()[0].Prior.Cov
	if !(math.Abs(K.At(0, 0)-2.1) <= 1e-15) || !(math.Abs(K.At(0, 2)-2*math.Exp(-2)) <= 1e-15) {
		t.Errorf("K = %v", K)
	}
}

func TestStudentPriors(t *testing.T) {
	m := mustCompile(t, `
data X: real[2, 1] = [[0], [1]]
latent a: real[2] ~ student_t(3, 0, 2)
latent f: real[2] ~ tp(5, matern52(2, 1), X)
`, Options{})
	a, f := m.Blocks()[0].Prior, m.Blocks()[1].Prior
	if a.Kind != (factor.StudentTPrior{}) || a.Nu != 3 || a.Cov.At(1, 1) != 2 {
		t.Errorf("student_t %+v", a)
	}
	r := math.Sqrt(5) / 2
	if f.Kind != (factor.TP{}) || f.Nu != 5 || !(math.Abs(f.Cov.At(0, 1)-(1+r+r*r/3)*math.Exp(-r)) <= 1e-15) {
		t.Errorf("tp %+v", f)
	}
}

// TestNoPanicOnPrefixes compiles every prefix (at line boundaries) of every
// example and every example with one line deleted: errors are fine, an
// internal compiler error (a recovered panic) is not.
func TestNoPanicOnPrefixes(t *testing.T) {
	for _, p := range exampleFiles(t) {
		src, _ := os.ReadFile(p)
		lines := strings.SplitAfter(string(src), "\n")
		for i := range lines {
			for _, v := range []string{strings.Join(lines[:i], ""), strings.Join(lines[:i], "") + strings.Join(lines[i+1:], "")} {
				_, err := CompileSource(p, []byte(v), Options{})
				var list ast.ErrorList
				errors.As(err, &list)
				for _, e := range list {
					if strings.Contains(e.Msg, "internal") || !e.Pos.IsValid() {
						t.Errorf("%s line %d: %v", p, i+1, e)
					}
				}
			}
		}
	}
}

func TestLearnSpec(t *testing.T) {
	m := mustCompile(t, `
data X: real[2, 1] = [[0], [1]]
data y: spin[2] = [1, -1]
param ell = 1
param sf2 = 2
latent f: real[2] ~ gp(se(ell, sf2), X)
y ~ probit(f)
infer ep
learn ell in [0.1, 10], sf2 by evidence { max_iter = 50 }
`, Options{})
	l := m.Learn
	if l == nil || len(l.Params) != 2 || !l.Params[0].Bounded || l.Params[0].Lo != 0.1 || l.Params[0].Hi != 10 ||
		l.Params[1].Bounded || l.Options["max_iter"] != "50" {
		t.Fatalf("learn %+v", l)
	}
	k := m.Blocks()[0].Prior.Kernel
	if k.HyperParams[0] != "ell" || k.HyperParams[1] != "sf2" {
		t.Errorf("hyper params %v", k.HyperParams)
	}
	// Cross with distinct point sets equals Eval pairwise.
	Xn := m.Blocks()[0].Prior.X
	C := k.Cross(Xn, Xn)
	if C.At(0, 1) != k.Eval(Xn.RawRowView(0), Xn.RawRowView(1), false) || C.At(1, 1) != 2 {
		t.Errorf("cross %v", C)
	}
}

// TestPlateVariableLabels checks the labels of exp(...) factors in nested
// plates: the variables plate by plate, outermost first, each plate's
// sorted by name. The 2×2 grid's edges, vertex r·2 + c, are (0,1), (0,2),
// (1,3), (2,3); (k, j, i) binds k to the edge's index, j and i to its ends.
func TestPlateVariableLabels(t *testing.T) {
	m := mustCompile(t, `
data G = grid(2, 2)
latent w: real[nodes(G)] ~ normal(0, 1)
for s in 0..2 {
  for (k, j, i) in edges(G) {
    factor exp(-(w[i] - w[j]) * (w[i] - w[j]) * (s + 1))
  }
}
`, Options{})
	var want []string
	for s := range 2 {
		for _, e := range [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}} {
			want = append(want, fmt.Sprintf("exp(s=%d, i=%d, j=%d, k=%d)", s, e[1], e[0], len(want)%4))
		}
	}
	var got []string
	for _, bf := range m.Blocks()[0].Batches {
		got = append(got, bf.Label)
	}
	if !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
}
