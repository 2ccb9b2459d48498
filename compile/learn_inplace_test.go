package compile

import (
	"maps"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
)

// learnInPlaceSrc is a factor graph in which learned params reach every
// kind of number learning sets in place: a conditional's coefficient
// (through a dependent param), its constant (varying with the plate
// variable) and variance, conditionals whose variance alone is learned
// (reading the plate variable or not), the mean and variance of whole-latent normal
// priors, a dense gp prior's kernel, a step site's eps and a Gaussian
// observation's variance (sites on affine forms over two latents).
const learnInPlaceSrc = `
data X: real[5, 1] = [[0], [1], [2], [3], [4]]
data y: spin[5] = [1, -1, 1, 1, -1]
data r: real[6] = [0.1, 0.4, -0.2, 0.5, 0.3, 0.0]
param la = -1
param a = exp(la)
param d = 0.2
param q = 0.3
param ell = 1
param eps = 0.1
param s = 0.5
latent f: real[5] ~ gp(se(ell, 1), X)
latent b: real ~ normal(0, s)
latent u: real[3] ~ normal(d, s)
latent x: real[6]
latent z: real[6]
latent w: real[6]
x[0] ~ normal(0, 1)
z[0] ~ normal(0, 1)
w[0] ~ normal(0, 1)
for t in 1..6 {
  x[t] ~ normal(a * x[t - 1] + d * t, q)
  z[t] ~ normal(z[t - 1] + 0.5, q * t)
  w[t] ~ normal(w[t - 1], s)
}
for i in 0..5 {
  y[i] ~ step(f[i] + b, eps)
}
for t in 0..6 {
  r[t] ~ normal(x[t] + u[1] + z[t] + w[t], q)
}
learn la, d, q, ell, eps, s
infer ep
`

// TestLearnFuncSetsGraphInPlace: LearnFunc.At sets the learned values in
// a copy of the compiled factor graph, at the first value and in place at
// the next ones, without compiling; the graph it holds then has the
// numbers of the model compiled again at those values bit for bit — every
// linear-Gaussian factor's variables, coefficients, constant and
// variance, every site's likelihood and parameters, the dense prior's
// kernel and covariance — and the compiled model is unchanged.
func TestLearnFuncSetsGraphInPlace(t *testing.T) {
	m, f := learnFuncAt(t, learnInPlaceSrc, []float64{-1, 0.2, 0.3, 1, 0.1, 0.5})
	if m.FactorGraph == nil || m.Blocks() != nil {
		t.Fatal("not a factor graph")
	}
	// A plate's statements that read no plate variable where they are
	// evaluated again are one slot (w's variance, the sites' eps and q);
	// the others one per iteration (x's mean, z's variance q·t).
	if r := f.st.rec; len(r.conds) != 11 || len(r.sites) != 2 {
		t.Errorf("%d conditional and %d site slots; want 5 + 5 + 1 and 2", len(r.conds), len(r.sites))
	}
	for _, x := range [][]float64{{-0.4, -0.3, 0.07, 0.6, 0.2, 1.3}, {0.2, 0, 2, 3, 0.01, 0.02}} {
		got, want := atAndCompiled(t, f, x, 0)
		sameNumbers(t, got.FactorGraph, want.FactorGraph)
	}
	unchanged(t, m, learnInPlaceSrc)
}

