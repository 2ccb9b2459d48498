package compile

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// compileNet compiles src and returns its Net, failing when the model
// did not lower to one or kept a Gaussian-block form.
func compileNet(t *testing.T, src string) *graph.Net {
	t.Helper()
	m, err := CompileSource("net.fg", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Net == nil || len(m.Blocks()) > 0 || m.FactorGraph != nil {
		t.Fatalf("Net %v, %d blocks, factor graph %v: want the Net only", m.Net != nil, len(m.Blocks()), m.FactorGraph != nil)
	}
	return m.Net
}

// netLines are the variable and factor lines of the Net's dump.
func netLines(t *testing.T, n *graph.Net) []string {
	t.Helper()
	var b bytes.Buffer
	if err := graph.DumpNet(&b, n); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(b.String()), "\n")[1:]
}

// TestNetShapes lowers each model shape of the families (conjugate
// priors and likelihoods, plates, element-wise priors with a latent rate,
// affine means, precision and variance forms, latent categorical weights,
// gated emissions, discrete chains with data and latent transition rows,
// confusion rows selected by a latent) and checks the Net's variables
// (names and families) and factors (kind, label and edges) line by line.
func TestNetShapes(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // every variable line, then the factor lines listed (a prefix of each)
	}{
		{"coin", `
data y: bool[3] = [1, 0, 1]
latent p: real ~ beta(2, 2)
for i in 0..3 {
  y[i] ~ bernoulli(p)
}`, []string{
			"var 0 p beta dim=1 latent=0 elem=0",
			`factor 0 beta "beta(p)" at 3:18 x=p a=2 b=2`,
			`factor 1 bernoulli "bernoulli(y[0])" at 5:3 y=1 p=p`,
			`factor 2 bernoulli "bernoulli(y[1])" at 5:3 y=0 p=p`,
			`factor 3 bernoulli "bernoulli(y[2])" at 5:3 y=1 p=p`,
		}},
		{"binomial vector", `
data k = [3, 7]
latent p: real ~ beta(1, 1)
k ~ binomial(10, p)`, []string{
			"var 0 p beta dim=1 latent=0 elem=0",
			`factor 0 beta "beta(p)" at 3:18 x=p a=1 b=1`,
			`factor 1 binomial "binomial(k[0])" at 4:1 y=3 n=10 p=p`,
			`factor 2 binomial "binomial(k[1])" at 4:1 y=7 n=10 p=p`,
		}},
		{"mean and precision", `
data y = [1.2, 0.8]
latent mu: real ~ normal(0, 100)
latent tau: real ~ gamma(1, 2)
for i in 0..2 {
  y[i] ~ normal(mu, 1 / tau)
}`, []string{
			"var 0 mu gaussian dim=1 latent=0 elem=0",
			"var 1 tau gamma dim=1 latent=1 elem=0",
			`factor 0 normal "normal(mu)" at 3:19 x=mu mean=0 var=100`,
			`factor 1 gamma "gamma(tau)" at 4:20 x=tau shape=1 rate=2`,
			`factor 2 normal "normal(y[0])" at 6:3 y=1.2 mean=mu prec=tau`,
			`factor 3 normal "normal(y[1])" at 6:3 y=0.8 mean=mu prec=tau`,
		}},
		{"named forms of the variance", `
data y = [1.2, 0.8]
latent mu: real ~ normal(0, sd = 10)
latent tau: real ~ gamma(1, 2)
for i in 0..2 {
  y[i] ~ normal(mu, precision = tau)
}
y[0] ~ normal(mu, precision = 4)`, []string{
			"var 0 mu gaussian dim=1 latent=0 elem=0",
			"var 1 tau gamma dim=1 latent=1 elem=0",
			`factor 0 normal "normal(mu)" at 3:19 x=mu mean=0 var=100`,
			`factor 2 normal "normal(y[0])" at 6:3 y=1.2 mean=mu prec=tau`,
			`factor 3 normal "normal(y[1])" at 6:3 y=0.8 mean=mu prec=tau`,
			`factor 4 normal "normal(y[0])" at 8:1 y=1.2 mean=mu prec=4`,
		}},
		{"regression with inverse-gamma noise", `
data X = [[1, 0.5], [0.2, -1]]
data y = [1.1, -0.7]
latent w: real[2] ~ normal(0, 10)
latent b: real ~ normal(0, 10)
latent s2: real ~ inv_gamma(2, 1)
for i in 0..2 {
  y[i] ~ normal(dot(X[i], w) + b, s2)
}`, []string{
			"var 0 w[0] gaussian dim=1 latent=0 elem=0",
			"var 1 w[1] gaussian dim=1 latent=0 elem=1",
			"var 2 b gaussian dim=1 latent=1 elem=0",
			"var 3 s2 inv_gamma dim=1 latent=2 elem=0",
			`factor 0 normal "normal(w[0])" at 4:21 x=w[0] mean=0 var=10`,
			`factor 1 normal "normal(w[1])" at 4:21 x=w[1] mean=0 var=10`,
			`factor 2 normal "normal(b)" at 5:18 x=b mean=0 var=10`,
			`factor 3 inv_gamma "inv_gamma(s2)" at 6:19 x=s2 shape=2 scale=1`,
			`factor 4 normal "normal(y[0])" at 8:3 y=1.1 mean=w[0] + 0.5*w[1] + b var=s2`,
			`factor 5 normal "normal(y[1])" at 8:3 y=-0.7 mean=0.2*w[0] + -1*w[1] + b var=s2`,
		}},
		{"hierarchical poisson-gamma", `
data g = [0, 1, 1]
data y = [3, 0, 1]
latent beta0: real ~ gamma(1, 1)
latent rate: real[2]
for j in 0..2 {
  rate[j] ~ gamma(2, beta0)
}
for i in 0..3 {
  y[i] ~ poisson(rate[g[i]])
}`, []string{
			"var 0 beta0 gamma dim=1 latent=0 elem=0",
			"var 1 rate[0] gamma dim=1 latent=1 elem=0",
			"var 2 rate[1] gamma dim=1 latent=1 elem=1",
			`factor 0 gamma "gamma(beta0)" at 4:22 x=beta0 shape=1 rate=1`,
			`factor 1 gamma "gamma(rate[0])" at 7:13 x=rate[0] shape=2 rate=beta0`,
			`factor 2 gamma "gamma(rate[1])" at 7:13 x=rate[1] shape=2 rate=beta0`,
			`factor 3 poisson "poisson(y[0])" at 10:3 y=3 rate=rate[0]`,
			`factor 4 poisson "poisson(y[1])" at 10:3 y=0 rate=rate[1]`,
			`factor 5 poisson "poisson(y[2])" at 10:3 y=1 rate=rate[1]`,
		}},
		{"mixture with dirichlet weights", `
data y = [-2.1, 2.2]
latent w: real[3] ~ dirichlet([1, 2, 3])
latent mu: real[3] ~ normal(0, 10)
latent tau: real ~ gamma(1, 1)
latent z: cat(3)[2]
for i in 0..2 {
  z[i] ~ categorical(w)
  y[i] ~ normal(mu[z[i]], 1 / tau)
}`, []string{
			"var 0 w dirichlet dim=3 latent=0 elem=0",
			"var 1 mu[0] gaussian dim=1 latent=1 elem=0",
			"var 2 mu[1] gaussian dim=1 latent=1 elem=1",
			"var 3 mu[2] gaussian dim=1 latent=1 elem=2",
			"var 4 tau gamma dim=1 latent=2 elem=0",
			"var 5 z[0] discrete dim=3 latent=3 elem=0",
			"var 6 z[1] discrete dim=3 latent=3 elem=1",
			`factor 0 dirichlet "dirichlet(w)" at 3:21 x=w alpha=[1, 2, 3]`,
			`factor 1 normal "normal(mu[0])" at 4:22 x=mu[0] mean=0 var=10`,
			`factor 2 normal "normal(mu[1])"`,
			`factor 3 normal "normal(mu[2])"`,
			`factor 4 gamma "gamma(tau)"`,
			`factor 5 categorical "categorical(z[0])" at 8:10 x=z[0] p=w`,
			`factor 6 normal "normal(y[0])" at 9:3 y=-2.1 mean=z[0]?[mu[0] | mu[1] | mu[2]] prec=tau`,
			`factor 7 categorical "categorical(z[1])" at 8:10 x=z[1] p=w`,
			`factor 8 normal "normal(y[1])" at 9:3 y=2.2 mean=z[1]?[mu[0] | mu[1] | mu[2]] prec=tau`,
		}},
		{"hmm with data transitions", `
data A = [[0.9, 0.1], [0.2, 0.8]]
data y = [1, 0, 1]
latent p: real[2] ~ beta(1, 1)
latent z: cat(2)[3]
z[0] ~ categorical([0.5, 0.5])
for t in 1..3 {
  z[t] ~ categorical(A[z[t-1]])
}
for t in 0..3 {
  y[t] ~ bernoulli(p[z[t]])
}`, []string{
			"var 0 p[0] beta dim=1 latent=0 elem=0",
			"var 1 p[1] beta dim=1 latent=0 elem=1",
			"var 2 z[0] discrete dim=2 latent=1 elem=0",
			"var 3 z[1] discrete dim=2 latent=1 elem=1",
			"var 4 z[2] discrete dim=2 latent=1 elem=2",
			`factor 0 beta "beta(p[0])"`,
			`factor 1 beta "beta(p[1])"`,
			`factor 2 categorical "categorical(z[0])" at 6:8 x=z[0] p=[0.5, 0.5]`,
			`factor 3 categorical "categorical(z[1])" at 8:10 x=z[1] p=z[0]?[[0.9, 0.1] | [0.2, 0.8]]`,
			`factor 4 categorical "categorical(z[2])" at 8:10 x=z[2] p=z[1]?[[0.9, 0.1] | [0.2, 0.8]]`,
			`factor 5 bernoulli "bernoulli(y[0])" at 11:3 y=1 p=z[0]?[p[0] | p[1]]`,
		}},
		{"hmm with dirichlet rows", `
data y = [-1.2, 0.9]
latent A: real[2, 2]
for k in 0..2 {
  A[k] ~ dirichlet(1)
}
latent z: cat(2)[2]
z[0] ~ categorical([0.5, 0.5])
z[1] ~ categorical(A[z[0]])
latent rate: real[2] ~ gamma(2, 1)
data c = [3, 0]
for t in 0..2 {
  c[t] ~ poisson(rate[z[t]])
}`, []string{
			"var 0 A[0] dirichlet dim=2 latent=0 elem=0",
			"var 1 A[1] dirichlet dim=2 latent=0 elem=1",
			"var 2 z[0] discrete dim=2 latent=1 elem=0",
			"var 3 z[1] discrete dim=2 latent=1 elem=1",
			"var 4 rate[0] gamma dim=1 latent=2 elem=0",
			"var 5 rate[1] gamma dim=1 latent=2 elem=1",
			`factor 0 dirichlet "dirichlet(A[0])" at 5:10 x=A[0] alpha=[1, 1]`,
			`factor 1 dirichlet "dirichlet(A[1])" at 5:10 x=A[1] alpha=[1, 1]`,
			`factor 2 categorical "categorical(z[0])"`,
			`factor 3 categorical "categorical(z[1])" at 9:8 x=z[1] p=z[0]?[A[0] | A[1]]`,
			`factor 4 gamma "gamma(rate[0])"`,
			`factor 5 gamma "gamma(rate[1])"`,
			`factor 6 poisson "poisson(c[0])" at 13:3 y=3 rate=z[0]?[rate[0] | rate[1]]`,
		}},
		{"confusion rows", `
data item = [0, 1]
data worker = [1, 0]
data label = [1, 0]
latent pi: real[2] ~ dirichlet([1, 1])
latent conf: real[2, 2, 2]
conf ~ dirichlet([2, 1])
latent truth: cat(2)[2] ~ categorical(pi)
for n in 0..2 {
  label[n] ~ categorical(conf[worker[n], truth[item[n]]])
}`, []string{
			"var 0 pi dirichlet dim=2 latent=0 elem=0",
			"var 1 conf[0, 0] dirichlet dim=2 latent=1 elem=0",
			"var 2 conf[0, 1] dirichlet dim=2 latent=1 elem=1",
			"var 3 conf[1, 0] dirichlet dim=2 latent=1 elem=2",
			"var 4 conf[1, 1] dirichlet dim=2 latent=1 elem=3",
			"var 5 truth[0] discrete dim=2 latent=2 elem=0",
			"var 6 truth[1] discrete dim=2 latent=2 elem=1",
			`factor 0 dirichlet "dirichlet(pi)"`,
			`factor 1 dirichlet "dirichlet(conf[0, 0])" at 7:8 x=conf[0, 0] alpha=[2, 1]`,
			`factor 2 dirichlet "dirichlet(conf[0, 1])"`,
			`factor 3 dirichlet "dirichlet(conf[1, 0])"`,
			`factor 4 dirichlet "dirichlet(conf[1, 1])"`,
			`factor 5 categorical "categorical(truth[0])" at 8:27 x=truth[0] p=pi`,
			`factor 6 categorical "categorical(truth[1])" at 8:27 x=truth[1] p=pi`,
			`factor 7 categorical "categorical(label[0])" at 10:3 y=1 p=truth[0]?[conf[1, 0] | conf[1, 1]]`,
			`factor 8 categorical "categorical(label[1])" at 10:3 y=0 p=truth[1]?[conf[0, 0] | conf[0, 1]]`,
		}},
		{"gaussian chain with latent precision", `
data y = [0.3, 0.1]
latent tau: real ~ gamma(2, 1)
latent x: real[2]
x[0] ~ normal(0, 1)
x[1] ~ normal(0.9 * x[0], 1 / tau)
for t in 0..2 {
  y[t] ~ normal(x[t], 0.5)
}`, []string{
			"var 0 tau gamma dim=1 latent=0 elem=0",
			"var 1 x[0] gaussian dim=1 latent=1 elem=0",
			"var 2 x[1] gaussian dim=1 latent=1 elem=1",
			`factor 0 gamma "gamma(tau)"`,
			`factor 1 normal "normal(x[0])" at 5:8 x=x[0] mean=0 var=1`,
			`factor 2 normal "normal(x[1])" at 6:8 x=x[1] mean=0.9*x[0] prec=tau`,
			`factor 3 normal "normal(y[0])" at 8:3 y=0.3 mean=x[0] var=0.5`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := netLines(t, compileNet(t, tc.src))
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					if strings.HasPrefix(g, w) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("no line %q in\n%s", w, strings.Join(got, "\n"))
				}
			}
			vars := 0
			for _, g := range got {
				if strings.HasPrefix(g, "var ") {
					vars++
				}
			}
			wantVars := 0
			for _, w := range tc.want {
				if strings.HasPrefix(w, "var ") {
					wantVars++
				}
			}
			if vars != wantVars {
				t.Errorf("%d variables, want %d", vars, wantVars)
			}
		})
	}
}

