package learn

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer/ep"
)

// LikParamGrad returns ∂ log Ẑ/∂θ, the derivative of the log tilted
// normaliser Ẑ(m, v) = ∫ p(y | f; θ) N(f; m, v) df of one site in its
// likelihood parameter θ at a fixed cavity N(m, v):
//
//	Step{Eps}:    Ẑ = ε + (1 − 2ε) Φ(z), z = y m/√v,
//	              ∂ log Ẑ/∂ε = (1 − 2Φ(z))/Ẑ = (Φ(−z) − Φ(z))/Ẑ;
//	Gaussian{Var}: Ẑ = N(y; m, v + σ²), s = v + σ²,
//	              ∂ log Ẑ/∂σ² = ½ ((y − m)²/s² − 1/s).
//
// At an EP fixed point this explicit derivative, summed over the sites, is
// the whole derivative of log Z_EP in θ (see the package documentation).
// The derivative is the likelihood's factor.ParamGrad rule; a likelihood
// without one (probit, poisson_log) has no parameter and returns an error.
func LikParamGrad(lik ep.Likelihood, y, m, v float64) (float64, error) {
	if !(v > 0) {
		return 0, fmt.Errorf("learn: cavity variance %g is not positive", v)
	}
	if g, ok := lik.(factor.ParamGrad); ok {
		return g.ParamGrad(y, m, v), nil
	}
	return 0, fmt.Errorf("learn: likelihood %s has no parameter with an evidence gradient (step eps and normal var have)", lik.Name())
}
