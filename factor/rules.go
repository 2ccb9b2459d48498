package factor

import (
	"slices"

	"github.com/fg-infer/fg/graph"
)

// Site is a likelihood bound to its parameters: a factor p(y | f) on one
// scalar projection f = aᵀw of a Gaussian block's latent vector.
type Site interface {
	Kind
	// CheckY reports whether y is in the likelihood's support (a spin for
	// classifiers, a count for poisson_log, any finite number otherwise).
	CheckY(y float64) error
	// Support describes the legal observations for error messages.
	Support() string
	// Params returns the site's parameters by name (nil when it has none).
	Params() map[string]float64
}

// Tilted is the EP rule (divergences kl, alpha(u), relaxed_kl): for a
// Gaussian cavity N(f; m, v) and power u, the log normaliser of the
// tilted distribution and its first two derivatives in the cavity mean,
//
//	log Z(m, v) = log ∫ p(y | f)^u N(f; m, v) df,   d1 = ∂ log Z/∂m,   d2 = ∂² log Z/∂m²,
//
// from which m̂ = m + v·d1 and v̂ = v + v²·d2 (Minka 2001, eqs 3.18–3.19;
// rodrigues eqs 15–17 for probit). ExpLogLik is E[log p(y | f)] under the
// normalised tilted distribution, which relaxed EP's cost needs.
type Tilted interface {
	Tilted(y, m, v, u float64) (logZ, d1, d2 float64)
	ExpLogLik(y, m, v float64) float64
}

// ClassProb is the prediction rule of a classifier: p(y = +1) =
// ∫ p(+1 | f) N(f; m, v) df; ok is false when the likelihood is not a
// binary classifier.
type ClassProb interface {
	Prob(m, v float64) (p float64, ok bool)
}

// ProbEvent is the event whose probability a classifier's prediction
// (ClassProb, or a predictive's HasProb) reports, from the observation
// domains of kind k's builtin: y = +1 on spin labels (probit, logistic,
// step), y = 1 on 0/1 labels (bernoulli_logit; bernoulli in
// predictive(...)).
func ProbEvent(k Kind) string {
	if slices.Contains(k.Builtin().Domains, graph.Spin) {
		return "y = +1"
	}
	return "y = 1"
}

// MeanObs is the prediction rule of a likelihood whose observation mean is
// not the latent itself (counts): E[y] = ∫ E[y | f] N(f; m, v) df.
type MeanObs interface {
	MeanObs(m, v float64) float64
}

// LogDensity is log p(y | f) with its first two derivatives in f, which
// the numerical moment schemes (approx = gh, laplace, ...), fully
// factorised EP, `infer exact` and `infer mcmc` need.
type LogDensity interface {
	LogLik(y, f float64) (v, g, h float64)
}

// LogValue is an optional fast path of LogDensity for the gold standards,
// which evaluate log p(y | f) millions of times: the value alone, with the
// observation and the parameters bound once.
type LogValue interface {
	LogValueAt(y float64) func(f float64) float64
}

// PointProb is an optional fast path of ClassProb at v = 0 for the gold
// standards' display grids, which evaluate it per posterior draw and grid
// point: ProbAt(f) = p(y = +1 | f) = Prob(f, 0).
type PointProb interface {
	ProbAt(f float64) float64
}

// Escort is the t-EP rule (divergence t(nu); futami eq. 17 and Theorem 1):
// for a one-dimensional Student-t density St(f; ν, m, v) (v the squared
// scale) and power u, the normaliser of the tilted density and its
// moments,
//
//	z = ∫ St(f; ν, m, v) p(y | f)^u df,   mean and variance of St(f; ν, m, v) p(y | f)^u / z.
//
// infer/tep evaluates it at (ν + 2, νv/(ν + 2), u = t) for the escort
// moment match, at (ν, v, t) for Z1 of Theorem 1 (the evidence) and at
// (ν, v, 1) for the predictive p(y = +1). The variance needs ν > 2 (NaN
// otherwise).
type Escort interface {
	Site
	Escort(y, nu, m, v, u float64) (z, mean, variance float64)
}

// ParamGrad is the learning rule of a likelihood with one learnable
// parameter θ: the parameter's name, its domain as an open interval
// (Lo, Hi) (Hi = +Inf for a positive parameter) and ∂ log Ẑ/∂θ, the
// derivative of the log tilted normaliser Ẑ(m, v) = ∫ p(y | f; θ) N(f; m, v) df
// at a fixed cavity. At an EP fixed point its sum over the sites is the
// whole derivative of log Z_EP in θ.
type ParamGrad interface {
	LearnParam() (name string, value, lo, hi float64)
	ParamGrad(y, m, v float64) float64
}

// Discontinuous marks a likelihood whose density jumps (step): quadrature
// gold standards then converge only linearly in the cell size.
type Discontinuous interface {
	Discontinuous()
}

// Tabler is the discrete rule (bp, jtree, gibbs): the factor's table over
// the joint states of its variables in libDAI order (the first variable
// changes fastest).
type Tabler interface {
	Table() []float64
}

// LogLinear is a Tabler whose table is exp(θ·φ) entrywise: one parameter
// θ (Param) times a statistic φ fixed for the kind (Stat, in libDAI
// order). Compile stores a plate of them as their parameters alone
// (graph.AddLogLinear) and BP reads them in that form.
type LogLinear interface {
	Tabler
	Param() float64
	Stat() []float64
}

// The priors of Gaussian blocks.
var _ = []graph.PriorKind{NormalPrior{}, MVNormal{}, GP{}, StudentTPrior{}, TP{}}

// priorFamily is the family of a PriorKind; ok is false for any other kind.
func priorFamily(k Kind) (f graph.Family, ok bool) {
	p, ok := k.(graph.PriorKind)
	if !ok {
		return 0, false
	}
	return p.Family(), true
}

// Selector marks a prior over discrete latents whose elements may select
// the branches of gated factors (y ~ normal(mu[z], 1)): ep runs belief
// propagation on them (infer/fgraph).
type Selector interface {
	selector()
}

// DiscretePrior marks a prior over discrete latents that adds no factor
// (uniform_spin): every discrete engine handles it.
type DiscretePrior interface {
	discretePrior()
}

// Numerical marks a potential or loss over a real latent vector whose EP
// moments come from the infer line's numerical scheme (approx = ...) and
// whose log-density the gold standards evaluate.
type Numerical interface {
	numerical()
}
