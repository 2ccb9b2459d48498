package ep

import "github.com/fg-infer/fg/factor"

// Likelihood is a site factor p(y | f) on one scalar projection f = aᵀw.
//
// EP only needs, for a Gaussian cavity N(f; m, v) and a power u (u = 1 for
// EP and relaxed EP, u = α for power EP), the log normaliser of the tilted
// distribution and its first two derivatives in the cavity mean,
//
//	log Z(m, v) = log ∫ p(y | f)^u N(f; m, v) df,   d1 = ∂ log Z/∂m,   d2 = ∂² log Z/∂m²,
//
// from which the tilted moments are m̂ = m + v·d1 and v̂ = v + v²·d2
// (Minka 2001, eqs 3.18–3.19; rodrigues eqs 15–17 for the probit case).
// The likelihoods with their own rule are package factor's kinds (their
// factor.Tilted and factor.ClassProb rules); Numeric wraps a log-density
// with a numerical scheme.
type Likelihood interface {
	// Name is the likelihood's name in fg's standard library ("probit", ...).
	Name() string
	factor.Tilted
	factor.ClassProb
	// CheckY reports whether y is a legal observation.
	CheckY(y float64) error
}

// The closed-form likelihoods of fg's standard library (package factor).
type (
	// Probit is p(y | f) = Φ(y f) (factor.Probit).
	Probit = factor.Probit
	// Step is p(y | f) = Eps + (1 − 2 Eps)·Θ(y f) (factor.Step).
	Step = factor.Step
	// Gaussian is p(y | f) = N(y; f, Var) (factor.Normal).
	Gaussian = factor.Normal
)
