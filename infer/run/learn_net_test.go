package run

import (
	"context"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/families"
)

// learnNetCases are typed-factor-graph models learn works on: a Beta
// prior's pseudo-count (closed form below), a Beta prior's two
// pseudo-counts shared by twelve groups of binomial counts (empirical
// Bayes; EP and VMP are exact there, each group being conjugate), and a
// Gamma prior's rate on a Gaussian's precision whose mean is unknown too
// (mean field: EP and VMP are approximations, with different evidences).
// x are the points of the gradient check.
var learnNetCases = []struct {
	name, src string
	x         []float64
	noOptimum bool // only the gradient is checked
	long      bool // the optimum is not checked under -short
}{
	{name: "coin", src: netCoin, x: []float64{3}},
	{name: "groups_kl", src: netGroups("kl"), x: []float64{1.2, 2.5}},
	{name: "groups_vmp", src: netGroups("alpha(0)"), x: []float64{1.2, 2.5}},
	{name: "meanprec_kl", src: netMeanPrec("kl"), x: []float64{1.4, 0.7}},
	{name: "meanprec_power", src: netMeanPrec("alpha(0.5)"), x: []float64{1.4, 0.7}},
	{name: "meanprec_vmp", src: netMeanPrec("alpha(0)"), x: []float64{1.4, 0.7}},
	{name: "shape_kl", src: netShape("kl"), x: []float64{2.5}},
	{name: "shape_vmp", src: netShape("alpha(0)"), x: []float64{2.5}},
	{name: "hmm_kl", src: netHMM("kl", "learn c, s, p0 in [0.01, 0.5]"), x: []float64{2.5, 0.2, 0.4}, noOptimum: true},
	{name: "hmm_vmp", src: netHMM("alpha(0)", "learn c, s, p0 in [0.01, 0.5]"), x: []float64{2.5, 0.2, 0.4}, noOptimum: true},
	{name: "hmm_cs_kl", src: netHMM("kl", "learn c, s"), x: []float64{2.5, 0.2}},
	{name: "hmm_cs_vmp", src: netHMM("alpha(0)", "learn c, s"), x: []float64{2.5, 0.2}},
	// A learned coefficient and constant of an affine mean of latents
	// (graph.NetFactor.Affine): b * mu + c with a latent precision.
	{name: "affine_b_kl", src: netAffine("kl", "learn b"), x: []float64{0.7}},
	{name: "affine_c_kl", src: netAffine("kl", "learn c"), x: []float64{0.4}},
	{name: "affine_b_vmp", src: netAffine("alpha(0)", "learn b"), x: []float64{0.7}},
	{name: "affine_c_power", src: netAffine("alpha(0.5)", "learn c"), x: []float64{-0.4}},
	// The start b = 1, c = 0 compiles to a variable edge (b * mu + c is mu).
	{name: "affine_unit_kl", src: strings.Replace(netAffine("kl", "learn b"), "param c = 0.5", "param c = 0", 1), x: []float64{1}},
	{name: "calibration", src: netCalibration, x: []float64{1.2, -0.9}, long: true},
}

// netAffine learns the gain b or the offset c of y[i] ~ normal(b * mu + c,
// 1 / tau) with mu ~ normal(0, 10) and tau ~ gamma(2, 2) (the mean and
// precision of examples/families/mean_precision.fg, seen through an
// affine map).
func netAffine(div, learn string) string {
	return `
param b = 1
param c = 0.5
data y = [1.2, 0.4, 2.1, 1.6, 0.9, 1.3, 2.4, 0.7]
latent mu: real ~ normal(0, 10)
latent tau: real ~ gamma(2, 2)
for i in 0..8 {
  y[i] ~ normal(b * mu + c, 1 / tau)
}
` + learn + `
infer ep { divergence = ` + div + `, tol = 1e-12 }
`
}

