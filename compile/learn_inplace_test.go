package compile

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// learnInPlaceSrc is a factor graph in which learned params reach every
// kind of number learning sets in place: a conditional's coefficient
// (through a dependent param), its constant (varying with the plate
// variable) and variance, a conditional whose variance alone is learned, the mean and variance of whole-latent normal
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
x[0] ~ normal(0, 1)
z[0] ~ normal(0, 1)
for t in 1..6 {
  x[t] ~ normal(a * x[t - 1] + d * t, q)
  z[t] ~ normal(z[t - 1] + 0.5, q * t)
}
for i in 0..5 {
  y[i] ~ step(f[i] + b, eps)
}
for t in 0..6 {
  r[t] ~ normal(x[t] + u[1] + z[t], q)
}
learn la, d, q, ell, eps, s
infer ep
`

// TestLearnFuncSetsGraphInPlace: LearnFunc.At compiles a factor graph at
// the first value and sets the next values in place, without compiling
// again; the graph it holds then has the numbers of the model compiled
// again at those values bit for bit — every linear-Gaussian factor's
// variables, coefficients, constant and variance, every site's likelihood
// and parameters, the dense prior's kernel and covariance.
func TestLearnFuncSetsGraphInPlace(t *testing.T) {
	m, err := CompileSource("inplace.fg", []byte(learnInPlaceSrc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.FactorGraph == nil {
		t.Fatal("not a factor graph")
	}
	f, err := m.LearnFunc()
	if err != nil {
		t.Fatal(err)
	}
	first, err := f.At([]float64{-1, 0.2, 0.3, 1, 0.1, 0.5}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{{-0.4, -0.3, 0.07, 0.6, 0.2, 1.3}, {0.2, 0, 2, 3, 0.01, 0.02}} {
		before := Compiles()
		got, err := f.At(x, false)
		if err != nil {
			t.Fatal(err)
		}
		if n := Compiles() - before; n != 0 || got != first || !f.InPlace(got) {
			t.Fatalf("At(%v) compiled %d times (in place: %v)", x, n, f.InPlace(got))
		}
		want, err := f.Model(x)
		if err != nil {
			t.Fatal(err)
		}
		sameNumbers(t, got.FactorGraph, want.FactorGraph)
	}
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
		if g.Shared.Lik != w.Shared.Lik || !mapsEqual(g.Shared.Params, w.Shared.Params) || !same(g.Y, w.Y) {
			t.Errorf("%s: %#v %v, compiled again %#v %v", w.Label, g.Shared.Lik, g.Shared.Params, w.Shared.Lik, w.Shared.Params)
		}
	}
	for i, w := range want.Dense {
		g := got.Dense[i]
		if !slices.Equal(g.Prior.Kernel.Hyper, w.Prior.Kernel.Hyper) || !mat.Equal(g.Prior.Cov, w.Prior.Cov) || !slices.Equal(g.Prior.Mean, w.Prior.Mean) {
			t.Errorf("%s: kernel %v, compiled again %v (or its Gram matrix differs)", w.Name, g.Prior.Kernel.Hyper, w.Prior.Kernel.Hyper)
		}
	}
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || math.Float64bits(v) != math.Float64bits(w) {
			return false
		}
	}
	return true
}
