package ep

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer/ffep"
)

// Numeric is a site likelihood without closed-form tilted moments (e.g.
// logistic), or a closed-form one that the model asks to integrate
// numerically (`approx = gh(n)`, laplace, ...). Its moments come from the
// chosen scheme of infer/ffep on the one-dimensional cavity N(f; m, v) of
// the projection (roche-numerical-ep.txt §2; Gauss–Hermite is the accurate
// default for one projection):
//
//	Z, m̂, v̂ of p(y | f)^u N(f; m, v)  →  d1 = (m̂ − m)/v,  d2 = (v̂ − v)/v².
//
// A scheme failure (improper tilted, non-finite factor) yields NaN, which
// the engine counts as a skipped update.
type Numeric struct {
	Kind   string                               // stdlib name, e.g. "logistic"
	Scheme ffep.Scheme                          // the moment scheme
	LogLik func(y, f float64) (v, g, h float64) // log p(y | f) and its first two f-derivatives
	// Binary says that p(y | f) is a classifier whose positive class is
	// y = 1 (over {−1, +1} or {0, 1}), so that p(y = 1 | f) =
	// exp(LogLik(1, f)) is a class probability.
	Binary bool
	// Check is the likelihood's own support check (factor.Site's CheckY);
	// nil means any y for a regression and y = ±1 for a Binary likelihood.
	Check func(y float64) error
}

// Name returns the likelihood's stdlib name.
func (l Numeric) Name() string { return l.Kind }

// Tilted returns log Z, d1, d2 of p(y | f)^u N(f; m, v) by the scheme.
func (l Numeric) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	f := func(x float64) (a, b, c float64) {
		a, b, c = l.LogLik(y, x)
		return u * a, u * b, u * c
	}
	mo, err := ffep.Tilted1D(l.Scheme, m, v, f)
	if err != nil {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return mo.LogZ, (mo.Mean - m) / v, (mo.Var - v) / (v * v)
}

// numericNodes is the Gauss–Hermite rule used for expectations that are
// not moments (the relaxed-EP cost and class probabilities).
const numericNodes = 64

// ghExpect returns E[g(f)] for f ~ N(m, v) by Gauss–Hermite quadrature.
func ghExpect(m, v float64, g func(f float64) float64) float64 {
	return factor.GHExpect(numericNodes, m, v, g)
}

// ExpLogLik returns E[log p(y | f)] under the tilted p(y | f) N(f; m, v)/Z,
// by Gauss–Hermite quadrature on the cavity.
func (l Numeric) ExpLogLik(y, m, v float64) float64 {
	z := ghExpect(m, v, func(f float64) float64 { a, _, _ := l.LogLik(y, f); return math.Exp(a) })
	e := ghExpect(m, v, func(f float64) float64 {
		a, _, _ := l.LogLik(y, f)
		if math.IsInf(a, -1) {
			return 0
		}
		return math.Exp(a) * a
	})
	return e / z
}

// Prob returns ∫ p(+1 | f) N(f; m, v) df for binary likelihoods.
func (l Numeric) Prob(m, v float64) (float64, bool) {
	if !l.Binary {
		return 0, false
	}
	return ghExpect(m, v, func(f float64) float64 { a, _, _ := l.LogLik(1, f); return math.Exp(a) }), true
}

// CheckY requires a log-likelihood and an observation that passes Check
// (without one, y = ±1 for a classifier).
func (l Numeric) CheckY(y float64) error {
	if l.LogLik == nil {
		return fmt.Errorf("likelihood %s has no log-likelihood function", l.Kind)
	}
	if l.Check != nil {
		return l.Check(y)
	}
	if l.Binary && y != 1 && y != -1 {
		return fmt.Errorf("%s needs y = ±1, got %g", l.Kind, y)
	}
	return nil
}
