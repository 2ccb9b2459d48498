package compile

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/parser"
)

// fgOf compiles src and returns its FactorGraph, failing if the model
// compiled to blocks.
func fgOf(t *testing.T, src string) (*Model, *FactorGraph) {
	t.Helper()
	m := mustCompile(t, src, Options{})
	if m.FactorGraph == nil || len(m.Blocks()) != 0 {
		t.Fatalf("model compiled to %d blocks and FactorGraph %v, want a factor graph", len(m.Blocks()), m.FactorGraph)
	}
	return m, m.FactorGraph
}

func wantAffine(t *testing.T, what string, got graph.Form, vars []int, coefs []float64, c float64) {
	t.Helper()
	if !reflect.DeepEqual(got.Vars, vars) || !reflect.DeepEqual(got.Coefs, coefs) || got.Const != c {
		t.Errorf("%s: affine %+v, want Vars %v Coefs %v Const %g", what, got, vars, coefs, c)
	}
}

// gaussianOf returns the linear-Gaussian factor whose target is v.
func gaussianOf(t *testing.T, g *FactorGraph, v int) graph.LinearGaussian {
	t.Helper()
	for i, lg := range g.Gaussians() {
		if lg.Target == v {
			return g.Gaussian(i)
		}
	}
	t.Fatalf("no Gaussian factor with target %d", v)
	return graph.LinearGaussian{}
}

// checkFactors checks that every Gaussian and site points at a graph factor
// of its kind and label.
func checkFactors(t *testing.T, m *Model) {
	t.Helper()
	for i := range m.FactorGraph.NumGaussians() {
		lg := m.FactorGraph.Gaussian(i)
		f := m.Factors().LabelledFactor(lg.Factor)
		if _, ok := f.Kind.(factor.NormalPrior); !ok || !lg.Pos.IsValid() {
			t.Errorf("%s: graph factor %d is %T %q, pos %v", lg.Label, lg.Factor, f.Kind, f.Label, lg.Pos)
		}
	}
	for i := range m.FactorGraph.NumSites() {
		s := m.FactorGraph.Site(i)
		if f := m.Factors().LabelledFactor(s.Factor); f.Label != s.Label || !graph.SameKind(f.Kind, s.Shared.Lik) {
			t.Errorf("site %s: graph factor %d is %T %q, want %T", s.Label, s.Factor, f.Kind, f.Label, s.Shared.Lik)
		}
	}
}

const randomWalkSrc = `
data T = 6
data y = [0.1, 0.5, 0.2, 0.9, 1.3, 1.1]
data tobs = [0, 2, 3, 5]
latent x: real[T]
x[0] ~ normal(0, 10)
for t in 1..T {
  x[t] ~ normal(x[t-1], 0.5)
}
for k in 0..4 {
  y[tobs[k]] ~ normal(x[tobs[k]], 0.2)
}
`

func TestFactorGraphRandomWalk(t *testing.T) {
	m, g := fgOf(t, randomWalkSrc)
	if g.NumVars != 6 || !reflect.DeepEqual(g.First, []int{0}) || g.NumGaussians() != 6 || g.NumSites() != 4 || len(g.Dense) != 0 {
		t.Fatalf("graph: %d vars, First %v, %d Gaussians, %d sites, %d dense", g.NumVars, g.First, g.NumGaussians(), g.NumSites(), len(g.Dense))
	}
	x0 := gaussianOf(t, g, 0)
	wantAffine(t, "x[0]", x0.Aff, []int{0}, []float64{1}, 0)
	if x0.Var != 10 || x0.Label != "normal(x[0])" || m.Fset.Position(x0.Pos).Line != 6 {
		t.Errorf("x[0]: %+v", x0)
	}
	x3 := gaussianOf(t, g, 3)
	wantAffine(t, "x[3]", x3.Aff, []int{3, 2}, []float64{1, -1}, 0)
	if x3.Var != 0.5 || x3.Label != "normal(x[3])" || m.Fset.Position(x3.Pos).Line != 8 {
		t.Errorf("x[3]: %+v", x3)
	}
	s := g.Site(2) // y[3] observes x[3]
	wantAffine(t, "y[3]", s.Aff, []int{3}, []float64{1}, 0)
	if s.Shared.Lik != (factor.Normal{Var: 0.2}) || s.Y != 0.9 || s.Shared.Lik.Params()["var"] != 0.2 || s.Label != "normal(y[3])" {
		t.Errorf("site: %+v", s.Shared)
	}
	if f := m.Factors().LabelledFactor(x3.Factor); !reflect.DeepEqual(f.Vars, []int{3, 2}) {
		t.Errorf("graph factor of x[3] touches %v", f.Vars)
	}
	checkFactors(t, m)
}

