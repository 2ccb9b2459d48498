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
	"github.com/fg-infer/fg/stdlib/ad"
	"github.com/fg-infer/fg/stdlib/kernel"
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

// Block is a dense Gaussian block of the factor graph: the whole real
// latent Latent (N elements, FactorGraph variables First … First+N−1 in
// element order) with a Gaussian-family prior over all its elements
// (normal, mvnormal, gp; student_t and tp serve the block engines only),
// and, in a model that is all blocks (FactorGraph.Blocks()), the factors
// that depend on it only through projections aᵀw of its own elements
// (GP sites a = e_i; linear models a = x_i), its mini-batch potentials
// over the whole vector and its streamed libsvm plates. In any other
// factor graph a block has no sites of its own: its sites are affine
// sites of the graph (FactorGraph.Sites).
type Block struct {
	Latent  int    // index into Graph.Latents
	Name    string // latent name
	First   int    // FactorGraph variable of element 0
	N       int
	Prior   Prior
	Sites   []Site
	Batches []BatchFactor
	Streams []StreamSites // plates over libsvm data, streamed (libsvm.go)
	Factor  int           // the prior's number (Model.Factors), −1 for a compact latent's
	Pos     ast.Pos       // the latent's declaration
	// PriorPos is the prior's statement.
	PriorPos ast.Pos
}

// Vars lists the FactorGraph variables of b's elements, in element order.
func (b *Block) Vars() []int {
	vars := make([]int, b.N)
	for e := range vars {
		vars[e] = b.First + e
	}
	return vars
}

// Blocks is the model's real-latent part viewed as independent Gaussian
// blocks (FactorGraph.Blocks()), nil when it is not one or there is none.
func (m *Model) Blocks() []*Block {
	if m.FactorGraph == nil {
		return nil
	}
	return m.FactorGraph.Blocks()
}

// Prior is a block's prior: mean vector and covariance (for student_t/tp the
// scale matrix), plus for GP/TP priors what prediction and learning need.
type Prior struct {
	// Kind is the prior's factor kind (factor.NormalPrior{}, MVNormal{},
	// GP{}, StudentTPrior{}, TP{}); consumers ask it for its family and
	// shape.
	Kind factor.PriorKind
	Mean []float64
	Cov  *mat.SymDense
	// Var, for a normal prior, are the per-element variances (Cov's
	// diagonal). A block of streamed libsvm sites has Cov nil and reads Var
	// only, so that its memory stays O(d) (the dense diag(Var) is formed,
	// and charged against the covariance budget, for other blocks only).
	Var []float64
	// Shared, for a normal prior, means Mean and Var hold one number, the
	// prior of every element (a compact latent's prior, compact.go).
	Shared bool
	Nu     float64 // student_t / tp degrees of freedom
	// GP/TP only: the kernel expression and the training inputs (rows).
	Kernel KernelSpec
	X      *mat.Dense
	// FITC, for gp(kernel, X, inducing = Z), is the sparse approximation
	// (compile/fitc.go); Cov is then nil.
	FITC *FITC
}

// KernelSpec is a kernel expression with its hyperparameters resolved:
// Kind is a leaf kernel (se, linear, ard, matern32, matern52, bias, white)
// or a sum or product of Args; Hyper are its numeric hyperparameters in stdlib order;
// HyperParams names the param (if any) each hyperparameter came from, so
// `learn` can map params to kernel hyperparameters; Args are sub-kernels.
type KernelSpec struct {
	Kind        kernel.Kind
	Hyper       []float64
	HyperParams []string
	Args        []KernelSpec
	// jets are the hyperparameters' jets in the learned params when the
	// kernel was evaluated differentiating (learn_jets.go; NaN where one
	// has none).
	jets []ad.Jet
}

// Site is one factor on a single projection aᵀw of the block's vector.
// Exactly one of Index (≥ 0: a = e_Index) and Proj (non-nil: a = Proj) is set.
type Site struct {
	Lik    factor.Site // the likelihood with its parameters: its type is the kind (compare with graph.SameKind, print with Name()) and carries the rules
	Y      float64     // the observation: ±1 for classification, the target for normal
	Index  int
	Proj   []float64
	Params map[string]float64 // Lik.Params(): eps for step, var for normal; shared by the statement's sites, read only
	Factor int                // the factor's number (Model.Factors)
	Label  string             // e.g. "step(y[4])"
	Pos    ast.Pos
	// Vars, when non-nil, makes Proj sparse: aᵀw = Σ_k Proj[k]·w[Vars[k]].
	// Offset is a constant added to the projection, aᵀw + Offset: a
	// factor-graph site on the joint vector of its latents (infer/run's
	// gold standards). Block sites leave both zero.
	Vars   []int
	Offset float64
}

// Potential is a log-potential log f(w) of a whole block vector with its
// gradient and diagonal Hessian, built by compile from `factor exp(EXPR)`
// by automatic differentiation (stdlib/ad). Derivs fills grad and hdiag
// (each of length N) and returns log f(w).
type Potential interface {
	LogF(w []float64) float64
	Derivs(w, grad, hdiag []float64) float64
}

// BatchFactor is a user potential over the whole vector (a mini-batch factor).
type BatchFactor struct {
	F      Potential
	Factor int
	Label  string
	Pos    ast.Pos
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
	Lik    factor.Site  // the block's likelihood for p(y = +1) or E[y], nil if none
	Sparse *SparseInput // libsvm new inputs (Xnew nil), scored against their labels
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
	Rest      Affine
	SiteScale float64
	SiteRest  Affine
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
