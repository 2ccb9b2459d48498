package factor

import (
	"math"

	"github.com/fg-infer/fg/stdlib"
	"github.com/fg-infer/fg/stdlib/ad"
	"github.com/fg-infer/fg/stdlib/loss"
)

var logisticBuiltin = stdlib.Builtin{Name: "logistic", Kind: stdlib.Distribution, Domains: spinDomain, Observed: true,
	Params: []stdlib.Param{stdlib.Required("a", stdlib.LatentT, "latent projection")},
	Doc:    "logistic likelihood p(y|a) = 1/(1 + exp(−y·a)); no closed-form moments: ep uses a numerical scheme"}

// Logistic is the classification likelihood p(y | f) = σ(y f) =
// 1/(1 + e^{−y f}). It has no closed-form tilted moments: EP integrates its
// LogDensity with the infer line's numerical scheme (roche-numerical-ep
// §2), and its class probability by 64-point Gauss–Hermite quadrature.
type Logistic struct{}

func (Logistic) Name() string               { return "logistic" }
func (Logistic) Role() Role                 { return Likelihood }
func (Logistic) Builtin() *stdlib.Builtin   { return &logisticBuiltin }
func (Logistic) Params() map[string]float64 { return nil }
func (Logistic) CheckY(y float64) error     { return spinY(y) }
func (Logistic) Projection() string         { return "a" }

// New is the logistic likelihood; it has no parameters.
func (Logistic) New(map[string]float64) (Site, error) { return Logistic{}, nil }

// LogLik is −log(1 + e^{−y f}) = −ℓ(y f) with ℓ the logistic loss:
// g = y σ(−y f), h = −σ(y f) σ(−y f).
func (Logistic) LogLik(y, f float64) (v, g, h float64) {
	v, d1, d2 := loss.Logistic{}.Eval(y * f) // y² = 1
	return -v, -y * d1, -d2
}

// LogValueAt is LogLik's value alone, −log(1 + e^{−y f}).
func (Logistic) LogValueAt(y float64) func(f float64) float64 {
	return func(f float64) float64 { return -loss.Logistic{}.Value(y * f) }
}

// ProbAt is σ(f), the class probability given f.
func (Logistic) ProbAt(f float64) float64 { return ad.Sigmoid(f) }

// probNodes is the Gauss–Hermite rule of the logistic class probability.
const probNodes = 64

// Prob is ∫ σ(f) N(f; m, v) df by 64-point Gauss–Hermite quadrature.
func (l Logistic) Prob(m, v float64) (float64, bool) {
	return GHExpect(probNodes, m, v, func(f float64) float64 {
		a, _, _ := l.LogLik(1, f)
		return math.Exp(a)
	}), true
}

func (Logistic) Support() string { return spinSupport }