// TestFactorGraphAR1Drift: x[t] ~ normal(a * x[t-1] + b, q) vectorised
// over a slice, observed at a subset of steps with data-indexed elements.
func TestFactorGraphAR1Drift(t *testing.T) {
	m, g := fgOf(t, `
param a = 0.8
param b = 0.5
data yobs = [1.0, 2.0, 1.5]
data tobs = [1, 3, 4]
latent x: real[5]
x[0] ~ normal(1, 4)
for t in 1..5 {
  x[t] ~ normal(a * x[t-1] + b, 0.3)
}
yobs ~ normal(x[tobs], 0.1)
`)
	wantAffine(t, "x[0]", gaussianOf(t, g, 0).Aff, []int{0}, []float64{1}, -1)
	wantAffine(t, "x[4]", gaussianOf(t, g, 4).Aff, []int{4, 3}, []float64{1, -0.8}, -0.5)
	if g.NumSites() != 3 {
		t.Fatalf("%d sites", g.NumSites())
	}
	wantAffine(t, "yobs[2]", g.Site(2).Aff, []int{4}, []float64{1}, 0)
	if g.Site(2).Y != 1.5 {
		t.Errorf("yobs[2] = %g", g.Site(2).Y)
	}
	checkFactors(t, m)
}

// TestFactorGraphEightSchools: theta ~ normal(mu, tau^2) with a scalar
// latent mu is one conditional per school.
func TestFactorGraphEightSchools(t *testing.T) {
	m, g := fgOf(t, `
data y = [28, 8, -3, 7, -1, 1, 18, 12]
data sigma = [15, 10, 16, 11, 9, 11, 10, 18]
param tau = 5
latent mu: real ~ normal(0, 100)
latent theta: real[8]
theta ~ normal(mu, tau^2)
for j in 0..8 {
  y[j] ~ normal(theta[j], sigma[j]^2)
}
`)
	if g.NumVars != 9 || !reflect.DeepEqual(g.First, []int{0, 1}) || g.NumGaussians() != 9 || g.NumSites() != 8 {
		t.Fatalf("graph: %d vars, First %v, %d Gaussians, %d sites", g.NumVars, g.First, g.NumGaussians(), g.NumSites())
	}
	mu := gaussianOf(t, g, 0)
	wantAffine(t, "mu", mu.Aff, []int{0}, []float64{1}, 0)
	if mu.Var != 100 || mu.Label != "normal(mu)" {
		t.Errorf("mu: %+v", mu)
	}
	th := gaussianOf(t, g, 1+6)
	wantAffine(t, "theta[6]", th.Aff, []int{7, 0}, []float64{1, -1}, 0)
	if th.Var != 25 || th.Label != "normal(theta[6])" {
		t.Errorf("theta[6]: %+v", th)
	}
	wantAffine(t, "y[6]", g.Site(6).Aff, []int{7}, []float64{1}, 0)
	if g.Site(6).Y != 18 || g.Site(6).Shared.Lik.Params()["var"] != 100 {
		t.Errorf("y[6]: %+v", g.Site(6).Shared)
	}
	checkFactors(t, m)
	// The same hierarchy declared in the latent statement.
	_, g2 := fgOf(t, `
data y = [28, 8]
latent mu: real ~ normal(0, 100)
latent theta: real[2] ~ normal(mu + 1, 25)
y ~ normal(theta, 4)
`)
	wantAffine(t, "theta[1]", gaussianOf(t, g2, 2).Aff, []int{2, 0}, []float64{1, -1}, -1)
}

