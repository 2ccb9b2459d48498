// Package compile turns a parsed fg model (lang/ast) into a Model: evaluated
// data and params, a factor graph (graph.Graph), the real latents held once
// as a FactorGraph (its Blocks view: independent Gaussian blocks) or the
// model as a typed factor graph graph.Net, and the infer/predict/expect/learn
// specifications.
// It resolves names, checks types and shapes, evaluates data expressions
// (csv, generators, --set overrides), unrolls plates and consults the stdlib
// registry for every name; errors carry positions and are all reported.
//
// This file is the contract between compile and infer/run (the only adapter
// to the engines). Engines never import compile.
package compile

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// Model is a compiled model.
type Model struct {
	Name  string
	Files []*ast.File // the root file first, then imports in load order
	// Fset resolves every position of the model (its files' nodes, its
	// graph's latents and factors, its specs): file:line:col is computed
	// where a position is printed. A recompilation has a set of its own.
	Fset   *ast.FileSet
	Params map[string]Value
	Data   map[string]Value
	// CSVFiles maps each data item defined with a csv() call to the file
	// it read (after an Options.Data override), as opened through
	// Options.FS.
	CSVFiles map[string]string
	Graph    *graph.Graph // every latent; the factors but those only FactorGraph holds (Factors lists them all)
	// FactorGraph is the real-latent part of the model, held once: its
	// variables, linear-Gaussian factors, dense blocks and sites
	// (factorgraph.go); nil without real latents. Blocks is its view as
	// independent Gaussian blocks when it is one.
	FactorGraph *FactorGraph
	// Net is the whole model as a typed factor graph (graph/net.go) when
	// it has a latent of a family other than the Gaussian (beta, gamma,
	// inv_gamma, dirichlet), a likelihood whose parameter is such a
	// latent, or a discrete chain; Graph still lists its latents, and
	// FactorGraph is then nil. infer/run runs it on
	// infer/mp (ep, alpha(0) = VMP) and its gold standards.
	Net    *graph.Net
	Infers []*InferSpec
	// Skipped are the infer lines Options.Only leaves out: labelled (expect
	// lines and labels of later lines see them) but neither checked
	// against the model nor run.
	Skipped  []*InferSpec
	Predicts []*PredictSpec
	Expects  []*ExpectSpec
	Learn    *LearnSpec // nil without a learn statement
	// Warnings are diagnostics that do not stop compilation (an
	// experimental message rule), with positions; fg check and fg run
	// print them to stderr with the source line.
	Warnings ast.ErrorList

	// what Recompile needs
	opt        Options
	src        []byte
	filename   string
	libdaiFile bool        // a libDAI file read as a stream (src is nil)
	learn      *learnState // what LearnFunc needs; nil without a learn statement
}

// Value is an evaluated data or param value: a scalar, a vector, a matrix, a
// string, or a graph (from libdai(), geodesic_dome(), grid()). Shape is nil
// for scalars; Num holds the numbers row-major.
type Value struct {
	Shape  []int
	Num    []float64
	Str    string
	Graph  *graph.Graph // for graph-valued data (edges(G) plates)
	Edges  [][2]int     // edge list for graph-valued data
	Nodes  int          // number of vertices for graph-valued data
	Domain graph.Domain // declared element domain for data
	// Columns names the columns of a matrix read by csv() (its header names,
	// "intercept" for the column intercept = true appends); nil otherwise.
	Columns []string
	Pos     ast.Pos
}

// Blocks is the model's real-latent part viewed as independent Gaussian
// blocks (FactorGraph.Blocks()), nil when it is not one or there is none.
func (m *Model) Blocks() []*graph.Block {
	if m.FactorGraph == nil {
		return nil
	}
	return m.FactorGraph.Blocks()
}

// InferSpec is one infer line.
type InferSpec struct {
	Label  string // unique label: `as NAME`, else the method for its default divergence, else METHOD_DIVNAME; _2, _3 for later lines (docs/language.md)
	Method infer.Method
	// LineOptions are what the line's options set (Settings, Approx,
	// Family, Passes, ExactMethod, NonNegativeSites, Shards, the mcmc run
	// lengths), the method's defaults for those it does not write.
	infer.LineOptions
	Options map[string]string // the options as written, for reports
	Pos     ast.Pos
	stmt    *ast.InferStmt // the line, for the positions of Model.Supports
}

