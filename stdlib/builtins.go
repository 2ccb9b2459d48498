package stdlib

import (
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// Required is a required parameter.
func Required(name string, t ArgType, doc string) Param {
	return Param{Name: name, Type: t, Required: true, Doc: doc}
}

// Optional is a parameter with the default def (an fg expression).
func Optional(name string, t ArgType, def, doc string) Param {
	return Param{Name: name, Type: t, Default: def, Doc: doc}
}

var (
	req = Required
	opt = Optional
)

// table is the registry of every name the language knows except the
// factor kinds (distributions, potentials, losses), which package factor
// registers from its one file per kind (Register). Formulas are in the
// docs.
var table = []Builtin{
	// Kernels, named by their stdlib/kernel kinds.
	{Name: kernel.KindLinear.String(), Kind: Kernel, Params: []Param{opt("lengthscale", NumberT, "1", "ℓ > 0")},
		Doc: "k(x, x') = xᵀx' / ℓ² (GPML covLINiso)"},
	{Name: kernel.KindSE.String(), Kind: Kernel, Params: []Param{opt("lengthscale", NumberT, "1", "ℓ > 0"), opt("variance", NumberT, "1", "σ² > 0")},
		Doc: "k(x, x') = σ² exp(−|x − x'|² / (2ℓ²)) (GPML covSEiso with ℓ, σ² = sf²)"},
	{Name: kernel.KindARD.String(), Kind: Kernel, Params: []Param{req("lengthscales", VectorT, "one ℓ_d > 0 per input dimension"), opt("variance", NumberT, "1", "σ² > 0")},
		Doc: "k(x, x') = σ² exp(−Σ_d (x_d − x'_d)² / (2ℓ_d²))"},
	{Name: kernel.KindMatern32.String(), Kind: Kernel, Params: []Param{opt("lengthscale", NumberT, "1", "ℓ > 0"), opt("variance", NumberT, "1", "σ² > 0")},
		Doc: "k = σ² (1 + √3 r/ℓ) exp(−√3 r/ℓ), r = |x − x'|"},
	{Name: kernel.KindMatern52.String(), Kind: Kernel, Params: []Param{opt("lengthscale", NumberT, "1", "ℓ > 0"), opt("variance", NumberT, "1", "σ² > 0")},
		Doc: "k = σ² (1 + √5 r/ℓ + 5r²/(3ℓ²)) exp(−√5 r/ℓ)"},
	{Name: kernel.KindBias.String(), Kind: Kernel, Params: []Param{opt("variance", NumberT, "1", "σ² ≥ 0")},
		Doc: "k(x, x') = σ² (a constant offset)"},
	{Name: kernel.KindWhite.String(), Kind: Kernel, Params: []Param{opt("variance", NumberT, "1", "σ² ≥ 0")},
		Doc: "k(x, x') = σ² if x and x' are the same point (same row), else 0"},
	// Data and generators.
	{Name: "csv", Kind: Data, Params: []Param{req("path", StringT, "file path, relative to the model file"),
		opt("column", StringT, `""`, "read one column as a vector"),
		opt("columns", StringList, "[]", "read these columns as a matrix"),
		opt("exclude", StringList, "[]", "read every column except these"),
		opt("standardize", BoolT, "false", "z-score each column (population sd)"),
		opt("intercept", BoolT, "false", "append a final column of ones"),
		opt("normalize", BoolT, "false", "centre each column and scale it to unit Euclidean norm (Roche §3.3)")},
		Doc: "numeric CSV with a header line; a vector (column=) or a matrix"},
	{Name: "libdai", Kind: Data, Params: []Param{req("path", StringT, "libDAI .fg file, relative to the model file")},
		Doc: "a discrete factor graph in libDAI's text format"},
	{Name: "libsvm", Kind: Data, Params: []Param{req("path", StringT, "libsvm/svmlight file, relative to the model file"),
		opt("cols", NumberT, "0", "number of features (0: the largest index in the file)")},
		Doc: "the sparse design matrix of a libsvm file, streamed from disk (docs/language.md, libsvm data)"},
	{Name: "libsvm_labels", Kind: Data, Params: []Param{req("path", StringT, "libsvm/svmlight file, relative to the model file")},
		Doc: "the labels of a libsvm file as spins: -1/+1 kept, 0/1 mapped to -1/+1"},
	{Name: "cols", Kind: Data, Params: []Param{req("X", Any, "matrix or libsvm data")},
		Doc: "number of columns of a matrix (features of libsvm data)"},
	{Name: "geodesic_dome", Kind: Data,
		Doc: "the C60 graph (truncated icosahedron): 60 vertices, 90 edges, every vertex of degree 3"},
	{Name: "grid", Kind: Data, Params: []Param{req("R", NumberT, "rows"), req("C", NumberT, "columns"),
		opt("periodic", BoolT, "false", "wrap around (torus)")},
		Doc: "the R×C grid graph; vertex r·C + c"},
	{Name: "random_normal", Kind: Data, Params: []Param{req("seed", NumberT, "non-negative integer seed"),
		req("n", NumberT, "number of draws"), opt("mean", NumberT, "0", "mean"), opt("sd", NumberT, "1", "standard deviation ≥ 0")},
		Doc: "n draws mean + sd·z, z from math/rand/v2 NormFloat64 on PCG(seed, 0x9e3779b97f4a7c15)"},
	{Name: "rows", Kind: Data, Params: []Param{req("M", NumericT, "matrix or vector"), req("idx", VectorT, "0-based indices")},
		Doc: "the rows (elements) of M at idx"},
	{Name: "nodes", Kind: Data, Params: []Param{req("G", GraphT, "a graph")},
		Doc: "the number of vertices of a graph"},
	{Name: "len", Kind: Data, Params: []Param{req("x", Any, "vector, matrix or graph")},
		Doc: "length of a vector, rows of a matrix, edges of a graph"},
	// Math.
	{Name: "exp", Kind: Math, Params: []Param{req("x", NumericT, "")}, Doc: "eˣ, elementwise"},
	{Name: "log", Kind: Math, Params: []Param{req("x", NumericT, "")}, Doc: "natural logarithm, elementwise"},
	{Name: "abs", Kind: Math, Params: []Param{req("x", NumericT, "")}, Doc: "|x|, elementwise"},
	{Name: "sqrt", Kind: Math, Params: []Param{req("x", NumericT, "")}, Doc: "√x, elementwise"},
	{Name: "sum", Kind: Math, Params: []Param{req("x", NumericT, "")}, Doc: "sum of all elements"},
	{Name: "dot", Kind: Math, Params: []Param{req("a", NumericT, ""), req("b", NumericT, "")}, Doc: "inner product of two vectors"},
	{Name: "min", Kind: Math, Params: []Param{req("a", NumericT, ""), opt("b", NumericT, "", "")},
		Doc: "min(x): smallest element; min(a, b): elementwise minimum"},
	{Name: "max", Kind: Math, Params: []Param{req("a", NumericT, ""), opt("b", NumericT, "", "")},
		Doc: "max(x): largest element; max(a, b): elementwise maximum"},
	// Predict.
	{Name: "predictive", Kind: Predict, Params: []Param{req("latent", LatentT, "a Gaussian-block latent"), req("Xnew", MatrixT, "new inputs (GP/TP) or projection rows (linear)")},
		Doc: "predictive latent mean/variance and p(y = +1) at new inputs; on a model with beta, gamma, inv_gamma or dirichlet latents, predictive(DIST(args)): the posterior predictive of a new observation y* ~ DIST(args)"},
	// Plates.
	{Name: "batches", Kind: Plate, Params: []Param{req("N", NumberT, "number of items"), req("s", NumberT, "batch size")},
		Doc: "consecutive index vectors [0..s), [s..2s), ...; the last may be shorter"},
	{Name: "edges", Kind: Plate, Params: []Param{req("G", GraphT, "a graph")},
		Doc: "the edges (i, j) of a graph, or (k, i, j) with the edge number k"},
	// Accessors (expect only).
	{Name: "mean", Kind: Accessor, Params: []Param{req("x", LatentT, "a real latent element")}, Doc: "posterior mean"},
	{Name: "var", Kind: Accessor, Params: []Param{req("x", LatentT, "a real latent element")}, Doc: "posterior variance"},
	{Name: "sd", Kind: Accessor, Params: []Param{req("x", LatentT, "a real latent element")}, Doc: "posterior standard deviation"},
	{Name: "prob", Kind: Accessor, Params: []Param{req("x", LatentT, "a discrete latent element"), opt("s", NumberT, "last state", "state")},
		Doc: "marginal probability of state s (default: +1 / true / the last state)"},
	{Name: "logz", Kind: Accessor, Doc: "log evidence"},
	{Name: "iterations", Kind: Accessor, Doc: "sweeps performed"},
	{Name: "converged", Kind: Accessor, Doc: "true if the run converged (or a non-iterative method finished)"},
	{Name: "status", Kind: Accessor, Doc: "the run status as a string"},
	{Name: "b", Kind: Accessor, Params: []Param{req("factor", Any, "factor label string or index")}, Doc: "relaxation weight of a factor (0 if not relaxed)"},
	{Name: "pred", Kind: Accessor, Params: []Param{req("x", Any, "NAME[i] of a predict statement")}, Doc: "predictive p(y = +1) (or mean without a likelihood)"},
	// Divergences.
	{Name: infer.DivKL.String(), Kind: DivergenceName, Doc: "inclusive KL: EP, BP"},
	{Name: infer.DivRelaxedKL.String(), Kind: DivergenceName, Params: []Param{req("c", NumberT, "l1 penalty weight (> 0)")}, Doc: "relaxed EP / relaxed BP (Qi & Guo)"},
	{Name: infer.DivAlpha.String(), Kind: DivergenceName, Params: []Param{req("a", NumberT, "power α in (0, 1]")}, Doc: "power EP / fractional BP"},
	{Name: infer.DivT.String(), Kind: DivergenceName, Params: []Param{req("nu", NumberT, "Student-t degrees of freedom (> 0)")}, Doc: "EP for the t-exponential family (Futami et al.)"},
	// Schedules.
	{Name: infer.Sequential.String(), Kind: ScheduleName, Doc: "one factor at a time in file order"},
	{Name: infer.Parallel.String(), Kind: ScheduleName, Doc: "all factors from the same state, then recombine"},
	{Name: infer.Random.String(), Kind: ScheduleName, Params: []Param{opt("seed", NumberT, "1", "seed of the permutation stream")}, Doc: "one factor at a time, fresh random order each sweep"},
	{Name: infer.Residual.String(), Kind: ScheduleName, Doc: "largest pending change first (libDAI SEQMAX)"},
	// Approximation schemes.
	{Name: infer.SchemeExact.String(), Kind: ApproxName, Doc: "closed-form tilted moments (probit, step, normal)"},
	{Name: infer.SchemeGH.String(), Kind: ApproxName, Params: []Param{opt("n", NumberT, "32", "Gauss–Hermite points")}, Doc: "Gauss–Hermite quadrature on the 1-D cavity of aᵀw"},
	{Name: infer.SchemeLaplace.String(), Kind: ApproxName, Doc: "Laplace at the tilted mode (Roche LA)"},
	{Name: infer.SchemeQuickLaplace.String(), Kind: ApproxName, Doc: "Laplace at the cavity mean (Roche QLA)"},
	{Name: infer.SchemeGQ.String(), Kind: ApproxName, Doc: "precision-3 Gaussian quadrature, 2d+1 points (Roche GQ)"},
	{Name: infer.SchemeVQ.String(), Kind: ApproxName, Doc: "variational quadrature (Roche VQ)"},
	// Methods.
	{Name: string(infer.MethodEP), Kind: Method, Doc: "expectation propagation on Gaussian blocks (kl, alpha, relaxed_kl, t)"},
	{Name: string(infer.MethodBP), Kind: Method, Doc: "belief propagation on discrete factors (kl, alpha, relaxed_kl)"},
	{Name: string(infer.MethodExact), Kind: Method, Doc: "junction tree (discrete) or quadrature / importance sampling (continuous)"},
	{Name: string(infer.MethodMCMC), Kind: Method, Doc: "elliptical slice sampling (Gaussian priors), Gibbs (discrete)"},
}

// RequiredVariance is a required variance-like parameter: positional and
// `name =` arguments are variances, and the named forms `sd =` (standard
// deviation) and `precision =` (and `var =` when name is another word,
// student_t's `scale`) convert to it (VarianceForms).
func RequiredVariance(name string, t ArgType, doc string) Param {
	p := Required(name, t, doc)
	p.Forms = VarianceForms(name)
	return p
}