// TestFactorGraphRegressionIntercept: y ~ normal(X @ w + b, s2) with the
// intercept a second latent named b (an accessor name outside expect).
func TestFactorGraphRegressionIntercept(t *testing.T) {
	m, g := fgOf(t, `
data X = [[1, 2], [3, -4], [0.5, 6]]
data y = [1, 2, 3]
latent w: real[2] ~ normal(0, 1)
latent b: real ~ normal(0, 10)
y ~ normal(X @ w + b, 0.25)
expect mean(b) > -100
`)
	if g.NumVars != 3 || g.NumGaussians() != 3 || g.NumSites() != 3 {
		t.Fatalf("graph: %d vars, %d Gaussians, %d sites", g.NumVars, g.NumGaussians(), g.NumSites())
	}
	wantAffine(t, "w[1] prior", gaussianOf(t, g, 1).Aff, []int{1}, []float64{1}, 0)
	wantAffine(t, "y[1]", g.Site(1).Aff, []int{0, 1, 2}, []float64{3, -4, 1}, 0)
	if g.Site(1).Shared.Lik.Params()["var"] != 0.25 || g.Site(1).Y != 2 {
		t.Errorf("y[1]: %+v", g.Site(1).Shared)
	}
	checkFactors(t, m)
}

// TestFactorGraphTrueSkill: performances perf[g, k] ~ normal(skill[p], β²)
// and step(perf[g, 0] − perf[g, 1], 0) on the winner-first games.
func TestFactorGraphTrueSkill(t *testing.T) {
	m, g := fgOf(t, `
data games = [[0, 1], [1, 2], [2, 0], [0, 2]]
data won = [1, 1, 1, 1]
param beta2 = 0.5
latent skill: real[3] ~ normal(25, 70)
latent perf: real[4, 2]
for i in 0..4 {
  perf[i, 0] ~ normal(skill[games[i, 0]], beta2)
  perf[i, 1] ~ normal(skill[games[i, 1]], beta2)
  won[i] ~ step(perf[i, 0] - perf[i, 1], 0)
}
`)
	if g.NumVars != 11 || !reflect.DeepEqual(g.First, []int{0, 3}) || g.NumGaussians() != 11 || g.NumSites() != 4 {
		t.Fatalf("graph: %d vars, First %v, %d Gaussians, %d sites", g.NumVars, g.First, g.NumGaussians(), g.NumSites())
	}
	wantAffine(t, "skill[2] prior", gaussianOf(t, g, 2).Aff, []int{2}, []float64{1}, -25)
	p := gaussianOf(t, g, 3+2*2+1) // perf[2, 1] ~ normal(skill[0], beta2)
	wantAffine(t, "perf[2, 1]", p.Aff, []int{8, 0}, []float64{1, -1}, 0)
	if p.Label != "normal(perf[2, 1])" || p.Var != 0.5 {
		t.Errorf("perf[2, 1]: %+v", p)
	}
	s := g.Site(2)
	wantAffine(t, "won[2]", s.Aff, []int{7, 8}, []float64{1, -1}, 0)
	if !graph.SameKind(s.Shared.Lik, factor.Step{}) || s.Y != 1 || s.Label != "step(won[2])" {
		t.Errorf("won[2]: %+v", s.Shared)
	}
	checkFactors(t, m)
}