// learnFuncAt compiles src and returns it with its LearnFunc, evaluated
// once at x0 (the first value: the one compiled).
func learnFuncAt(t *testing.T, src string, x0 []float64) (*Model, *LearnFunc) {
	t.Helper()
	m, err := CompileSource("inplace.fg", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.LearnFunc()
	if err != nil {
		t.Fatal(err)
	}
	before := Compiles()
	if _, err := f.At(x0, false); err != nil {
		t.Fatal(err)
	}
	if n := Compiles() - before; n != 0 {
		t.Fatalf("the first value compiled the model %d times; want a copy of it set there", n)
	}
	return m, f
}

// unchanged checks that m, whose copy LearnFunc set in place, still holds
// the numbers src compiles to.
func unchanged(t *testing.T, m *Model, src string) {
	t.Helper()
	fresh, err := CompileSource("inplace.fg", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.FactorGraph != nil {
		sameNumbers(t, m.FactorGraph, fresh.FactorGraph)
	}
	if m.Net != nil {
		for i := range fresh.Net.Factors {
			g, w := &m.Net.Factors[i], &fresh.Net.Factors[i]
			if !sameBits(g.Data(), w.Data()) || !sameBits(g.Affine(), w.Affine()) {
				t.Errorf("the compiled model's %s changed: data %v affine %v, compiled %v %v", w.Label, g.Data(), g.Affine(), w.Data(), w.Affine())
			}
		}
	}
}

// atAndCompiled returns f at x, checking that it compiled the model
// compiles times (0: set in place), and the model compiled again at x.
func atAndCompiled(t *testing.T, f *LearnFunc, x []float64, compiles int64) (got, want *Model) {
	t.Helper()
	before := Compiles()
	got, err := f.At(x, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := Compiles() - before; n != compiles || f.InPlace(got) != (compiles == 0) {
		t.Fatalf("At(%v) compiled %d times (in place: %v), want %d", x, n, f.InPlace(got), compiles)
	}
	if want, err = f.Model(x); err != nil {
		t.Fatal(err)
	}
	return got, want
}

// sameNumbers compares two factor graphs' factors bit for bit.
func sameNumbers(t *testing.T, got, want *FactorGraph) {
	t.Helper()
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	if got.NumGaussians() != want.NumGaussians() || got.NumSites() != want.NumSites() || len(got.Dense) != len(want.Dense) {
		t.Fatalf("%d/%d/%d factors, want %d/%d/%d", got.NumGaussians(), got.NumSites(), len(got.Dense), want.NumGaussians(), want.NumSites(), len(want.Dense))
	}
	for i := range want.NumGaussians() {
		g, w := got.Gaussian(i), want.Gaussian(i)
		if !slices.Equal(g.Aff.Vars, w.Aff.Vars) || !slices.Equal(g.Aff.Coefs, w.Aff.Coefs) || !same(g.Aff.Const, w.Aff.Const) || !same(g.Var, w.Var) {
			t.Errorf("%s: %+v var %v, compiled again %+v var %v", w.Label, g.Aff, g.Var, w.Aff, w.Var)
		}
	}
	for i := range want.NumSites() {
		g, w := got.Site(i), want.Site(i)
		if g.Shared.Lik != w.Shared.Lik || !maps.Equal(g.Shared.Lik.Params(), w.Shared.Lik.Params()) || !same(g.Y, w.Y) {
			t.Errorf("%s: %#v %v, compiled again %#v %v", w.Label, g.Shared.Lik, g.Shared.Lik.Params(), w.Shared.Lik, w.Shared.Lik.Params())
		}
	}
	for i, w := range want.Dense {
		g := got.Dense[i]
		if !slices.Equal(g.Prior.Kernel.Hyper, w.Prior.Kernel.Hyper) || !mat.Equal(g.Prior.Cov, w.Prior.Cov) || !slices.Equal(g.Prior.Mean, w.Prior.Mean) {
			t.Errorf("%s: kernel %v, compiled again %v (or its Gram matrix differs)", w.Name, g.Prior.Kernel.Hyper, w.Prior.Kernel.Hyper)
		}
	}
}

// learnInPlaceNetSrc is a typed factor graph in which learned params reach
// a beta prior's pseudo-counts (one through a dependent param), a
// Dirichlet concentration, a categorical prior's probabilities, a known
// variance of likelihoods whose mean a discrete latent selects, and the
// coefficient and constant of an affine mean.
const learnInPlaceNetSrc = `
data y = [-1.1, -0.8, -1.3, 0.9, 1.2, 0.7]
data k = [1, 0, 1, 1]
data r = [1.2, 0.4, 2.1]
param la = 0
param a = exp(la)
param c = 3
param s = 0.3
param p0 = 0.3
param g = 1
param o = 0.5
latent p: real ~ beta(a, 2)
latent A: real[2, 2]
A[0] ~ dirichlet([c, 1])
A[1] ~ dirichlet([1, c])
latent mu: real[2] ~ normal([-1, 1], 1)
latent z: cat(2)[6]
z[0] ~ categorical([p0, 1 - p0])
for t in 1..6 {
  z[t] ~ categorical(A[z[t - 1]])
}
for t in 0..6 {
  y[t] ~ normal(mu[z[t]], s)
}
for i in 0..4 {
  k[i] ~ bernoulli(p)
}
latent m: real ~ normal(0, 10)
latent tau: real ~ gamma(2, 2)
for i in 0..3 {
  r[i] ~ normal(g * m + o, 1 / tau)
}
learn la, c, s, p0 in [0.01, 0.5], g, o
infer ep
`

// TestLearnFuncSetsNetInPlace: as TestLearnFuncSetsGraphInPlace on a
// typed factor graph: every factor's data and affine numbers, set in place
// at new values without compiling, equal the model's compiled again there
// bit for bit, and the compiled model is unchanged.
func TestLearnFuncSetsNetInPlace(t *testing.T) {
	m, f := learnFuncAt(t, learnInPlaceNetSrc, []float64{0, 3, 0.3, 0.3, 1, 0.5})
	if m.Net == nil {
		t.Fatal("not a typed factor graph")
	}
	for _, x := range [][]float64{{0.4, 1.7, 0.05, 0.2, 1.3, -0.6}, {-2, 9, 2, 0.45, -0.2, 3}} {
		got, want := atAndCompiled(t, f, x, 0)
		if len(got.Net.Factors) != len(want.Net.Factors) {
			t.Fatalf("%d factors, compiled again %d", len(got.Net.Factors), len(want.Net.Factors))
		}
		moved := 0
		for i := range want.Net.Factors {
			g, w := &got.Net.Factors[i], &want.Net.Factors[i]
			if !sameBits(g.Data(), w.Data()) || !sameBits(g.Affine(), w.Affine()) {
				t.Errorf("%s: data %v affine %v, compiled again %v %v", w.Label, g.Data(), g.Affine(), w.Data(), w.Affine())
			}
			if !sameBits(g.Data(), first0(m, i).Data()) || !sameBits(g.Affine(), first0(m, i).Affine()) {
				moved++
			}
		}
		if moved < 6 {
			t.Errorf("%d factors moved; the learned params reach at least 6", moved)
		}
	}
	unchanged(t, m, learnInPlaceNetSrc)
}

// first0 is factor i of m's Net (the model as compiled from source).
func first0(m *Model, i int) *graph.NetFactor { return &m.Net.Factors[i] }

// TestLearnFuncSharedSitesCompiledAgain: the sites of one plate statement
// share one likelihood record while their values agree (eps·i + ¼(1 − i)
// is ¼ for every i at eps = ¼); at a value where they differ LearnFunc
// compiles the model again, then and from then on, and its numbers are
// those of the model compiled again.
func TestLearnFuncSharedSitesCompiledAgain(t *testing.T) {
	src := `
data X: real[4, 1] = [[0], [1], [2], [3]]
data y: spin[4] = [1, -1, 1, 1]
param eps = 0.25
latent f: real[4] ~ gp(se(1, 1), X)
latent b: real ~ normal(0, 1)
for i in 0..4 {
  y[i] ~ step(f[i] + b, eps * i + 0.25 * (1 - i))
}
learn eps
infer ep
`
	_, f := learnFuncAt(t, src, []float64{0.25})
	for _, x := range []float64{0.2, 0.22} {
		got, want := atAndCompiled(t, f, []float64{x}, 1)
		sameNumbers(t, got.FactorGraph, want.FactorGraph)
	}
}

// TestLearnValuesCounted: LearnFunc's entries refuse a wrong number of
// learned values with an error, not a panic (GraphTangents indexed past x).
func TestLearnValuesCounted(t *testing.T) {
	m, f := learnFuncAt(t, learnInPlaceSrc, []float64{-1, 0.2, 0.3, 1, 0.1, 0.5})
	want := "learn: 2 values for 6 learned params"
	x := []float64{1, 2}
	if _, err := f.At(x, false); err == nil || err.Error() != want {
		t.Errorf("At: %v; want %q", err, want)
	}
	if _, err := f.GraphTangents(x, m.FactorGraph); err == nil || err.Error() != want {
		t.Errorf("GraphTangents: %v; want %q", err, want)
	}
}
