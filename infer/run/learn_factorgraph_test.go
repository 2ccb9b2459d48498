package run

import (
	"context"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
)

// learnFGCases are the factor-graph models learn works on: the examples
// (a GP classifier with a latent bias; a random walk's process variance
// from probit labels; a GP trend plus a hierarchy of group effects), a
// random walk with Gaussian observations learning q and the noise r, one
// of 5000 steps, and one with step labels learning their eps. x are the
// points of the gradient check.
var learnFGCases = []struct {
	name, file, src string
	x               []float64
	forest          bool      // learned on the forest's messages, not the joint block
	noOptimum       bool      // only the gradient is checked
	replace         [2]string // an edit of the file's source
}{
	{name: "gp_bias", file: "../../examples/learn_gp_bias.fg", x: []float64{0.8, 3}},
	// A constant in the sites' argument: the joint block's extra coordinate.
	{name: "gp_bias_offset", file: "../../examples/learn_gp_bias.fg", x: []float64{0.8, 3}, replace: [2]string{"probit(f[i] + b)", "probit(f[i] + b + 0.5)"}},
	{name: "walk_probit", file: "../../examples/learn_random_walk.fg", x: []float64{0.2}, forest: true},
	{name: "gp_hierarchy", file: "../../examples/learn_gp_hierarchy.fg", x: []float64{0.7, 0.4}},
	{name: "walk_normal", src: walkNormal, x: []float64{0.05, 0.08}, forest: true},
	{name: "walk_long", src: walkLong, x: []float64{0.02}, forest: true},
	{name: "walk_step", src: walkStep, x: []float64{0.2, 0.1}, forest: true, noOptimum: true},
	// A conditional's mean: an AR(1) coefficient and a drift (fgraph's AffGrad).
	{name: "ar", file: "../../examples/learn_ar.fg", x: []float64{0.6, 0.3}, forest: true},
	{name: "ar_probit", src: arProbit, x: []float64{0.7, -0.2}, forest: true},
	{name: "ar_loop", src: arLoop, x: []float64{0.7, -0.2}},
}

// arProbit learns an AR(1) coefficient and a drift from probit labels: EP sites on the chain
// with a learned coefficient in every conditional.
const arProbit = `
param a = 0.5
param d = 0.1
param q = 0.5
data y: spin[16] = [1, 1, 1, -1, 1, 1, -1, -1, -1, -1, 1, -1, -1, -1, 1, 1]
latent x: real[16]
x[0] ~ normal(0, 1)
for t in 1..16 {
  x[t] ~ normal(a * x[t - 1] + d, q)
}
for t in 0..16 {
  y[t] ~ probit(x[t])
}
learn a, d
infer ep { tol = 1e-12 }
`

// walkLong is a random walk of 5000 steps (more than the dense joint's
// 4000) observed in Gaussian noise (testdata/walk5000.csv: drawn with
// q = 0.01, r = 0.25): learned on the chain's messages.
const walkLong = `
param T = 5000
param q = 0.1
data y = csv("testdata/walk5000.csv", column = "y")
latent x: real[T]
x[0] ~ normal(0, 1)
for t in 1..T {
  x[t] ~ normal(x[t - 1], q)
}
for t in 0..T {
  y[t] ~ normal(x[t], 0.5)
}
learn q
infer ep { tol = 1e-12 }
`

// walkStep learns a random walk's variance and the eps of its step
// labels (a site parameter, at the sites' cavities). Only its gradient is
// checked: the evidence rises with eps up to where EP on the chain stalls
// (eps ≈ 0.2 here; the step likelihood is not log-concave).
const walkStep = `
param q = 0.3
param eps = 0.1
data y: spin[12] = [1, 1, -1, 1, 1, -1, -1, -1, 1, -1, 1, 1]
latent x: real[12]
x[0] ~ normal(0, 1)
for t in 1..12 {
  x[t] ~ normal(x[t - 1], q)
}
for t in 0..12 {
  y[t] ~ step(x[t], eps)
}
learn q, eps
infer ep { tol = 1e-12 }
`