// TestFactorGraphHierarchicalProbit: group intercepts with a latent mean,
// probit(dot(X[i], w) + a[group[i]]).
func TestFactorGraphHierarchicalProbit(t *testing.T) {
	m, g := fgOf(t, `
data X = [[1, 0], [0, 1], [1, 1], [-1, 2]]
data y: spin[4] = [1, -1, 1, -1]
data group = [0, 1, 1, 0]
latent w: real[2] ~ normal(0, 1)
latent m: real ~ normal(0, 4)
latent a: real[2] ~ normal(m, 1)
for i in 0..4 {
  y[i] ~ probit(dot(X[i], w) + a[group[i]])
}
`)
	if g.NumVars != 5 || !reflect.DeepEqual(g.First, []int{0, 2, 3}) {
		t.Fatalf("graph: %d vars, First %v", g.NumVars, g.First)
	}
	wantAffine(t, "a[1]", gaussianOf(t, g, 4).Aff, []int{4, 2}, []float64{1, -1}, 0)
	wantAffine(t, "y[3]", g.Site(3).Aff, []int{0, 1, 3}, []float64{-1, 2, 1}, 0)
	if g.Site(3).Y != -1 || !graph.SameKind(g.Site(3).Shared.Lik, factor.Probit{}) {
		t.Errorf("y[3]: %+v", g.Site(3).Shared)
	}
	checkFactors(t, m)
}

// TestFactorGraphGPBias: a gp prior stays one dense block beside a latent
// bias; probit(f[i] + b).
func TestFactorGraphGPBias(t *testing.T) {
	m, g := fgOf(t, `
data X = [[0], [1], [2]]
data y: spin[3] = [1, -1, 1]
latent f: real[3] ~ gp(se(1, 1), X)
latent b: real ~ normal(0, 2)
for i in 0..3 {
  y[i] ~ probit(f[i] + b - 0.5)
}
`)
	if len(g.Dense) != 1 || !reflect.DeepEqual(g.Dense[0].Vars(), []int{0, 1, 2}) || g.Dense[0].Prior.Kind != (factor.GP{}) || g.Dense[0].Name != "f" {
		t.Fatalf("dense: %+v", g.Dense)
	}
	if c := g.Dense[0].Prior.Cov; c == nil || c.At(0, 0) != 1 {
		t.Errorf("gp covariance: %v", c)
	}
	if g.NumGaussians() != 1 || g.Gaussian(0).Target != 3 || g.Gaussian(0).Var != 2 {
		t.Errorf("Gaussians: %+v", g.Gaussian(0))
	}
	wantAffine(t, "y[1]", g.Site(1).Aff, []int{1, 3}, []float64{1, 1}, -0.5)
	checkFactors(t, m)
}

// TestFactorGraphBlockSitesConverted: once a model is a factor graph, its
// block-style sites (an index, a projection) become affine sites too.
func TestFactorGraphBlockSitesConverted(t *testing.T) {
	_, g := fgOf(t, `
data X = [[1, 2], [3, 4]]
data y: spin[2] = [1, -1]
latent w: real[2] ~ mvnormal([0, 1], [[2, 0.5], [0.5, 1]])
latent c: real ~ normal(0, 1)
y[0] ~ probit(dot(X[0], w))
y[1] ~ probit(w[1] + c)
`)
	wantAffine(t, "y[0]", g.Site(0).Aff, []int{0, 1}, []float64{1, 2}, 0)
	if g.Site(0).Shared.Proj != nil || g.Site(0).Shared.Index != -1 {
		t.Errorf("converted site keeps Index %d Proj %v", g.Site(0).Shared.Index, g.Site(0).Shared.Proj)
	}
	if len(g.Dense) != 1 || g.Dense[0].Prior.Kind != (factor.MVNormal{}) {
		t.Errorf("dense: %+v", g.Dense)
	}
}

