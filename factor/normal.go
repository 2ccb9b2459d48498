package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/stdlib"
)

var normalBuiltin = stdlib.Builtin{Name: "normal", Kind: stdlib.Distribution, Domains: realDomain, Prior: true, Observed: true,
	Params: []stdlib.Param{stdlib.Required("mean", stdlib.NumericT, "mean (scalar: the same for every element; or a vector); as a likelihood the latent projection a"),
		stdlib.RequiredVariance("var", stdlib.NumericT, "variance (scalar or per-element vector); or by name `sd =` a standard deviation, `precision =` a precision")},
	Doc: "iid Gaussian prior N(mean, var) over a real latent; as a likelihood y ~ normal(a, var): p(y|a) = N(y; a, var)"}

// NormalPrior is the iid Gaussian prior N(mean, var) over the elements of a
// real latent (compile evaluates mean and var per element).
type NormalPrior struct{}

func (NormalPrior) Name() string             { return "normal" }
func (NormalPrior) Role() Role               { return Prior }
func (NormalPrior) Builtin() *stdlib.Builtin { return &normalBuiltin }
func (NormalPrior) gaussianPrior()           {}

// Normal is the regression likelihood p(y | f) = N(y; f, Var). EP with it
// is exact: one sweep gives the closed-form GP posterior and evidence.
type Normal struct{ Var float64 }

func (Normal) Name() string             { return "normal" }
func (Normal) Role() Role               { return Likelihood }
func (Normal) Builtin() *stdlib.Builtin { return &normalBuiltin }
func (Normal) Projection() string       { return "mean" }

func (l Normal) Params() map[string]float64 { return map[string]float64{"var": l.Var} }

// New validates var > 0.
func (Normal) New(p map[string]float64) (Site, error) {
	v := p["var"]
	if !(v > 0) || math.IsInf(v, 1) {
		return nil, &ParamError{Param: "var", Msg: fmt.Sprintf("normal: `var` must be > 0, got %g", v)}
	}
	return Normal{Var: v}, nil
}

func (l Normal) CheckY(y float64) error {
	if !(l.Var > 0) || math.IsInf(l.Var, 1) {
		return fmt.Errorf("gaussian likelihood variance %g, want > 0", l.Var)
	}
	return finiteY(y)
}

// Tilted: N(y; f, σ²)^u N(f; m, v) integrates in closed form with
// s = v + σ²/u.
func (l Normal) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	s := v + l.Var/u
	d := y - m
	logZ = -0.5*math.Log(2*math.Pi*s) - 0.5*d*d/s +
		0.5*(1-u)*math.Log(2*math.Pi*l.Var) - 0.5*math.Log(u)
	return logZ, d / s, -1 / s
}

// ExpLogLik: the tilted is N(m̂, v̂), so E[log N(y; f, σ²)] = −½ log 2πσ² − ((y − m̂)² + v̂)/(2σ²).
func (l Normal) ExpLogLik(y, m, v float64) float64 {
	_, d1, d2 := l.Tilted(y, m, v, 1)
	mh, vh := m+v*d1, v+v*v*d2
	return -0.5*math.Log(2*math.Pi*l.Var) - ((y-mh)*(y-mh)+vh)/(2*l.Var)
}

// Prob: a regression likelihood has no class probability.
func (Normal) Prob(m, v float64) (float64, bool) { return 0, false }

// LogLik is log N(y; f, σ²): g = (y − f)/σ², h = −1/σ².
func (l Normal) LogLik(y, f float64) (v, g, h float64) {
	d := y - f
	return -0.5*math.Log(2*math.Pi*l.Var) - d*d/(2*l.Var), d / l.Var, -1 / l.Var
}

// LearnParam: the noise variance is learned on the log scale.
func (l Normal) LearnParam() (string, float64, float64, float64) { return "var", l.Var, 0, math.Inf(1) }

// ParamGrad: Ẑ = N(y; m, v + σ²), s = v + σ², ∂ log Ẑ/∂σ² = ½ ((y − m)²/s² − 1/s).
func (l Normal) ParamGrad(y, m, v float64) float64 {
	s := v + l.Var
	d := y - m
	return 0.5 * (d*d/(s*s) - 1/s)
}

func (Normal) Support() string { return "a finite number" }
