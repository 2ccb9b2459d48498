package compile

import (
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/fgraph"
	"github.com/fg-infer/fg/lang/ast"
)

// fgModel is a factor-graph model over n variables: a chain (when loop is
// false) or a chain closed into a ring, with one probit site on its first
// element (or a Gaussian observation when gaussian is set), and optionally
// a dense block over its first two variables in place of their priors.
func fgModel(n int, loop, gaussian, dense bool) *Model {
	g := &graph.Graph{Fset: fgFset}
	g.AddLatent("x", graph.Real, 0, []int{n}, posOf(1))
	fg := &FactorGraph{NumVars: n, First: []int{0}}
	start := 1
	if dense {
		fg.Dense = []*graph.Block{{Latent: 0, Name: "x", First: 0, N: 2, Prior: graph.Prior{Kind: factor.MVNormal{}, Mean: []float64{0, 0}, Cov: mat.NewSymDense(2, []float64{1, 0, 0, 1})}}}
		start = 2
	} else {
		fg.AddGaussian(graph.LinearGaussian{Aff: graph.Form{Vars: []int{0}, Coefs: []float64{1}}, Var: 1})
	}
	for t := start; t < n; t++ {
		fg.AddGaussian(graph.LinearGaussian{Aff: graph.Form{Vars: []int{t, t - 1}, Coefs: []float64{1, -1}}, Var: 1, Target: t})
	}
	var lik factor.Site = factor.Probit{}
	if gaussian {
		lik = factor.Normal{Var: 1}
	}
	fg.AddSite(graph.AffineSite{Shared: &graph.Site{Lik: lik, Index: -1}, Y: 1, Aff: graph.Form{Vars: []int{0}, Coefs: []float64{1}}})
	if loop {
		fg.AddSite(graph.AffineSite{Shared: &graph.Site{Lik: factor.Normal{Var: 1}, Index: -1}, Aff: graph.Form{Vars: []int{n - 1, 0}, Coefs: []float64{1, -1}}})
	}
	return &Model{Fset: fgFset, Graph: g, FactorGraph: fg, Params: map[string]Value{}, Data: map[string]Value{}}
}

// bandModel is fgModel's chain with a second conditional on x_{t−2} at
// every step: cycles, but a joint precision of half-bandwidth 2.
func bandModel(n int, gaussian bool) *Model {
	m := fgModel(n, false, gaussian, false)
	for t := 2; t < n; t++ {
		m.FactorGraph.AddGaussian(graph.LinearGaussian{Aff: graph.Form{Vars: []int{t, t - 2}, Coefs: []float64{1, -1}}, Var: 4, Target: t})
	}
	return m
}

// fgFset holds fg.fg, 100 empty lines standing for fgModel's source:
// posOf(line) is the start of one of them.
var fgFset, fgFile = func() (*ast.FileSet, *ast.SourceFile) {
	fset := ast.NewFileSet()
	return fset, fset.AddFile("fg.fg", []byte(strings.Repeat("\n", 100)))
}()

func posOf(line int) ast.Pos { return fgFile.Pos(line - 1) }

// TestFactorGraphInferChecks: infer lines that the factor-graph engines
// cannot serve are refused when the line compiles (here as --method
// strings against a model with a FactorGraph), with the position of the
// offending option; those they serve compile.
func TestFactorGraphInferChecks(t *testing.T) {
	big := fgraph.MaxJoint + 1
	for _, c := range []struct {
		m    *Model
		line string
		want string // regexp of the error, "" for none
	}{
		{fgModel(5, false, false, false), "ep", ""},
		{fgModel(5, false, false, false), "ep { family = factorized, schedule = residual }", ""},
		{fgModel(5, false, false, false), "ep { divergence = relaxed_kl(c = 2) }", ""},
		{fgModel(5, false, false, false), "ep { divergence = alpha(0.5), family = factorized, schedule = parallel }", ""},
		{fgModel(5, false, false, false), "mcmc", ""},
		{fgModel(3, false, false, false), "exact", ""},
		{fgModel(big, false, true, false), "exact", ""},
		{fgModel(big, false, false, false), "ep", ""},
		{fgModel(5, false, false, false), "bp", `^--method:1:1: no rule for normal with divergence kl in bp`},
		{fgModel(5, false, false, false), "ep { divergence = t(nu = 3) }", `no rule for normal with divergence t in ep`},
		{fgModel(5, false, false, false), "ep { shards = 2 }", `1:15: option .shards. applies to the Gaussian-block engines`},
		{fgModel(5, false, false, false), "ep { passes = 1 }", `1:15: option .passes.`},
		{fgModel(5, false, false, false), "ep { schedule = residual }", `1:17: schedule residual is not available for ep on a factor graph under family = full`},
		{fgModel(5, false, false, false), "ep { family = factorized, divergence = relaxed_kl(c = 2) }", `1:40: relaxed_kl .* needs family = full`},
		{fgModel(5, false, false, true), "ep { family = factorized }", `1:15: family = factorized keeps one belief per element; the mvnormal prior of .x.`},
		{fgModel(4, false, false, false), "exact", `1:1: exact integrates .* at most 3 latent elements; this one has 4: use infer mcmc`},
		{fgModel(big, true, true, false), "exact", `exact solves this linear-Gaussian graph .* at most 4000`},
		{fgModel(big, true, false, false), "ep", `family = full here .* at most 4000 latent elements; this one has 4001`},
		{fgModel(big, false, false, false), "ep { divergence = relaxed_kl(c = 2) }", `family = full here`},
		{fgModel(big, false, false, false), "mcmc", ""},
		{fgModel(big, true, false, false), "mcmc", `mcmc samples the joint Gaussian prior of at most 4000 latent elements unless the model is a chain`},
		{fgModel(big, false, false, true), "mcmc", `mcmc samples the joint Gaussian prior of at most 4000`},
		// A linear-Gaussian graph with cycles whose precision is banded
		// (factors on x_t, x_{t−2}: half-bandwidth 2) is solved on the band
		// by ep and exact at any size; so is ep with a probit site inside
		// the band (not relaxed_kl, whose relaxation needs the dense
		// joint), while a site across the band (fgModel's loop, on x_0
		// and x_{n−1}) needs the dense joint; mcmc samples a band as a
		// chain (particle Gibbs).
		{bandModel(big, true), "exact", ""},
		{bandModel(big, true), "ep", ""},
		{bandModel(big, true), "ep { divergence = relaxed_kl(c = 2) }", `family = full here`},
		{bandModel(big, false), "ep", ""},
		{bandModel(big, false), "ep { divergence = alpha(0.5), schedule = parallel, damping = 0.5 }", ""},
		{bandModel(big, false), "ep { divergence = relaxed_kl(c = 2) }", `family = full here .* at most 4000 latent elements; this one has 4001`},
		{bandModel(big, true), "mcmc", ""},
		{bandModel(big, false), "mcmc", ""},
	} {
		_, err := MethodSpec(c.m, c.line)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.line, err)
		case c.want != "" && (err == nil || !regexp.MustCompile(c.want).MatchString(err.Error())):
			t.Errorf("%q: error %v, want %q", c.line, err, c.want)
		}
	}
}