// TestBlockModelsUnchanged: models with none of the factor-graph
// constructs still compile to a graph of blocks, each site in its block, and a projection built from affine
// forms equals, bit for bit, the gradient the jet path gives.
func TestBlockModelsUnchanged(t *testing.T) {
	src := `
data X = [[1.5, -2, 0.3], [0.7, 1.1, -3.3], [2, 2, 2]]
data y: spin[3] = [1, -1, 1]
param s = 3
latent w: real[3] ~ normal(0, 1)
y[0] ~ probit(dot(X[0], w) / s)
y[1] ~ probit((X @ w)[1] * 0.1 - w[2] / 7)
y[2] ~ probit(sum(w) - 0.3 * (w[0] + w[1]))
`
	m := mustCompile(t, src, Options{})
	if m.Structure() != infer.Blocks || len(m.Blocks()) != 1 || m.FactorGraph.NumSites() != 0 || m.FactorGraph.NumGaussians() != 0 {
		t.Fatalf("structure %v, %d blocks", m.Structure(), len(m.Blocks()))
	}
	c := newCompiler(Options{})
	c.run("test.fg", []byte(src))
	for i, e := range []string{"dot(X[0], w) / s", "(X @ w)[1] * 0.1 - w[2] / 7", "sum(w) - 0.3 * (w[0] + w[1])"} {
		x, err := parser.ParseExpr(e)
		if err != nil {
			t.Fatal(err)
		}
		c.sources[""] = []byte(e)
		c.an.resolve(x, c.an.here()) // an expression outside the files, after the model
		jets := c.affine(x, c.eval(x))[0]
		if got := m.Blocks()[0].Sites[i].Proj; !reflect.DeepEqual(got, jets.Proj) {
			t.Errorf("%s: Proj %v, jets %v", e, got, jets.Proj)
		}
	}
}

func TestFactorGraphScalarLatent(t *testing.T) {
	m := mustCompile(t, `
data y = [1, 2]
latent mu: real ~ normal(0, 100)
y ~ normal(mu, 1)
`, Options{})
	if m.Structure() != infer.Blocks || len(m.Blocks()) != 1 || m.Blocks()[0].N != 1 {
		t.Fatalf("scalar latent: %+v", m.Blocks())
	}
	_, g := fgOf(t, `
data y = [1, 2]
latent mu: real ~ normal(0, 100)
y ~ normal(mu + 1, 1)
`)
	wantAffine(t, "y[1]", g.Site(1).Aff, []int{0}, []float64{1}, 1)
}

// TestFactorGraphRefusals: what the factor-graph engines do not serve yet is
// a compile error at its position.
func TestFactorGraphRefusals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`latent x: real[2] ~ normal(0, 1)
x[1] ~ normal(x[0], 1)`, "x[1] already has a prior or conditional (at test.fg:1:21)"},
		{`latent w: real[2] ~ student_t(3, 0, 1)
latent b: real ~ normal(0, 1)
data y = [1]
y ~ normal(w[0] + b, 1)`, "the student_t prior of `w` cannot be combined with a factor-graph model yet"},
		{`latent w: real[2] ~ normal(0, 1)
latent b: real ~ normal(0, 1)
data y = [1]
y ~ normal(w[0] + b, 1)
factor exp(-w[0]^2)`, "cannot be combined with a factor-graph model yet; this model is a factor graph because of the normal argument `w[0] + b` at test.fg:4:12"},
	} {
		got := compileErr(t, c.src, Options{})
		if !strings.Contains(got, c.want) {
			t.Errorf("error %q, want %q", got, c.want)
		}
		if strings.Contains(got, "no prior") {
			t.Errorf("a refused prior cascades: %q", got)
		}
	}
}

// randomWalkSource is a random walk of T steps observed at every step.
func randomWalkSource(T int) string {
	return fmt.Sprintf(`
data T = %d
data y = random_normal(1, T)
latent x: real[T]
x[0] ~ normal(0, 10)
for t in 1..T {
  x[t] ~ normal(x[t-1], 0.1)
}
for t in 0..T {
  y[t] ~ normal(x[t], 1)
}
`, T)
}

// BenchmarkCompileRandomWalk compiles random walks of 10⁴ and 10⁵ steps
// (2T factors): the time per step must not grow with T.
func BenchmarkCompileRandomWalk(b *testing.B) {
	for _, T := range []int{10_000, 100_000} {
		src := []byte(randomWalkSource(T))
		b.Run(fmt.Sprint("T=", T), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				m, err := CompileSource("rw.fg", src, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if m.FactorGraph.NumGaussians() != T {
					b.Fatal("wrong graph")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(T), "ns/step")
		})
	}
}