// PredictSpec is one predict statement: predictive quantities of a block at
// new inputs. For GP/TP blocks Xnew holds new input rows; for linear blocks
// Xnew holds projection vectors (one row per new point).
type PredictSpec struct {
	Name   string
	Block  int
	Xnew   *mat.Dense
	Lik    graph.SiteKind // the block's likelihood for p(y = +1) or E[y], nil if none
	Sparse *SparseInput   // libsvm new inputs (Xnew nil), scored against their labels
	// Display marks a grid that only a plot reads (fg run --plot's decision
	// boundary): the gold-standard methods may answer it with a cheaper
	// predictive (infer/run's displayPrediction) instead of an integral per input.
	Display bool
	// FG is set for a predict on a factor-graph model (Block is then −1).
	FG *FGPredict
	// Net is set for a predict on a typed-factor-graph model (Block −1,
	// Xnew nil): the likelihood of a new observation (net_predict.go).
	Net *NetPredict
	Pos ast.Pos
}

// FGPredict is a predict statement on a real latent of a factor-graph
// model (infer/run/predict_factorgraph.go). Per row t of Xnew, g*_t is a
// new value of the latent's gp prior at input Xnew[t] (Dense ≥ 0, a gp
// block), or the projection Xnew[t]·x[Vars] (Dense = −1). The predict
// reports Scale·g* + Rest (predictive(f + b, Xnew): Scale 1, Rest b), and
// Lik (PredictSpec.Lik) applies to the sites' common argument
// SiteScale·g* + SiteRest (y[i] ~ probit(f[i] + b): 1 and b).
type FGPredict struct {
	Vars      []int // the FactorGraph variables of the latent, in element order
	Dense     int   // index into FactorGraph.Dense of its gp prior, −1 for projections
	Scale     float64
	Rest      graph.Form
	SiteScale float64
	SiteRest  graph.Form
}

// ExpectSpec is one expect statement.
type ExpectSpec struct {
	Expr ast.Expr
	For  string // a result label, or "" for every result
	Pos  ast.Pos
}

// LearnSpec is a learn statement: params to optimise by evidence maximisation.
type LearnSpec struct {
	Params   []LearnParam
	Settings infer.LearnOptions // the checked options
	Options  map[string]string  // the options as written, for reports
	Pos      ast.Pos
}

// LearnParam is one learned param with optional bounds (Lo < Hi when bounded;
// otherwise positive params are optimised on the log scale).
type LearnParam struct {
	Name    string
	Lo, Hi  float64
	Bounded bool
	Pos     ast.Pos
}

// discretePriors marks the graph variables that have a categorical prior
// or conditional: a factor of their own in Graph, or, in a Net model, a
// factor whose edge x is the variable (z[0] ~ categorical(p), the
// transition z[t] ~ categorical(A[z[t-1]])).
func (m *Model) discretePriors() map[int]bool {
	prior := map[int]bool{}
	for _, f := range m.Graph.FactorForms() {
		if _, cat := f.Kind.(factor.Categorical); cat && len(f.Vars) == 1 {
			prior[f.Vars[0]] = true
		}
	}
	if m.Net == nil {
		return prior
	}
	for i := range m.Net.Factors {
		f := &m.Net.Factors[i]
		x, ok := f.Edge("x")
		if f.Observed || !ok {
			continue
		}
		if v, ok := x.IsVar(); ok && m.Net.Vars[v].Family == graph.Discrete {
			nv := m.Net.Vars[v]
			prior[m.Graph.Latents[nv.Latent].First+nv.Elem] = true
		}
	}
	return prior
}

// SummedStates lists the discrete latents with elements that have no
// categorical prior (uniform_spin() or no prior statement: no factor of
// their own) and returns Σ log K over those elements. The log evidence of
// such a model is log Σ_x Π_f f(x) over their states, the log partition
// function of its factors (libDAI's log Z), not a normalised log p(y):
// under uniform priors on those elements log p(y) = log Z − logStates.
func (m *Model) SummedStates() (latents []string, logStates float64) {
	if !slices.ContainsFunc(m.Graph.Latents, func(l graph.Latent) bool { return l.Domain.Discrete() }) {
		return nil, 0 // no discrete latent: no factor need be read
	}
	prior := m.discretePriors()
	for li := range m.Graph.Latents {
		l := &m.Graph.Latents[li]
		if !l.Domain.Discrete() {
			continue
		}
		summed := false
		for e := 0; e < l.Size(); e++ {
			if !prior[l.First+e] {
				summed = true
				logStates += math.Log(float64(m.Graph.Vars[l.First+e].Card))
			}
		}
		if summed {
			latents = append(latents, l.Name)
		}
	}
	return latents, logStates
}