// netCalibration is examples/families/learn_calibration.fg (an
// instrument's gain and offset against a reference) without its vmp line:
// its evidence is the ep line's.
var netCalibration = func() string {
	b, err := os.ReadFile("../../examples/families/learn_calibration.fg")
	if err != nil {
		return err.Error()
	}
	return regexp.MustCompile(`(?m)^infer ep as vmp.*$`).ReplaceAllString(string(b), "")
}()

// netHMM learns a hidden Markov model's Dirichlet concentration c, its
// emission variance s and its initial probability p0
// (examples/families/hmm.fg): discrete variables with sum-product
// messages, a categorical prior's probability vector as data. With one
// sequence the evidence rises with p0 up to its bound (the first state is
// clear), so only the gradient is checked in p0.
func netHMM(div, learn string) string {
	return `
data y = [-1.1, -0.8, -1.3, 0.9, 1.2, 0.7, 1.1, -0.9, -1.2, 1.0]
param c = 3
param s = 0.3
param p0 = 0.3
latent A: real[2, 2]
A[0] ~ dirichlet([c, 1])
A[1] ~ dirichlet([1, c])
latent mu: real[2] ~ normal([-1, 1], 1)
latent z: cat(2)[10]
z[0] ~ categorical([p0, 1 - p0])
for t in 1..10 {
  z[t] ~ categorical(A[z[t - 1]])
}
for t in 0..10 {
  y[t] ~ normal(mu[z[t]], s)
}
` + learn + `
infer ep { divergence = ` + div + `, tol = 1e-12 }
`
}

// netShape learns the shape s of the group rates' Gamma(s, beta0), whose
// rate beta0 is a latent (examples/families/poisson_gamma.fg): the factor
// touches two variables, so under EP its tilted distribution is not q and
// its term's derivative comes from the kind's EP rule (quadrature in the
// latent rate).
func netShape(div string) string {
	return `
data g = [0, 0, 0, 1, 1, 2, 2, 2, 2, 3]
data y = [4, 6, 5, 1, 0, 9, 7, 11, 8, 2]
param s = 3
latent beta0: real ~ gamma(2, 1)
latent rate: real[4]
for j in 0..4 {
  rate[j] ~ gamma(s, beta0)
}
for i in 0..10 {
  y[i] ~ poisson(rate[g[i]])
}
learn s
infer ep { divergence = ` + div + `, tol = 1e-12 }
`
}

// netCoin: p ~ Beta(a, 2), five ones and two zeros.
const netCoin = `
data y = [1, 0, 1, 1, 1, 0, 1]
param a = 2
latent p: real ~ beta(a, 2)
for i in 0..7 { y[i] ~ bernoulli(p) }
learn a in [0.1, 50]
infer ep { tol = 1e-12 }
`

func netGroups(div string) string {
	return `
data n = [20, 25, 18, 30, 20, 22, 19, 24, 20, 26, 21, 20]
data y = [1, 3, 12, 5, 15, 2, 8, 10, 4, 17, 6, 9]
param a = 1
param b = 1
latent p: real[12]
for j in 0..12 {
  p[j] ~ beta(a, b)
  y[j] ~ binomial(n[j], p[j])
}
learn a, b
infer ep { divergence = ` + div + `, tol = 1e-12 }
`
}

func netMeanPrec(div string) string {
	return `
data x = [1.2, 2.9, 0.4, 2.2, 1.7, 3.1, 0.8, 2.5]
param b = 1
param v = 1
latent tau: real ~ gamma(2, b)
latent mu: real ~ normal(0, v)
for i in 0..8 { x[i] ~ normal(mu, 1 / tau) }
learn b, v
infer ep { divergence = ` + div + `, tol = 1e-12 }
`
}