// TestFactorGraphOtherLikelihoods: every likelihood and a mixture take
// affine arguments with a constant.
func TestFactorGraphOtherLikelihoods(t *testing.T) {
	m, g := fgOf(t, `
data y: spin[2] = [1, -1]
data r = [0.5, 2]
data k = [3, 0]
latent w: real[2] ~ normal(0, 1)
latent c: real ~ normal(0, 1)
y[0] ~ logistic(w[0] + c)
r[0] ~ student_t(4, w[1] - c + 1, 0.5)
k[0] ~ poisson_log(2 * w[0] + 0.5)
r[1] ~ mixture([0.8, 0.2], normal(w[1] + c, 1), normal(0, 10))
`)
	want := []struct {
		kind  factor.Kind
		vars  []int
		coefs []float64
		c     float64
	}{
		{factor.Logistic{}, []int{0, 2}, []float64{1, 1}, 0},
		{factor.StudentT{}, []int{1, 2}, []float64{1, -1}, 1},
		{factor.PoissonLog{}, []int{0}, []float64{2}, 0.5},
		{factor.Mixture{}, []int{1, 2}, []float64{1, 1}, 0},
	}
	if g.NumSites() != len(want) {
		t.Fatalf("%d sites", g.NumSites())
	}
	for i, w := range want {
		s := g.Site(i)
		if !graph.SameKind(s.Shared.Lik, w.kind) {
			t.Errorf("site %d is %s, want %s", i, s.Shared.Lik.Name(), w.kind.Name())
		}
		wantAffine(t, s.Label, s.Aff, w.vars, w.coefs, w.c)
	}
	checkFactors(t, m)
}

// TestVectorLikelihoodParams: y ~ normal(theta, sigma^2) gives each site
// its own variance, in block and factor-graph models.
func TestVectorLikelihoodParams(t *testing.T) {
	m := mustCompile(t, `
data y = [28, 8, -3]
data sigma = [15, 10, 16]
latent theta: real[3] ~ normal(0, 100)
y ~ normal(theta, sigma^2)
`, Options{})
	for i, want := range []float64{225, 100, 256} {
		s := m.Blocks()[0].Sites[i]
		if s.Lik.Params()["var"] != want || s.Lik != (factor.Normal{Var: want}) || s.Index != i {
			t.Errorf("site %d: params %v, index %d, want var %g", i, s.Lik.Params(), s.Index, want)
		}
	}
	_, g := fgOf(t, `
data y = [28, 8]
latent mu: real ~ normal(0, 100)
latent theta: real[2] ~ normal(mu, 25)
y ~ normal(theta + 1, [4, 9])
`)
	if g.Site(1).Shared.Lik.Params()["var"] != 9 || g.Site(0).Shared.Lik.Params()["var"] != 4 {
		t.Errorf("sites: %+v, %+v", g.Site(0).Shared, g.Site(1).Shared)
	}
}

// TestDenseProjectionBound: a block model's projections that are not single
// elements are dense; past the covariance limit they are refused, not
// allocated.
func TestDenseProjectionBound(t *testing.T) {
	src := `
data y = random_normal(1, 1000)
latent x: real[250] ~ normal(0, 1)
for j in 0..4 {
  for i in 0..250 {
    y[250 * j + i] ~ normal(2 * x[i], 1)
  }
}
`
	got := compileErr(t, src, Options{maxCovBytes: 1 << 20})
	if !strings.Contains(got, "the 1000 projections of `x` that are not single elements need 250 dense entries each") || !strings.Contains(got, "test.fg:6:5") {
		t.Errorf("error %q", got)
	}
	m := mustCompile(t, src, Options{maxCovBytes: 4 << 20})
	if p := m.Blocks()[0].Sites[257].Proj; len(p) != 250 || p[7] != 2 || p[8] != 0 {
		t.Errorf("site 257: Proj %v", p)
	}
}

