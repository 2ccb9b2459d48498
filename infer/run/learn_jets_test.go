package run

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/compile"
)

// jetModel is a small model with one learned param p: BODY is its latent
// and likelihood statements.
const jetModel = `
param p = 0.3
data X = [[0.0], [0.5], [1.2], [2.0]]
data s: spin[4] = [1, -1, 1, 1]
data y = [0.5, -0.2, 1.1, 0.4]
`

// snapshotsAt are the exact (forward-mode) and the central-difference
// derivatives of lb's snapshot at x.
func snapshotsAt(t *testing.T, lb *learnBuilder, x []float64) (exact, diff []snapshot) {
	t.Helper()
	mx, err := lb.compileAt(x, false)
	if err != nil {
		t.Fatal(err)
	}
	s0 := snapOf(mx)
	if exact, err = lb.jetDerivs(x, s0); err != nil || exact == nil {
		t.Fatalf("jetDerivs: %v (nil: %v)", err, exact == nil)
	}
	for k := range x {
		d, err := lb.deriv(x, k, s0)
		if err != nil {
			t.Fatal(err)
		}
		diff = append(diff, d)
	}
	return exact, diff
}

// derivsAt are the derivatives learning uses at x (derivs: exact, and
// differenced where there is no jet).
func derivsAt(t *testing.T, lb *learnBuilder, x []float64) []snapshot {
	t.Helper()
	mx, err := lb.compileAt(x, false)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := lb.derivs(x, snapOf(mx))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// flatSnap lists every derivative of a snapshot: hyperparameters,
// likelihood parameters, means, covariance entries (upper triangle).
func flatSnap(s snapshot, covN []int) []float64 {
	var out []float64
	for bi := range s.hyper {
		out = append(out, s.hyper[bi]...)
		out = append(out, s.lik[bi]...)
		out = append(out, s.mean[bi]...)
		n := covN[bi]
		for r := range n {
			for q := r; q < n; q++ {
				v := 0.0
				if s.cov[bi] != nil {
					v = s.cov[bi].At(r, q)
				}
				out = append(out, v)
			}
		}
	}
	return out
}

func covDims(lb *learnBuilder) []int {
	var out []int
	for _, b := range lb.m.Blocks() {
		n := 0
		if !gaussianProcess(b.Prior) && b.Prior.Cov != nil {
			n = b.N
		}
		out = append(out, n)
	}
	return out
}

// TestLearnJetDerivatives checks the forward-mode derivatives of the
// numbers a learned param reaches against their closed forms (to 1e-12
// relative) and against learning's central differences of re-evaluated
// models (to 1e-6 relative): a kernel lengthscale exp(p), a prior variance
// exp(2p) through a param and through `sd =`, a step eps 0.5·σ(p), a
// likelihood variance, an mvnormal mean and covariance written as lists,
// a kernel scaled by a number, indexing, and a power with a learned
// exponent.
func TestLearnJetDerivatives(t *testing.T) {
	p := 0.3
	sig := 1 / (1 + math.Exp(-p))
	cases := []struct {
		name, body string
		want       func(s snapshot) map[string][2]float64 // quantity → (got, closed form)
	}{
		{"gp lengthscale exp(p)", "latent f: real[4] ~ gp(se(exp(p), 1), X)\nfor i in 0..4 { s[i] ~ probit(f[i]) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"ell": {s.hyper[0][0], math.Exp(p)}, "sf2": {s.hyper[0][1], 0}}
		}},
		{"prior variance exp(2p)", "param s2 = exp(2 * p)\nlatent w: real[4] ~ normal(0, s2)\nfor i in 0..4 { y[i] ~ normal(w[i], 0.5) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"var": {s.cov[0].At(2, 2), 2 * math.Exp(2*p)}, "cov": {s.cov[0].At(0, 1), 0}}
		}},
		{"sd = exp(p)", "latent w: real[4] ~ normal(p, sd = exp(p))\nfor i in 0..4 { y[i] ~ normal(w[i], 0.5) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"var": {s.cov[0].At(1, 1), 2 * math.Exp(2*p)}, "mean": {s.mean[0][3], 1}}
		}},
		{"step eps logistic", "latent f: real[4] ~ gp(se(1, 1), X)\nfor i in 0..4 { s[i] ~ step(f[i], 0.5 / (1 + exp(-p))) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"eps": {s.lik[0][2], 0.5 * sig * (1 - sig)}}
		}},
		{"normal var", "latent w: real[4] ~ normal(0, 1)\nfor i in 0..4 { y[i] ~ normal(w[i], exp(p) + 0.1) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"var": {s.lik[0][0], math.Exp(p)}}
		}},
		{"mvnormal lists", "latent w: real[2] ~ mvnormal([p, 2 * p], [[exp(p), 0.5], [0.5, p * p + 1]])\nfor i in 0..2 { y[i] ~ normal(w[i], 0.5) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"m1": {s.mean[0][1], 2}, "c00": {s.cov[0].At(0, 0), math.Exp(p)}, "c01": {s.cov[0].At(0, 1), 0}, "c11": {s.cov[0].At(1, 1), 2 * p}}
		}},
		{"scaled kernel", "latent f: real[4] ~ gp(exp(p) * se(1, 1) + bias(p * p), X)\nfor i in 0..4 { s[i] ~ probit(f[i]) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"scale": {s.hyper[0][0], math.Exp(p)}, "ell": {s.hyper[0][1], 0}, "bias": {s.hyper[0][3], 2 * p}}
		}},
		{"index", "param v = [p, exp(p)]\nlatent f: real[4] ~ gp(se(v[1], [[1, v[0]], [2, 3]][0, 1]), X)\nfor i in 0..4 { s[i] ~ probit(f[i]) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"ell": {s.hyper[0][0], math.Exp(p)}, "var": {s.hyper[0][1], 1}}
		}},
		{"learned exponent", "latent f: real[4] ~ gp(matern52(2 ^ p, sqrt(p)), X)\nfor i in 0..4 { s[i] ~ probit(f[i]) }", func(s snapshot) map[string][2]float64 {
			return map[string][2]float64{"ell": {s.hyper[0][0], math.Ln2 * math.Pow(2, p)}, "var": {s.hyper[0][1], 0.5 / math.Sqrt(p)}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := compile.CompileSource("j.fg", []byte(jetModel+c.body+"\ninfer ep\nlearn p\n"), compile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			lb := testBuilder(t, m)
			exact, diff := snapshotsAt(t, lb, []float64{p})
			if exact[0].hasNaN() {
				t.Fatalf("a quantity has no exact derivative: %+v", exact[0])
			}
			for q, v := range c.want(exact[0]) {
				if !(math.Abs(v[0]-v[1]) <= 1e-12*math.Max(1, math.Abs(v[1]))) {
					t.Errorf("∂%s/∂p = %.17g, closed form %.17g", q, v[0], v[1])
				}
			}
			e, d := flatSnap(exact[0], covDims(lb)), flatSnap(diff[0], covDims(lb))
			for i := range e {
				if !(math.Abs(e[i]-d[i]) <= 1e-6*math.Max(1, math.Abs(d[i]))) {
					t.Errorf("derivative %d: exact %.12g, central difference %.12g", i, e[i], d[i])
				}
			}
		})
	}
}

