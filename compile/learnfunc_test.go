package compile

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const learnFuncSrc = `
data X: real[4, 1] = [[0], [1], [2], [3]]
data y: spin[4] = [1, -1, 1, 1]
data e: real[4] = [1, 2, 3, 4]
param a = 1
param b = exp(a) / 2
param s2 = 2
param eps = 0.1
latent f: real[4] ~ gp(se(b, s2) + bias(a), X)
latent w: real[1] ~ normal(0, s2)
for i in 0..4 {
  y[i] ~ step(f[i], eps * e[i] / 4)
  y[i] ~ probit(dot(X[i], w))
}
infer ep
learn a, s2, eps in [0.01, 0.4]
`

// TestLearnFuncMatchesRecompile: the model re-evaluated by LearnFunc at new
// values has the kernel, Gram matrix, prior covariance and site eps of the
// model compiled again from source at those values (a dependent param b,
// a kernel sum, a normal prior variance, a per-site eps inside a plate).
func TestLearnFuncMatchesRecompile(t *testing.T) {
	m, err := CompileSource("lf.fg", []byte(learnFuncSrc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.LearnFunc()
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, 1.7, 0.2}
	got, err := f.At(x, true)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Recompile(map[string]string{"a": "0.3", "s2": "1.7", "eps": "0.2"})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range want.Blocks() {
		g := got.Blocks()[i]
		if !mat.EqualApprox(g.Prior.Cov, b.Prior.Cov, 1e-15) {
			t.Errorf("%s: prior covariance %v, recompiled %v", b.Name, mat.Formatted(g.Prior.Cov), mat.Formatted(b.Prior.Cov))
		}
		for j, s := range b.Sites {
			if g.Sites[j].Lik.Params()["eps"] != s.Lik.Params()["eps"] {
				t.Errorf("%s: eps %g, recompiled %g", s.Label, g.Sites[j].Lik.Params()["eps"], s.Lik.Params()["eps"])
			}
			if g.Sites[j].Lik != s.Lik {
				t.Errorf("%s: likelihood %#v, recompiled %#v (the engines read Lik)", s.Label, g.Sites[j].Lik, s.Lik)
			}
		}
	}
	if m.Blocks()[0].Sites[1].Lik.Params()["eps"] != 0.05 {
		t.Errorf("At changed the original model's sites: eps %g", m.Blocks()[0].Sites[1].Lik.Params()["eps"])
	}
	for _, p := range []string{"s2"} {
		if !f.Positive(p) {
			t.Errorf("%s is a declared-positive argument (a variance)", p)
		}
	}
	if f.Positive("a") || f.Positive("eps") {
		t.Error("a and eps are not themselves positive arguments")
	}
	if _, err := f.At([]float64{0.3, 1.7, 0.5}, false); err == nil || !strings.Contains(err.Error(), "outside [0.01, 0.4]") {
		t.Errorf("eps outside its learn bounds: %v", err)
	}
	if _, err := f.At([]float64{0.3, -1, 0.2}, false); err == nil || !strings.Contains(err.Error(), "must be > 0") {
		t.Errorf("negative variance: %v", err)
	}
	out, err := f.Model(x)
	if err != nil || out.Learn != nil || out.Params["b"].Num[0] != want.Params["b"].Num[0] {
		t.Errorf("Model(x): %v", err)
	}
}

// TestLearnFuncNormalVar: a learned noise variance of a normal likelihood
// is a positive argument (the constructor rejects 0), and At rebuilds the
// sites' likelihood with it, as compiling again does.
func TestLearnFuncNormalVar(t *testing.T) {
	src := `
data X: real[3, 1] = [[0], [1], [2]]
data y: real[3] = [0.5, -0.2, 1.1]
param sn2 = 0.3
latent w: real[1] ~ normal(0, 1)
for i in 0..3 {
  y[i] ~ normal(dot(X[i], w), sn2)
}
infer ep
learn sn2
`
	m, err := CompileSource("nv.fg", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.LearnFunc()
	if err != nil {
		t.Fatal(err)
	}
	if !f.Positive("sn2") {
		t.Error("sn2 is normal's var, a positive argument")
	}
	got, err := f.At([]float64{0.7}, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Recompile(map[string]string{"sn2": "0.7"})
	if err != nil {
		t.Fatal(err)
	}
	for j, s := range want.Blocks()[0].Sites {
		if g := got.Blocks()[0].Sites[j]; g.Lik != s.Lik || g.Lik.Params()["var"] != 0.7 {
			t.Errorf("%s: likelihood %#v (var %g), recompiled %#v", s.Label, g.Lik, g.Lik.Params()["var"], s.Lik)
		}
	}
	if _, err := f.At([]float64{-1}, false); err == nil || !strings.Contains(err.Error(), "must be > 0") {
		t.Errorf("a negative variance: %v", err)
	}
}