// conditionalCases are chains whose conditionals' coefficients and
// constants follow rules, vary per element, cross zero or are −0, with
// several statements and whole-latent priors before them.
var conditionalCases = []string{
	`model m
latent x: real[50]
data y = random_normal(1, 50, 0, 1)
x[0] ~ normal(-0.0, 4)
for t in 1..50 { x[t] ~ normal(0.9 * x[t-1] - 0.0, 1) }
for t in 0..50 { y[t] ~ normal(x[t], 2) }
infer ep
`,
	`model m
latent x: real[40]
latent z: real[40]
data a: real[40] = [0.5, 0.475, 0.45, 0.425, 0.4, 0.375, 0.35, 0.325, 0.3, 0.275, 0.25, 0.225, 0.2, 0.175, 0.15, 0.125, 0.1, 0.075, 0.05, 0.025, 0.0, -0.025, -0.05, -0.075, -0.1, -0.125, -0.15, -0.175, -0.2, -0.225, -0.25, -0.275, -0.3, -0.325, -0.35, -0.375, -0.4, -0.425, -0.45, -0.475]
data b: real[40] = [-2.0, -1.9, -1.8, -1.7, -1.6, -0.0, 0, -0.0, -1.2, -1.1, -1.0, -0.9, -0.8, -0.7, -0.6, -0.5, -0.4, -0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9]
data y: spin[40] = [-1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1]
z ~ normal(0, 1)
x[0] ~ normal(1, 2)
for t in 1..40 { x[t] ~ normal(a[t] * x[t-1] + b[t] + z[t], 0.5) }
for t in 0..40 { y[t] ~ probit(x[t]) }
infer ep
`,
	`model m
latent x: real[30]
x[0:10] ~ normal(0, 1)
for t in 10..30 { x[t] ~ normal(-x[t-1] + x[t-10], 2) }
data y = random_normal(2, 30, 0, 1)
for t in 1..30 { y[t] ~ normal(x[t] - x[t-1], 1) }
infer ep
`,
}

// TestConditionalColumnsAsPerElement checks that the conditionals
// converted a stretch of columns at a time (conditionalColumns) are those
// converted one at a time, bit for bit: every Gaussian's variables,
// coefficients, constant, variance, graph factor, label and position, and
// the model's dump, for conditionalCases, every example and every golden
// and error file.
func TestConditionalColumnsAsPerElement(t *testing.T) {
	srcs := testSources(t)
	for i, s := range conditionalCases {
		srcs = append(srcs, testSource{fmt.Sprintf("cond%d.fg", i), s})
	}
	converted := 0
	for _, s := range srcs {
		cols, one := compileDump(s.name, s.text, Options{}), compileDump(s.name, s.text, Options{perElement: true})
		if cols != one {
			t.Errorf("%s: the conditionals compile differently:\n--- columns\n%s\n--- per element\n%s", s.name, clip(cols), clip(one))
			continue
		}
		a, errA := CompileSource(s.name, []byte(s.text), Options{})
		b, errB := CompileSource(s.name, []byte(s.text), Options{perElement: true})
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s: errors %v and %v", s.name, errA, errB)
		}
		if errA != nil || a.FactorGraph == nil {
			continue
		}
		fa, fb := a.FactorGraph, b.FactorGraph
		if fa.NumGaussians() != fb.NumGaussians() {
			t.Fatalf("%s: %d and %d Gaussians", s.name, fa.NumGaussians(), fb.NumGaussians())
		}
		for i := range fa.NumGaussians() {
			ga, gb := fa.Gaussian(i), fb.Gaussian(i)
			if !sameGaussian(ga, gb) {
				t.Errorf("%s: Gaussian %d is %+v by columns, %+v one at a time", s.name, i, ga, gb)
			}
		}
		converted += fa.NumGaussians()
	}
	if converted < 100 {
		t.Errorf("only %d conditionals compared", converted)
	}
}

// sameGaussian reports whether a and b are the same factor, numbers bit
// for bit.
func sameGaussian(a, b graph.LinearGaussian) bool {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	if !slices.Equal(a.Aff.Vars, b.Aff.Vars) || len(a.Aff.Coefs) != len(b.Aff.Coefs) || !same(a.Aff.Const, b.Aff.Const) ||
		!same(a.Var, b.Var) || a.Target != b.Target || a.Factor != b.Factor || a.Label != b.Label || a.Pos != b.Pos {
		return false
	}
	for k := range a.Aff.Coefs {
		if !same(a.Aff.Coefs[k], b.Aff.Coefs[k]) {
			return false
		}
	}
	return true
}
