package compile

import (
	"reflect"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// FactorGraph is the continuous part of a model that is not a set of
// independent Gaussian blocks: a factor graph over the scalar
// elements of its real latents, with factors on affine expressions of any
// number of them. compile builds it instead of Model.Blocks when the model
// has an element-level conditional (x[t] ~ normal(a*x[t-1] + b, q)), a prior
// whose parameters involve latents (theta ~ normal(mu, tau^2)), or a factor
// whose argument spans several latents or has a constant term
// (probit(dot(X[i], w) + b), step(perf[g, 0] - perf[g, 1], 0)). Models that
// fit the block engines keep compiling to Blocks (the fast paths).
//
// Variables: element e (row-major) of real latent l is variable
// First[l] + e; First[l] is −1 for latents that are not real. NumVars is
// the number of real elements. Every variable has exactly one prior or
// conditional (a Gaussian factor with Prior set, or membership of a Dense
// block); compile checks that and that the conditionals form no cycle, so
// the product of the prior factors is a proper joint Gaussian with
// normaliser 1 (a directed model).
//
// infer/run maps a FactorGraph to the engines: infer/fgraph for ep (and for
// exact when the graph is linear-Gaussian), and the joint Gaussian of the
// prior factors with the sites as projections for the gold standards.
type FactorGraph struct {
	NumVars int
	First   []int // per graph latent: variable of its element 0, or −1
	// Gaussians are the linear-Gaussian factors N(0; aᵀx + c, Var):
	// priors on elements x ~ N(m, s²) (Aff = x − m), conditionals
	// x_t ~ N(a·x_{t−1} + b, q) (Aff = x_t − a·x_{t−1} − b).
	Gaussians []LinearGaussian
	// Sites are likelihood factors p(y | aᵀx + c), including Gaussian
	// observations y ~ normal(aᵀx + c, r) (a factor.Normal site).
	Sites []AffineSite
	// Dense are GP / mvnormal / iid-normal priors over a whole latent
	// (constant mean) kept as one dense Gaussian block.
	Dense []DenseBlock
	// Discrete are the elements of the cat(K) latents with a categorical
	// prior in a model with Gates (gated likelihoods), in graph order.
	Discrete []DiscreteVar
	// Gates are likelihoods whose parameters a discrete latent selects
	// (y[i] ~ normal(mu[z[i]], s2), probit(dot(X[i], w[z[i]]))).
	Gates []Gate
}

// DiscreteVar is an element of a cat(K) latent with prior p(z = k) = Prior[k].
type DiscreteVar struct {
	Var   int // graph variable (Graph.Vars)
	Prior []float64
}

// Gate is the gated factor (Minka & Winn 2008) p(y | Branches[z]) whose
// branch the discrete variable Discrete[Selector] selects: Branches[k] is
// the likelihood site with z = k, on its own affine expression (no
// variables for a branch whose projection is a number).
type Gate struct {
	Selector int
	Branches []AffineSite
	Factor   int    // index into Graph.Factors
	Label    string // e.g. "normal(y[3] | z[3])"
	Pos      ast.Pos
}

// Affine is Σ_k Coefs[k]·x[Vars[k]] + Const over FactorGraph variables;
// Vars are distinct and Coefs non-zero. Vars and Coefs may be views of
// arrays shared by many factors: read them, never write.
type Affine struct {
	Vars  []int
	Coefs []float64
	Const float64
}

// LinearGaussian is the factor N(0; Aff(x), Var) with Var > 0: the prior or
// conditional of variable Target (Aff's coefficient of Target is 1).
type LinearGaussian struct {
	Aff    Affine
	Var    float64
	Target int     // the variable this factor is the prior / conditional of
	Factor int     // index into Graph.Factors (shared by the elements of one whole-latent normal prior)
	Label  string  // e.g. "normal(x[3])"
	Pos    ast.Pos // the statement's (NoPos in graphs not compiled from source)
}

// AffineSite is a likelihood site on an affine expression, with the
// projection in Aff. The sites of one statement share one *Site, Shared,
// for what they have in common (Kind, Lik, Params, Pos; its Index is −1
// and Proj nil), so that a plate of 10⁶ sites keeps one Site, not 10⁶:
// Y, Factor and Label are the site's own (Shared's are not). BlockSite
// assembles the whole Site.
type AffineSite struct {
	Shared *Site // Kind, Lik, Params and Pos of the statement; its Y, Factor, Label, Index and Proj are not this site's
	Y      float64
	Factor int    // index into Graph.Factors
	Label  string // e.g. "normal(y[3])"
	Aff    Affine
}

// BlockSite is s as a Site with its own Y, Factor and Label (Index −1, no
// Proj; the projection is Aff).
func (s AffineSite) BlockSite() Site {
	out := *s.Shared
	out.Y, out.Factor, out.Label, out.Index, out.Proj = s.Y, s.Factor, s.Label, -1, nil
	return out
}

// siteSharer makes AffineSites that share their Site with the site made
// before when it is of the same statement and likelihood.
type siteSharer struct{ last *Site }

// site is the AffineSite of s with projection a.
func (sh *siteSharer) site(s Site, a Affine) AffineSite {
	if l := sh.last; l == nil || l.Kind != s.Kind || l.Pos != s.Pos || !graph.SameParams(l.Params, s.Params) || !sameLik(l.Lik, s.Lik) ||
		l.Vars != nil || s.Vars != nil || l.Offset != s.Offset {
		shared := s
		shared.Y, shared.Factor, shared.Label, shared.Index, shared.Proj = 0, 0, "", -1, nil
		sh.last = &shared
	}
	return AffineSite{Shared: sh.last, Y: s.Y, Factor: s.Factor, Label: s.Label, Aff: a}
}

// sameLik reports whether a and b are equal likelihoods of a comparable
// type (a likelihood holding slices is never shared).
func sameLik(a, b factor.Site) bool {
	t := reflect.TypeOf(a)
	return t == reflect.TypeOf(b) && t != nil && t.Comparable() && reflect.ValueOf(a).Equal(reflect.ValueOf(b))
}

// DenseBlock is a Gaussian prior N(x[Vars]; Prior.Mean, Prior.Cov) over
// all the elements of latent Latent (a gp, mvnormal or normal prior with
// constant parameters), in element order.
type DenseBlock struct {
	Latent int
	Name   string
	Vars   []int
	Prior  Prior
	Factor int
	Pos    ast.Pos
}

// VarOf returns the variable of element e of real latent l.
func (g *FactorGraph) VarOf(l, e int) int { return g.First[l] + e }