// TestLearnJetFallback: a quantity a learned param reaches through an
// expression without jets (a product @ with a param vector) has none in the
// forward-mode pass, and derivs takes its central difference, while the
// other quantities keep their exact derivatives.
func TestLearnJetFallback(t *testing.T) {
	body := "param v = [p, 2]\nlatent f: real[4] ~ gp(se([1, 0] @ v + 1, exp(p)), X)\nfor i in 0..4 { s[i] ~ step(f[i], 0.1 * exp(p)) }"
	m, err := compile.CompileSource("j.fg", []byte(jetModel+body+"\ninfer ep\nlearn p\n"), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lb := testBuilder(t, m)
	x := []float64{0.3}
	exact, diff := snapshotsAt(t, lb, x)
	if !math.IsNaN(exact[0].hyper[0][0]) {
		t.Fatalf("∂ell/∂p = %g by jets; @ has no jet", exact[0].hyper[0][0])
	}
	ds := derivsAt(t, lb, x)
	d := ds[0]
	if d.hyper[0][0] != diff[0].hyper[0][0] || !(math.Abs(d.hyper[0][0]-1) < 1e-8) {
		t.Errorf("∂ell/∂p = %.12g, want the central difference %.12g ≈ 1", d.hyper[0][0], diff[0].hyper[0][0])
	}
	if d.hyper[0][1] != math.Exp(0.3) || d.lik[0][0] != 0.1*math.Exp(0.3) {
		t.Errorf("∂sf2/∂p = %.17g, ∂eps/∂p = %.17g: want the exact exp(p) and 0.1·exp(p)", d.hyper[0][1], d.lik[0][0])
	}
}

// TestLearnJetsMatchDifferences: on the models of the gradient tests
// (GPML's toy2d and FITC cases, kernels through exp, sums, products, ard
// vectors, step eps), every derivative is exact (no quantity falls back
// to differences) and agrees with learning's central differences to 1e-6
// relative.
func TestLearnJetsMatchDifferences(t *testing.T) {
	cases := []struct {
		name string
		m    func(t *testing.T) *compile.Model
		x    []float64
	}{
		{"exp", func(t *testing.T) *compile.Model {
			return compileLearn(t, "toy2d_se_probit", seLog, "probit(f[i])", "learn log_ell, log_sf")
		}, []float64{0.3, -0.2}},
		{"step_eps", func(t *testing.T) *compile.Model {
			return compileLearn(t, "toy2d_se_step01", "se(ell, exp(2 * log_sf))", "step(f[i], eps)", "learn ell, log_sf, eps in [0.01, 0.4]")
		}, []float64{1.3, 0.1, 0.12}},
		{"sum_kernel", func(t *testing.T) *compile.Model {
			return compileLearn(t, "toy2d_se_probit", "se(ell, sf2) + bias(sf2 / 4)", "probit(f[i])", "learn ell, sf2")
		}, []float64{0.8, 1.5}},
		{"ard_vector", func(t *testing.T) *compile.Model {
			return compileLearn(t, "toy2d_se_probit", "ard([ell, exp(log_ell)], sf2)", "probit(f[i])", "learn ell, log_ell, sf2")
		}, []float64{0.7, 0.4, 2}},
		{"matern_prod", func(t *testing.T) *compile.Model {
			return compileLearn(t, "toy2d_se_step01", "matern32(ell, 1) * linear(sf2) + white(0.01)", "step(f[i], eps)", "learn ell, sf2, eps")
		}, []float64{1.2, 0.9, 0.08}},
		{"fitc_sum", func(t *testing.T) *compile.Model {
			return compileFITCLearn(t, "se(ell, sf2) + bias(sf2 / 4)", "learn ell, sf2")
		}, []float64{0.6, 0.8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lb := testBuilder(t, c.m(t))
			exact, diff := snapshotsAt(t, lb, c.x)
			for k := range c.x {
				if exact[k].hasNaN() {
					t.Fatalf("∂/∂%s: a quantity has no exact derivative", lb.params[k].Name)
				}
				e, d := flatSnap(exact[k], covDims(lb)), flatSnap(diff[k], covDims(lb))
				for i := range e {
					if !(math.Abs(e[i]-d[i]) <= 1e-6*math.Max(1, math.Abs(d[i]))) {
						t.Errorf("∂/∂%s, derivative %d: exact %.12g, central difference %.12g", lb.params[k].Name, i, e[i], d[i])
					}
				}
			}
		})
	}
}

// TestLearnJetsForest: on the factor-graph models learned on a forest's
// messages (random walks learning a process variance, a noise variance
// and step eps; AR(1) models learning a coefficient and a drift in the
// conditionals' means; a prior written with `sd =`), every forward-mode
// derivative — the factors' variances, their means' coefficients and
// constants, the sites' parameters — is exact, agrees with the central
// differences to 1e-6 relative, and is the one derivs uses; on the last
// model against closed forms to 1e-12.
func TestLearnJetsForest(t *testing.T) {
	extra := []struct {
		name, src string
		x         []float64
	}{
		// A prior's mean and variance and a conditional variance through expressions.
		{"prior_exprs", "param p = 0.3\ndata y: spin[4] = [1, -1, 1, 1]\nlatent x: real[4]\nx[0] ~ normal(p * p, sd = exp(p))\nfor t in 1..4 { x[t] ~ normal(x[t - 1], exp(2 * p)) }\nfor t in 0..4 { y[t] ~ step(x[t], 0.5 / (1 + exp(-p))) }\nlearn p\ninfer ep { tol = 1e-12 }\n", []float64{0.3}},
		// Means whose coefficients are learned through sum, a slice, a
		// division and a negation, x[t − 1] twice (the affine forms carry
		// the tangents and merge them).
		{"affine_exprs", "param a = 0.5\nparam b = 0.2\ndata y = [0.3, -0.2, 0.5, 0.1, 0.7]\nlatent x: real[5]\nx[0] ~ normal(b, 1)\nfor t in 1..5 { x[t] ~ normal(sum(a * x[t - 1:t]) - (b * x[t - 1]) / (1 + a) + -b, 1 + b) }\nfor t in 0..5 { y[t] ~ normal(x[t], 0.5) }\nlearn a, b\ninfer ep { tol = 1e-12 }\n", []float64{0.5, 0.2}},
	}
	type fcase struct {
		name string
		m    *compile.Model
		x    []float64
	}
	var cases []fcase
	for _, c := range learnFGCases {
		if c.forest {
			cases = append(cases, fcase{c.name, compileFGCase(t, c.file, c.src, c.replace), c.x})
		}
	}
	for _, c := range extra {
		m, err := compile.CompileSource("j.fg", []byte(c.src), compile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, fcase{c.name, m, c.x})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lb := testBuilder(t, c.m)
			if !onMessages(lb.m) {
				t.Fatal("not learned on the forest's messages")
			}
			exact, diff := snapshotsAt(t, lb, c.x)
			if c.name == "prior_exprs" {
				// Closed forms: x[0]'s variance exp(2p) and mean p², the
				// conditionals' variance exp(2p), the eps 0.5·σ(p).
				p, sig := c.x[0], 1/(1+math.Exp(-c.x[0]))
				e := exact[0]
				for _, q := range [][2]float64{{e.gvar[0], 2 * math.Exp(2*p)}, {e.gaff[1], -2 * p}, {e.gvar[2], 2 * math.Exp(2*p)}, {e.glik[3], 0.5 * sig * (1 - sig)}} {
					if !(math.Abs(q[0]-q[1]) <= 1e-12*math.Max(1, math.Abs(q[1]))) {
						t.Errorf("exact %.17g, closed form %.17g", q[0], q[1])
					}
				}
			}
			ds := derivsAt(t, lb, c.x)
			for k := range c.x {
				e, d := exact[k], diff[k]
				for _, q := range []struct {
					name         string
					e, d, merged []float64
				}{{"variance", e.gvar, d.gvar, ds[k].gvar}, {"mean", e.gaff, d.gaff, ds[k].gaff}, {"site parameter", e.glik, d.glik, ds[k].glik}} {
					for i := range q.e {
						if math.IsNaN(q.e[i]) {
							t.Errorf("∂/∂%s: %s %d has no exact derivative", lb.params[k].Name, q.name, i)
							continue
						}
						if !(math.Abs(q.e[i]-q.d[i]) <= 1e-6*math.Max(1, math.Abs(q.d[i]))) {
							t.Errorf("∂/∂%s: %s %d exact %.12g, central difference %.12g", lb.params[k].Name, q.name, i, q.e[i], q.d[i])
						}
						if q.merged[i] != q.e[i] {
							t.Errorf("∂/∂%s: %s %d is %g, not the exact %g", lb.params[k].Name, q.name, i, q.merged[i], q.e[i])
						}
					}
				}
			}
		})
	}
}

