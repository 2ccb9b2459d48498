package compile_test

import (
	"fmt"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/lang/ast"
)

func ExampleCompileSource() {
	src := []byte(`
data X: real[3, 2] = [[1, 2], [3, -4], [0, 5]]
data y: spin[3] = [1, -1, 1]
latent w: real[2] ~ normal(0, 1)
for i in 0..3 {
  y[i] ~ step(dot(X[i], w), 0.1)
}
infer ep
infer ep { divergence = relaxed_kl(c = 20) }
`)
	m, err := compile.CompileSource("toy.fg", src, compile.Options{Set: map[string]string{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := m.Blocks()[0]
	fmt.Println(b.Name, b.N, b.Prior.Kind.Name(), len(b.Sites))
	fmt.Println(b.Sites[1].Label, b.Sites[1].Y, b.Sites[1].Proj, b.Sites[1].Lik.Params()["eps"])
	for _, s := range m.Infers {
		fmt.Println(s.Label, s.Settings.Divergence, s.Settings.Tol, s.Settings.MaxIter)
	}
	// Output:
	// w 2 normal 3
	// step(y[1]) -1 [3 -4] 0.1
	// ep kl 1e-06 200
	// ep_relaxed_kl relaxed_kl(c = 20) 1e-06 200
}

func ExampleCompileSource_errors() {
	src := []byte("data y: spin[2] = [1, 2]\nlatent w: real[2] ~ normall(0, 1)\n")
	_, err := compile.CompileSource("bad.fg", src, compile.Options{})
	for _, e := range err.(ast.ErrorList) {
		fmt.Println(e)
	}
	// Output:
	// bad.fg:1:19: y[1]: label 2 is not a spin value (-1/+1)
	// bad.fg:2:21: unknown distribution `normall`; did you mean `normal`?
}

// A random walk with a drift compiles to a FactorGraph: one linear-Gaussian
// factor N(0; aᵀx + c, var) per element and an affine site per observation.
func ExampleCompileSource_factorGraph() {
	src := []byte(`
data y = [0.3, 1.2]
latent x: real[3]
x[0] ~ normal(0, 10)
for t in 1..3 {
  x[t] ~ normal(0.9 * x[t-1] + 0.1, 0.5)
}
y ~ normal(x[1:3], 0.2)
`)
	m, err := compile.CompileSource("walk.fg", src, compile.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := m.FactorGraph
	fmt.Println(len(m.Blocks()), g.NumVars, g.NumGaussians(), g.NumSites())
	for i, f := range g.Gaussians() {
		fmt.Println(g.GaussianLabel(i), f.Target, f.Aff.Vars, f.Aff.Coefs, f.Aff.Const, f.Var)
	}
	s := g.Site(1)
	fmt.Println(s.Label, s.Y, s.Aff.Vars, s.Shared.Lik.Params()["var"])
	// Output:
	// 0 3 3 2
	// normal(x[0]) 0 [0] [1] 0 10
	// normal(x[1]) 1 [1 0] [1 -0.9] -0.1 0.5
	// normal(x[2]) 2 [2 1] [1 -0.9] -0.1 0.5
	// normal(y[1]) 1.2 [2] 0.2
}