// TestNetOnlyWhenNeeded: models of the Gaussian forms (a gated mixture
// with data weights, a conditional chain) do not lower to a Net; a
// categorical with latent weights does.
func TestNetOnlyWhenNeeded(t *testing.T) {
	gauss := `
data y = [-2, 2]
latent mu: real[2] ~ normal(0, 10)
latent z: cat(2)[2] ~ categorical([0.5, 0.5])
for i in 0..2 {
  y[i] ~ normal(mu[z[i]], 1)
}`
	m, err := CompileSource("g.fg", []byte(gauss), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Net != nil || m.FactorGraph == nil {
		t.Errorf("a gated mixture with data weights: Net %v, factor graph %v; want the factor graph", m.Net != nil, m.FactorGraph != nil)
	}
	for _, p := range exampleFiles(t) {
		m, err := CompileFile(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if m.Net != nil && !usesNetFamily(m) {
			t.Errorf("%s lowered to a Net", p)
		}
	}
}

// usesNetFamily reports whether a compiled Net model has a variable of a
// family other than Gaussian and discrete, or a categorical whose p is not
// data (what makes a model a Net model).
func usesNetFamily(m *Model) bool {
	for _, v := range m.Net.Vars {
		if v.Family != graph.Gaussian && v.Family != graph.Discrete {
			return true
		}
	}
	for _, f := range m.Net.Factors {
		if e, ok := f.Edge("p"); ok && !e.IsData() {
			return true
		}
	}
	return false
}

// TestNetOnlyNames: the distributions that make a model a Net model by
// themselves are exactly the non-Gaussian families and the likelihoods
// observing through them; categorical does when its probabilities are
// latent.
func TestNetOnlyNames(t *testing.T) {
	var got []string
	for _, k := range factor.All() {
		if netOnly(k.Name()) {
			got = append(got, k.Name())
		}
	}
	want := []string{"beta", "gamma", "inv_gamma", "dirichlet", "bernoulli", "binomial", "poisson"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("net-only distributions %v, want %v", got, want)
	}
	for _, name := range []string{"normal", "categorical", "probit", "poisson_log", "mvnormal"} {
		if netOnly(name) {
			t.Errorf("%s is not net-only", name)
		}
	}
	if !isSelectorPrior("categorical") || isSelectorPrior("normal") {
		t.Error("categorical is the selectors' prior, normal is not")
	}
}

// TestNetImports: a model whose families come from an imported file
// lowers to the Net as a whole (the decision reads the imports).
func TestNetImports(t *testing.T) {
	fsys := fstest.MapFS{
		"lib/coin.fg": {Data: []byte("data y: bool[2] = [1, 0]\nlatent p: real ~ beta(2, 2)\ny ~ bernoulli(p)\n")},
		"main.fg":     {Data: []byte("model m\nimport \"lib/coin.fg\"\ninfer ep\n")},
	}
	m, err := CompileFile("main.fg", Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if m.Net == nil || len(m.Net.Vars) != 1 || m.Net.Vars[0].Family != graph.Beta || len(m.Net.Factors) != 3 {
		t.Fatalf("want a Net with p ~ beta and two bernoulli factors, got %+v", m.Net)
	}
}

// TestNetBudget: a Net that would outgrow the factor budget (here through
// the terms of its affine edges) is refused with its size, not allocated.
func TestNetBudget(t *testing.T) {
	c := newCompiler(Options{})
	c.net = newNetState()
	c.net.terms = factorBudget / netTermBytes
	at := &ast.Ident{NamePos: c.fset.AddFile("m.fg", []byte("\n\ny ~ normal(0, 1)\n")).Pos(2), Name: "y"}
	c.guard(func() { c.netBudget(at, []graph.Edge{graph.VarEdge("p", 0)}) })
	if len(c.errs) != 1 || !strings.Contains(c.errs[0].Msg, "the typed factor graph would hold more than 2048 MiB") {
		t.Fatalf("errors %v", c.errs)
	}
	c = newCompiler(Options{})
	c.net = newNetState()
	c.guard(func() { c.netBudget(at, []graph.Edge{graph.VarEdge("p", 0)}) })
	if len(c.errs) != 0 {
		t.Fatalf("a small Net refused: %v", c.errs)
	}
}