func compileNetCase(t *testing.T, src string) *compile.Model {
	t.Helper()
	m, err := compile.CompileSource("learn_net.fg", []byte(src), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Net == nil {
		t.Fatal("the model did not compile to a typed factor graph")
	}
	return m
}

// TestLearnNetGradient: the gradient learn uses on a typed factor graph
// (infer/mp's at the converged messages, times the recompiled data's
// central differences) against central differences (h = 10⁻⁴·x) of the
// evidence the model's ep line reports at x ± h, converged to 10⁻¹²,
// to 10⁻⁵ relative.
func TestLearnNetGradient(t *testing.T) {
	for _, c := range learnNetCases {
		t.Run(c.name, func(t *testing.T) {
			lb := testBuilder(t, compileNetCase(t, c.src))
			checkGradient(t, lb, c.x)
		})
	}
}

// TestLearnNetOptimum: learn's optimum against a golden-section search of
// the evidence the model's ep line reports, over each learned param (on
// its log, the others at their learned values), to 10⁻⁵ relative; the
// learned model's run reports learn's best evidence (10⁻⁸).
func TestLearnNetOptimum(t *testing.T) {
	for _, c := range learnNetCases {
		if c.noOptimum || (c.long && testing.Short()) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			m := compileNetCase(t, c.src)
			m.Learn.Settings.Tol = 1e-9
			out, learned, trace, err := Learn(context.Background(), m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Net == nil || out.Learn != nil {
				t.Fatalf("learned model: Net %v, learn %v", out.Net != nil, out.Learn)
			}
			checkLearnedOptimum(t, m, learned, trace, nil, 1e-8, 1e-8, 1e-5)
		})
	}
}