// walkNormal is a linear-Gaussian random walk (data drawn with q = 0.04,
// r = 0.09): its evidence (Run's, for the golden-section search) is the
// Kalman filter's exact one.
const walkNormal = `
param T = 30
param q = 0.3
param r = 0.1
data y: real[30] = [-1.111, -1.179, -1.311, -0.866, -1.826, -1.155, -0.696, -1.093, -0.583, -0.995, -0.591, -0.722, -0.441, -0.367, -0.577, -1.123, -1.366, -1.458, -0.877, -1.09, -0.552, -0.659, -1.051, -0.88, -0.413, -0.124, -0.115, 0.228, 0.706, 0.312]
latent x: real[T]
x[0] ~ normal(0, 1)
for t in 1..T {
  x[t] ~ normal(x[t - 1], q)
}
for t in 0..T {
  y[t] ~ normal(x[t], r)
}
learn q, r
infer ep { tol = 1e-12 }
`

func compileFGCase(t *testing.T, file, src string, replace [2]string) *compile.Model {
	t.Helper()
	name := "walk_normal.fg"
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, src = file, string(b)
	}
	if replace[0] != "" {
		if !strings.Contains(src, replace[0]) {
			t.Fatalf("%s has no %q", name, replace[0])
		}
		src = strings.ReplaceAll(src, replace[0], replace[1])
		src = regexp.MustCompile(`(?m)^expect abs.*$`).ReplaceAllString(src, "")
	}
	m, err := compile.CompileSource(name, []byte(src), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.FactorGraph == nil || m.Blocks() != nil {
		t.Fatalf("%s did not compile to a factor graph", name)
	}
	return m
}

// runEvidence is log p(y) as `fg run` reports it for the model at learned
// values x: the model compiled again at x (without its learn statement)
// and run by its ep line on the factor graph (infer/fgraph: forward–
// backward on a chain, the dense joint with a GP block), independently of
// the block learn sees.
func runEvidence(t *testing.T, f *compile.LearnFunc, x []float64) float64 {
	t.Helper()
	m, err := f.Model(x)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), m, Options{})
	if err != nil || len(res) != 1 || res[0].Status != infer.Converged || !res[0].HasEvidence {
		t.Fatalf("run at %v: %v %+v", x, err, res)
	}
	return res[0].LogEvidence
}

// TestLearnFactorGraphGradient: the gradient learn uses on a factor graph
// against central differences (h = 1e-4·x, every param is positive) of the
// evidence ep reports on the graph at x ± h, to 1e-5 relative.
func TestLearnFactorGraphGradient(t *testing.T) {
	for _, c := range learnFGCases {
		t.Run(c.name, func(t *testing.T) {
			m := compileFGCase(t, c.file, c.src, c.replace)
			lm, err := learnView(m)
			if err != nil {
				t.Fatal(err)
			}
			if forest := len(lm.Blocks()) == 0; forest != c.forest {
				t.Fatalf("learned on the forest's messages: %v, want %v", forest, c.forest)
			}
			lb := testBuilder(t, m)
			checkGradient(t, lb, c.x)
		})
	}
}

// checkGradient checks learn's gradient at x against central differences
// (h = 10⁻⁴·x_k) of the evidence the model's run reports at x ± h, to 10⁻⁵
// relative (10⁻³ absolute near zero).
func checkGradient(t *testing.T, lb *learnBuilder, x []float64) {
	t.Helper()
	grad := adapterGradient(t, lb, x)
	for k := range x {
		h := 1e-4 * x[k]
		at := func(off float64) float64 {
			xx := append([]float64(nil), x...)
			xx[k] += off
			return runEvidence(t, lb.f, xx)
		}
		fd := (at(h) - at(-h)) / (2 * h)
		if !(math.Abs(grad[k]-fd) <= 1e-5*math.Max(math.Abs(fd), 1e-3)) {
			t.Errorf("∂/∂%s at %v: learn %.10g, central difference of the run's evidence %.10g", lb.params[k].Name, x, grad[k], fd)
		}
	}
}