// TestLearnJetForestFallback: on a forest, a conditional variance reached
// through @ (no jets) is the central difference, the eps beside it exact.
func TestLearnJetForestFallback(t *testing.T) {
	src := "param p = 0.3\ndata y: spin[4] = [1, -1, 1, 1]\nlatent x: real[4]\nx[0] ~ normal(0, 1)\nfor t in 1..4 { x[t] ~ normal(x[t - 1], [1, 0] @ [exp(p), 1]) }\nfor t in 0..4 { y[t] ~ step(x[t], 0.1 * exp(p)) }\nlearn p\ninfer ep { tol = 1e-12 }\n"
	m, err := compile.CompileSource("j.fg", []byte(src), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lb := testBuilder(t, m)
	x := []float64{0.3}
	exact, diff := snapshotsAt(t, lb, x)
	if !math.IsNaN(exact[0].gvar[1]) {
		t.Fatalf("∂q/∂p = %g by jets; @ has no jet", exact[0].gvar[1])
	}
	ds := derivsAt(t, lb, x)
	if d := ds[0]; d.gvar[1] != diff[0].gvar[1] || !(math.Abs(d.gvar[1]-math.Exp(0.3)) < 1e-8) || d.glik[0] != 0.1*math.Exp(0.3) {
		t.Errorf("∂q/∂p = %.12g (central difference %.12g ≈ e^0.3), ∂eps/∂p = %.17g (exact 0.1·e^0.3)", d.gvar[1], diff[0].gvar[1], d.glik[0])
	}
}

// TestLearnJetsNet: on the typed-factor-graph models of the gradient
// tests (pseudo-counts, shared Beta priors, a Gamma rate, a known
// variance, Dirichlet concentrations and a categorical's probabilities in
// an HMM with selected emissions, a Gamma shape, a learned gain and offset
// of an affine mean, written `b * mu + c` and starting at the variable edge
// b = 1, c = 0; an HMM's emission offset and variance, learned and
// selected by the state), every number a learned param reaches has an exact
// derivative, the one derivs uses, equal to the central differences to
// 1e-6 relative; on a beta prior's pseudo-count and on the gain and
// offset of b * mu + c against their closed forms to 1e-12.
func TestLearnJetsNet(t *testing.T) {
	type ncase struct {
		name, src string
		x         []float64
	}
	cases := []ncase{{"hmm_selected", netHMMSelected, []float64{0.3, 0.2}}}
	for _, c := range learnNetCases {
		cases = append(cases, ncase{c.name, c.src, c.x})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lb := testBuilder(t, compileNetCase(t, c.src))
			exact, diff := snapshotsAt(t, lb, c.x)
			ds := derivsAt(t, lb, c.x)
			moved := 0
			for k := range c.x {
				for fi := range exact[k].net {
					for i, e := range exact[k].net[fi] {
						d := diff[k].net[fi][i]
						switch {
						case math.IsNaN(e):
							t.Errorf("∂/∂%s: number %d of factor %d has no exact derivative", lb.params[k].Name, i, fi)
						case !(math.Abs(e-d) <= 1e-6*math.Max(1, math.Abs(d))):
							t.Errorf("∂/∂%s: number %d of factor %d exact %.12g, central difference %.12g", lb.params[k].Name, i, fi, e, d)
						case ds[k].net[fi][i] != e:
							t.Errorf("∂/∂%s: number %d of factor %d is %g, not the exact %g", lb.params[k].Name, i, fi, ds[k].net[fi][i], e)
						}
						if e != 0 {
							moved++
						}
					}
				}
			}
			if moved == 0 {
				t.Fatal("no number moves with the learned params")
			}
		})
	}
	// Closed forms: ∂a/∂a = 1 in beta(a, 2)'s numbers [a, 2, 1, 0] (the x
	// edge's coefficient and constant last); in
	// normal(b * mu + c, 1 / tau) the mean edge's coefficient b and
	// constant c (Affine: b, c, then the precision edge tau's 1, 0).
	for _, c := range []struct {
		src  string
		x    float64
		fi   int
		aff  bool
		want []float64
	}{
		{netCoin, 3, 0, false, []float64{1, 0, 0, 0}},
		{netAffine("kl", "learn b"), 0.7, 2, true, []float64{1, 0, 0, 0}},
		{netAffine("kl", "learn c"), 0.4, 2, true, []float64{0, 1, 0, 0}},
	} {
		lb := testBuilder(t, compileNetCase(t, c.src))
		exact, _ := snapshotsAt(t, lb, []float64{c.x})
		got := exact[0].net[c.fi]
		if c.aff {
			got = got[len(lb.m.Net.Factors[c.fi].Data()):]
		}
		if len(got) != len(c.want) {
			t.Fatalf("factor %s: %d derivatives %v, want %v", lb.m.Net.Factors[c.fi].Label, len(got), got, c.want)
		}
		for i := range got {
			if !(math.Abs(got[i]-c.want[i]) <= 1e-12) {
				t.Errorf("factor %s, number %d: ∂/∂%s = %.17g, closed form %g", lb.m.Net.Factors[c.fi].Label, i, lb.params[0].Name, got[i], c.want[i])
			}
		}
	}
}

