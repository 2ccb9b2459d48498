package run

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/datadir"
)

// fitcLearnModel is GPML's FITC probit case synth_ripley_fitc16 (n = 250,
// m = 16 inducing inputs from xu.csv) with KERNEL and LEARN substituted.
const fitcLearnModel = `
param log_ell = -1
param log_sf = 0.5
param ell = 0.4
param sf2 = 2
data X = csv("synth_ripley_fitc16/train.csv", exclude = ["label"])
data y: spin[len(X)] = csv("synth_ripley_fitc16/train.csv", column = "label")
data Z = csv("synth_ripley_fitc16/xu.csv")
latent f: real[len(X)] ~ gp(KERNEL, X, inducing = Z)
for i in 0..len(X) {
  y[i] ~ probit(f[i])
}
infer ep
LEARN
`

func compileFITCLearn(t *testing.T, kernel, learnLine string) *compile.Model {
	t.Helper()
	r := strings.NewReplacer("KERNEL", kernel, "LEARN", learnLine)
	m, err := compile.CompileSource("fitc_learn.fg", []byte(r.Replace(fitcLearnModel)), compile.Options{BaseDir: datadir.Path("reference", "gpml_fitc")})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fitcEvidenceAt recompiles the model at x and returns its FITC log Z_EP,
// from infer/ep's RunFITC on the recompiled prior (independent of the
// learn adapter's derivatives).
func fitcEvidenceAt(t *testing.T, lb *learnBuilder, x []float64) float64 {
	t.Helper()
	mx, err := lb.m.Recompile(lb.set(x))
	if err != nil {
		t.Fatal(err)
	}
	b := mx.Blocks()[0]
	p, err := fitcProblem(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range b.Sites {
		lik, _ := siteLik(s)
		p.Sites = append(p.Sites, ep.Site{Lik: lik, Y: s.Y, Index: s.Index})
	}
	res, err := ep.RunFITC(context.Background(), p, tightEP)
	if err != nil || !res.HasLogZ {
		t.Fatalf("FITC EP at %v: %v", x, err)
	}
	return res.LogZ
}

// testBuilder is newLearnBuilder's builder of the compiled model m.
func testBuilder(t *testing.T, m *compile.Model) *learnBuilder {
	t.Helper()
	lb, err := newLearnBuilder(m)
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

// TestLearnFITCGradient compares the adapter's FITC gradient (chain rule
// through compile.LearnFunc and the kernel, FITCResult.GradLogZ) with
// central differences (h = 1e-4) of log Z_EP from recompiled models, for
// params entering through exp(), directly, and through a sum kernel whose
// bias term makes GPML's jitter depend on the param too.
func TestLearnFITCGradient(t *testing.T) {
	cases := []struct {
		name, kernel, learn string
		x                   []float64
	}{
		{"exp", "se(exp(log_ell), exp(2 * log_sf))", "learn log_ell, log_sf", []float64{-0.7, 0.3}},
		{"direct", "se(ell, sf2)", "learn ell, sf2", []float64{0.5, 1.5}},
		{"sum", "se(ell, sf2) + bias(sf2 / 4)", "learn ell, sf2", []float64{0.6, 0.8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lb := testBuilder(t, compileFITCLearn(t, c.kernel, c.learn))
			blocks, err := lb.build(c.x)
			if err != nil {
				t.Fatal(err)
			}
			fb := blocks[0].FITC
			if fb == nil {
				t.Fatal("no FITC block")
			}
			res, err := ep.RunFITC(context.Background(), fb.Problem, tightEP)
			if err != nil || !res.HasLogZ {
				t.Fatalf("FITC EP: %v", err)
			}
			for k := range c.x {
				g, err := res.GradLogZ([]ep.FITCDeriv{*fb.D[k]})
				if err != nil {
					t.Fatal(err)
				}
				h := 1e-4 * math.Max(1, math.Abs(c.x[k]))
				at := func(off float64) float64 {
					xx := append([]float64(nil), c.x...)
					xx[k] += off
					return fitcEvidenceAt(t, lb, xx)
				}
				fd := (at(h) - at(-h)) / (2 * h)
				if !(math.Abs(g[0]-fd) <= 1e-5*math.Max(math.Abs(fd), 1e-3)) {
					t.Errorf("∂/∂%s: adapter %.10g, finite difference %.10g", lb.params[k].Name, g[0], fd)
				}
			}
		})
	}
}

// TestLearnFITCOptimum learns log_ell of the FITC model (log_sf fixed) and
// compares it with the maximiser of log Z_EP found independently: a grid
// over [-3, 2] in steps of 0.25, refined by golden-section search on
// recompiled models to 1e-6. The learned value must agree to 1e-3 and its
// evidence to 1e-6; the model returned must carry the learned value.
func TestLearnFITCOptimum(t *testing.T) {
	m := compileFITCLearn(t, "se(exp(log_ell), exp(2 * log_sf))", "learn log_ell")
	out, learned, trace, err := Learn(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lb := testBuilder(t, m)
	f := func(x float64) float64 { return fitcEvidenceAt(t, lb, []float64{x}) }
	best, bestF := 0.0, math.Inf(-1)
	for x := -3.0; x <= 2; x += 0.25 {
		if v := f(x); v > bestF {
			best, bestF = x, v
		}
	}
	a, b := best-0.25, best+0.25
	r := (math.Sqrt(5) - 1) / 2
	for b-a > 1e-6 {
		c, d := b-r*(b-a), a+r*(b-a)
		if f(c) > f(d) {
			b = d
		} else {
			a = c
		}
	}
	want := (a + b) / 2
	got := learned[0].Value
	t.Logf("learned log_ell %.6f (−log Z %.8f), golden section %.6f (−log Z %.8f), %d evaluations", got, trace[len(trace)-1], want, -f(want), len(trace))
	if !(math.Abs(got-want) <= 1e-3) {
		t.Errorf("learned log_ell %.6f, grid/golden-section maximiser %.6f", got, want)
	}
	if lz := f(got); !(math.Abs(lz-f(want)) <= 1e-6) {
		t.Errorf("log Z at the learned value %.10g, at the maximiser %.10g", lz, f(want))
	}
	if out.Learn != nil || out.Params["log_ell"].Num[0] != got {
		t.Errorf("the returned model does not carry the learned log_ell")
	}
}