// TestLearnFactorGraphOptimum: learn's optimum against a golden-section
// search of the run's evidence over each learned param (on its log, the
// others at their learned values: at a maximum every such slice is
// maximised there), to 1e-4 relative; the learned model's run reports the
// learned evidence (1e-6).
func TestLearnFactorGraphOptimum(t *testing.T) {
	for _, c := range learnFGCases {
		if c.noOptimum {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			m := compileFGCase(t, c.file, c.src, c.replace)
			m.Learn.Settings.Tol = 1e-8
			out, learned, trace, err := Learn(context.Background(), m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if out.FactorGraph == nil || out.Blocks() != nil || out.Learn != nil {
				t.Fatalf("learned model: factor graph %v, learn %v", out.FactorGraph != nil, out.Learn)
			}
			checkLearnedOptimum(t, m, learned, trace, nil, 1e-6, 1e-7, 1e-4)
		})
	}
}

// checkLearnedOptimum checks a learn run of model m against the evidence
// ev at fixed values of the learned params (nil: the model run at them,
// runEvidence): learned values carry no warning, ev at them reproduces
// learn's best evidence (trace holds −log Z) to evTol, and each value is
// the golden-section maximiser of ev along its own coordinate (search
// tolerance gsStep) to gsTol relative — on its log when it is positive,
// else on its own scale, relative to max(1, |value|).
func checkLearnedOptimum(t *testing.T, m *compile.Model, learned []infer.Learned, trace []float64, ev func([]float64) float64, evTol, gsStep, gsTol float64) {
	t.Helper()
	if ev == nil {
		f, err := m.LearnFunc()
		if err != nil {
			t.Fatal(err)
		}
		ev = func(x []float64) float64 { return runEvidence(t, f, x) }
	}
	x := make([]float64, len(learned))
	for i, l := range learned {
		x[i] = l.Value
		if l.Warning != "" {
			t.Errorf("%s: %s", l.Name, l.Warning)
		}
	}
	best := math.Inf(1)
	for _, v := range trace {
		best = math.Min(best, v)
	}
	if lz := ev(x); !(math.Abs(lz+best) <= evTol) {
		t.Errorf("evidence at the learned values: log Z %.12g, learn's best %.12g", lz, -best)
	}
	for k, l := range learned {
		to, from, scale := math.Exp, math.Log, l.Value
		if !(l.Value > 0) {
			to, from, scale = func(u float64) float64 { return u }, func(v float64) float64 { return v }, math.Max(1, math.Abs(l.Value))
		}
		slice := func(u float64) float64 {
			xx := append([]float64(nil), x...)
			xx[k] = to(u)
			return ev(xx)
		}
		u := goldenMax(slice, from(l.Value)-1, from(l.Value)+1, gsStep)
		if gs := to(u); !(math.Abs(gs-l.Value) <= gsTol*scale) {
			t.Errorf("%s: learned %.8g, golden-section maximum of the evidence %.8g", l.Name, l.Value, gs)
		}
	}
}

// goldenMax returns the maximiser of a unimodal f on [a, b] to tol by
// golden-section search.
func goldenMax(f func(float64) float64, a, b, tol float64) float64 {
	r := (math.Sqrt(5) - 1) / 2
	c, d := b-r*(b-a), a+r*(b-a)
	fc, fd := f(c), f(d)
	for b-a > tol {
		if fc > fd {
			b, d, fd = d, c, fc
			c = b - r*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + r*(b-a)
			fd = f(d)
		}
	}
	return (a + b) / 2
}