// netHMMSelected is an HMM whose emissions' offset and variance read the
// learned d and s and are selected by the state: each branch of the
// selected edges has its own derivative.
const netHMMSelected = `
data y = [-1.1, -0.8, -1.3, 0.9, 1.2, 0.7, 1.1, -0.9, -1.2, 1.0]
param s = 0.3
param d = 0.2
latent A: real[2, 2]
A[0] ~ dirichlet([3, 1])
A[1] ~ dirichlet([1, 3])
latent mu: real[2] ~ normal([-1, 1], 1)
latent z: cat(2)[10]
z[0] ~ categorical([0.5, 0.5])
for t in 1..10 {
  z[t] ~ categorical(A[z[t - 1]])
}
for t in 0..10 {
  y[t] ~ normal(mu[z[t]] + [d, -d][z[t]], [s, 2 * s][z[t]])
}
learn s, d
infer ep { tol = 1e-12 }
`

// mvChain is a chain of 2-vector states x[t] ~ mvnormal(a * x[t − 1] + d,
// Q) learning a and d: its scalar conditionals (compile's mvConditional)
// have means m_i + Σ_{j<i} β_ij (x_j − m_j) with a and d in every m.
const mvChain = `
param a = 0.6
param d = 0.2
data Y: real[4, 2] = [[0.3, -0.1], [0.5, 0.2], [0.9, 0.4], [0.7, 0.8]]
latent x: real[4, 2]
x[0] ~ mvnormal([0, 0], [[1, 0.3], [0.3, 1]])
for t in 1..4 {
  x[t] ~ mvnormal(a * x[t - 1] + d, [[0.5, 0.2], [0.2, 0.4]])
}
for t in 0..4 {
  for k in 0..2 {
    Y[t, k] ~ normal(x[t, k], 0.1)
  }
}
learn a, d
infer ep { tol = 1e-12 }
`