// TestLearnNetBetaBernoulli: the coin's learned pseudo-count a against the
// maximiser of its closed-form evidence log B(a + 5, 4) − log B(a, 2),
// the root of ψ(a + 5) − ψ(a + 9) − ψ(a) + ψ(a + 2) found by bisection
// (10⁻⁶ relative), under EP (kl) and VMP (alpha(0)): both are exact on
// one conjugate latent.
func TestLearnNetBetaBernoulli(t *testing.T) {
	dg := families.Digamma
	deriv := func(a float64) float64 { return dg(a+5) - dg(a+9) - dg(a) + dg(a+2) }
	lo, hi := 0.1, 50.0
	if !(deriv(lo) > 0 && deriv(hi) < 0) {
		t.Fatalf("no sign change: %g %g", deriv(lo), deriv(hi))
	}
	for hi-lo > 1e-13*hi {
		if mid := (lo + hi) / 2; deriv(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	want := (lo + hi) / 2
	for _, div := range []string{"kl", "alpha(0)"} {
		src := netCoin[:len(netCoin)-len("infer ep { tol = 1e-12 }\n")] + "infer ep { divergence = " + div + " }\n"
		if got := learnNet(t, src)[0]; !(math.Abs(got-want) <= 1e-6*want) {
			t.Errorf("%s: learned a = %.10g, closed-form maximiser %.10g", div, got, want)
		}
	}
}

// TestLearnNetGroupsClosedForm: the groups' learned Beta(a, b) against
// the maximiser of the beta-binomial marginal likelihood
// Σ_j log B(a + y_j, b + n_j − y_j) − log B(a, b) (the type-II maximum
// likelihood), found by Newton's method on its gradient with digamma and
// trigamma (10⁻⁶ relative).
func TestLearnNetGroupsClosedForm(t *testing.T) {
	n := []float64{20, 25, 18, 30, 20, 22, 19, 24, 20, 26, 21, 20}
	y := []float64{1, 3, 12, 5, 15, 2, 8, 10, 4, 17, 6, 9}
	dg, tg := families.Digamma, families.Trigamma
	a, b := 1.5, 3.0
	for range 100 {
		var ga, gb, haa, hbb, hab float64
		for j := range n {
			f := n[j] - y[j]
			ga += dg(a+y[j]) - dg(a+b+n[j]) - dg(a) + dg(a+b)
			gb += dg(b+f) - dg(a+b+n[j]) - dg(b) + dg(a+b)
			c := -tg(a+b+n[j]) + tg(a+b)
			haa += tg(a+y[j]) - tg(a) + c
			hbb += tg(b+f) - tg(b) + c
			hab += c
		}
		det := haa*hbb - hab*hab
		a -= (hbb*ga - hab*gb) / det
		b -= (haa*gb - hab*ga) / det
	}
	learned := learnNet(t, netGroups("kl"))
	for i, want := range []float64{a, b} {
		if got := learned[i]; !(math.Abs(got-want) <= 1e-6*want) {
			t.Errorf("param %d = %.10g, the beta-binomial maximiser %.10g", i, got, want)
		}
	}
}

// TestLearnNetGammaPoisson: a Gamma(α, β) prior's rate β on a Poisson
// rate with counts y₁..y_N; the marginal likelihood α log β − (α + S)
// log(β + N) + const (S = Σ y) is maximal at β = αN/S (10⁻⁶ relative),
// under EP and VMP (both exact on one conjugate latent).
func TestLearnNetGammaPoisson(t *testing.T) {
	const alpha, N, S = 2.5, 6.0, 23.0
	want := alpha * N / S
	for _, div := range []string{"kl", "alpha(0)"} {
		src := `
data y = [3, 5, 2, 6, 4, 3]
param beta = 1
latent lam: real ~ gamma(2.5, beta)
for i in 0..6 { y[i] ~ poisson(lam) }
learn beta
infer ep { divergence = ` + div + ` }
`
		if got := learnNet(t, src)[0]; !(math.Abs(got-want) <= 1e-6*want) {
			t.Errorf("%s: learned beta = %.10g, closed form αN/S = %.10g", div, got, want)
		}
	}
}

// learnNet returns the values learn finds on src at gradient tolerance
// 10⁻⁹.
func learnNet(t *testing.T, src string) []float64 {
	t.Helper()
	m := compileNetCase(t, src)
	m.Learn.Settings.Tol = 1e-9
	_, learned, _, err := Learn(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(learned))
	for i, l := range learned {
		out[i] = l.Value
	}
	return out
}

// TestLearnNetAffineClosedForm: a learned gain b and offset c of
// y_i ~ N(b μ + c, σ²), μ ~ N(0, v0), beside a Gamma–Poisson pair that
// makes the model a typed factor graph. The y part is linear-Gaussian and
// its latent is one scalar, so EP (kl) and VMP (alpha(0)) are exact: its
// evidence is log N(y; c·1, σ² I + v0 b² 11ᵀ), which with ȳ the mean of
// the n observations is maximal at c = ȳ for any b, and for fixed c at
// v0 b² = (ȳ − c)² − σ²/n (setting its derivative in s = v0 b² to zero,
// n/(σ² + n s) = n² (ȳ − c)²/(σ² + n s)²). Learned to 1e-6 relative.
func TestLearnNetAffineClosedForm(t *testing.T) {
	y := []float64{1.2, 0.4, 2.1, 1.6, 0.9, 1.3, 2.4, 0.7}
	const s2, v0, c0 = 0.5, 10.0, 0.5
	var ybar float64
	for _, v := range y {
		ybar += v / float64(len(y))
	}
	src := func(div, learn string) string {
		return `
param b = 1
param c = 0.5
data y = ` + fmtList(y) + `
data k = [3, 1, 4]
latent mu: real ~ normal(0, 10)
latent lam: real ~ gamma(2, 1)
for i in 0..8 {
  y[i] ~ normal(b * mu + c, 0.5)
}
for j in 0..3 {
  k[j] ~ poisson(lam)
}
` + learn + `
infer ep { divergence = ` + div + `, tol = 1e-12 }
`
	}
	wantB := math.Sqrt(((ybar-c0)*(ybar-c0) - s2/float64(len(y))) / v0)
	for _, div := range []string{"kl", "alpha(0)"} {
		if got := learnNet(t, src(div, "learn b"))[0]; !(math.Abs(got/wantB-1) <= 1e-6) {
			t.Errorf("%s: learned b = %.10g, closed form %.10g", div, got, wantB)
		}
		if got := learnNet(t, src(div, "learn c"))[0]; !(math.Abs(got/ybar-1) <= 1e-6) {
			t.Errorf("%s: learned c = %.10g, closed form ȳ = %.10g", div, got, ybar)
		}
	}
}
