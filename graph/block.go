package graph

import (
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/lang/ast"
)

// Block is a dense Gaussian block of a factor graph: the whole real
// latent Latent (N elements, factor-graph variables First … First+N−1 in
// element order) with a Gaussian-family prior over all its elements
// (normal, mvnormal, gp; student_t and tp serve the block engines only),
// and, in a model that is all blocks (the factor graph's Blocks view), the
// factors that depend on it only through projections aᵀw of its own
// elements (GP sites a = e_i; linear models a = x_i), its mini-batch
// potentials over the whole vector and its streamed libsvm plates. In any
// other factor graph a block has no sites of its own: its sites are
// affine sites of the graph.
type Block struct {
	Latent  int    // index into Graph.Latents
	Name    string // latent name
	First   int    // factor-graph variable of element 0
	N       int
	Prior   Prior
	Sites   []Site
	Batches []BatchFactor
	Streams []StreamSites // plates over libsvm data, streamed
	Factor  int           // the prior's number (compile.Model.Factors), −1 for a compact latent's
	Pos     ast.Pos       // the latent's declaration
	// PriorPos is the prior's statement.
	PriorPos ast.Pos
}

// Vars lists the factor-graph variables of b's elements, in element order.
func (b *Block) Vars() []int {
	vars := make([]int, b.N)
	for e := range vars {
		vars[e] = b.First + e
	}
	return vars
}

// PriorKind is the kind of a prior over a whole real vector latent that
// is kept as the prior of a Gaussian block (or a dense block of a factor
// graph): its density is of Family
//
//   - Gaussian: N(mean, Σ) — EP absorbs it into q once; exact and mcmc
//     integrate against it;
//   - StudentT: St(ν, mean, Σ) with ν degrees of freedom — the prior of
//     t-exponential EP (divergence t(ν) with the same ν); Gaussian EP
//     replaces it by its ν → ∞ limit N(mean, Σ) (an approximation, hence
//     experimental).
//
// Every consumer asks the kind (its Family and shape) rather than its
// name; package factor's prior kinds implement it.
type PriorKind interface {
	Kind
	// Family is the family of the prior's density.
	Family() Family
	// Process reports whether the prior is a process over inputs X whose
	// covariance (scale) is kernel(X, X): prediction at new inputs and
	// learning read its kernel and inputs.
	Process() bool
	// Independent reports whether the elements are independent a priori,
	// each with its own mean and variance (a diagonal Gaussian, kept as
	// the variances alone). A diagonal Student-t scale is not: the
	// elements of St(ν, m, diag(s)) share one scale mixture.
	Independent() bool
}

// Prior is a block's prior: mean vector and covariance (for student_t/tp the
// scale matrix), plus for GP/TP priors what prediction and learning need.
type Prior struct {
	// Kind is the prior's factor kind (factor.NormalPrior{}, MVNormal{},
	// GP{}, StudentTPrior{}, TP{}); consumers ask it for its family and
	// shape.
	Kind PriorKind
	Mean []float64
	Cov  *mat.SymDense
	// Var, for a normal prior, are the per-element variances (Cov's
	// diagonal). A block of streamed libsvm sites has Cov nil and reads Var
	// only, so that its memory stays O(d) (the dense diag(Var) is formed,
	// and charged against the covariance budget, for other blocks only).
	Var []float64
	// Shared, for a normal prior, means Mean and Var hold one number, the
	// prior of every element (a compact latent's prior).
	Shared bool
	Nu     float64 // student_t / tp degrees of freedom
	// GP/TP only: the kernel expression and the training inputs (rows).
	Kernel KernelSpec
	X      *mat.Dense
	// FITC, for gp(kernel, X, inducing = Z), is the sparse approximation;
	// Cov is then nil.
	FITC *FITC
}

// FITC is the sparse approximation of a gp prior with inducing inputs
// (`gp(kernel, X, inducing = Z)`): the prior covariance is
// Kt = Q + diag(K − Q), Q = K_fu (K_uu + snu2 I)⁻¹ K_uf (see infer/ep's
// fitc.go). Prior.Cov is then nil: no n×n matrix is formed.
type FITC struct {
	Z *mat.Dense // inducing inputs, m×D (D = X's columns)
	// Jitter is snu2 when JitterSet; otherwise GPML's default
	// 1e-6·trace(K_uu)/m, evaluated with the kernel at run time.
	Jitter    float64
	JitterSet bool
}