// TestLearnJetsJoint: on the factor graphs learned on their joint block
// (a GP classifier with a latent bias, with a constant in the sites'
// argument, a GP trend plus a hierarchy of group effects, an AR(1) loop
// learning a conditional's coefficient and drift, a chain of mvnormal
// conditionals learning a coefficient and drift of their means), the derivatives of the
// propagated prior mean and covariance and of the sites' parameters are
// exact (none falls back), the ones derivs uses, and equal to the
// central differences to 1e-6 relative; on the hierarchy against the
// closed forms to 1e-12: ∂Cov(u_i, u_j)/∂tau2 = [i = j] (u_j ~ N(mu,
// tau2), mu ~ N(0, 1)), ∂K_ij/∂ell = K_ij r²/ell³ of se(ell, 1).
func TestLearnJetsJoint(t *testing.T) {
	type jcase struct {
		name, file, src string
		x               []float64
		replace         [2]string
	}
	cases := []jcase{{name: "mvnormal_chain", src: mvChain, x: []float64{0.6, 0.2}}}
	for _, c := range learnFGCases {
		if !c.forest {
			cases = append(cases, jcase{c.name, c.file, c.src, c.x, c.replace})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lb := testBuilder(t, compileFGCase(t, c.file, c.src, c.replace))
			if onMessages(lb.m) || lb.m.Net != nil {
				t.Fatal("not learned on the joint block")
			}
			exact, diff := snapshotsAt(t, lb, c.x)
			ds := derivsAt(t, lb, c.x)
			for k := range c.x {
				if exact[k].hasNaN() {
					t.Fatalf("∂/∂%s: a quantity has no exact derivative", lb.params[k].Name)
				}
				e, d, u := flatSnap(exact[k], covDims(lb)), flatSnap(diff[k], covDims(lb)), flatSnap(ds[k], covDims(lb))
				moved := 0
				for i := range e {
					if !(math.Abs(e[i]-d[i]) <= 1e-6*math.Max(1, math.Abs(d[i]))) {
						t.Errorf("∂/∂%s, derivative %d: exact %.12g, central difference %.12g", lb.params[k].Name, i, e[i], d[i])
					}
					if u[i] != e[i] {
						t.Errorf("∂/∂%s, derivative %d: derivs %g, exact %g", lb.params[k].Name, i, u[i], e[i])
					}
					if e[i] != 0 {
						moved++
					}
				}
				if moved == 0 {
					t.Errorf("∂/∂%s: nothing moves", lb.params[k].Name)
				}
			}
			if c.name != "gp_hierarchy" {
				return
			}
			fg := lb.at.FactorGraph
			first := map[string]int{}
			for l, f := range fg.First {
				first[lb.at.Graph.Latents[l].Name] = f
			}
			ell := c.x[0]
			dK, dT := exact[0].cov[0], exact[1].cov[0]
			u, f := first["u"], first["f"]
			X := lb.at.FactorGraph.Dense[0].Prior.X
			for i := range 5 {
				for j := range 5 {
					want := 0.0
					if i == j {
						want = 1
					}
					if got := dT.At(u+i, u+j); !(math.Abs(got-want) <= 1e-12) {
						t.Errorf("∂Cov(u%d, u%d)/∂tau2 = %.17g, want %g", i, j, got, want)
					}
					r := X.At(i, 0) - X.At(j, 0)
					kij := math.Exp(-r * r / (2 * ell * ell))
					if got, want := dK.At(f+i, f+j), kij*r*r/(ell*ell*ell); !(math.Abs(got-want) <= 1e-12) {
						t.Errorf("∂K(%d, %d)/∂ell = %.17g, closed form %.17g", i, j, got, want)
					}
				}
			}
		})
	}
}
