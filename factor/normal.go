package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"

	"github.com/fg-infer/fg/stdlib"
)

var normalBuiltin = stdlib.Builtin{Name: "normal", Kind: stdlib.Distribution, Domains: realDomain, Prior: true, Observed: true,
	Params: []stdlib.Param{stdlib.Required("mean", stdlib.NumericT, "mean (scalar: the same for every element; or a vector); as a likelihood the latent projection a"),
		stdlib.Required("var", stdlib.NumericT, "variance (scalar or per-element vector)")},
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

// In a graph.Net, normal is the Gaussian conditional N(x; mean, var) of a
// Gaussian variable x (NormalPrior, edges x, mean and one of var or prec)
// or the likelihood N(y; mean, var) of an observation y (Normal, edges mean
// and var or prec; its Var field is unused). mean is data, a Gaussian
// variable, an affine expression over Gaussian variables (dot(X[i], w) + b)
// or a selection of those (mu[z[i]]); var is data > 0 or an inverse-Gamma
// variable; prec is data > 0 or a Gamma variable (y ~ normal(mu, 1 / tau)
// is lowered to the prec edge on tau). Both kinds share the rules of
// normalNet: with a = x − mean (or y − mean) the factor is N(a; 0, 1/τ).

func (NormalPrior) NetEdges() []EdgeSpec { return normalEdges(true) }
func (Normal) NetEdges() []EdgeSpec      { return normalEdges(false) }

func normalEdges(x bool) []EdgeSpec {
	out := []EdgeSpec{{Name: "mean", Required: true, Families: []graph.Family{graph.Gaussian}, Doc: "mean (data, Gaussian variables, affine)"},
		{Name: "var", Required: true, Alt: "prec", Families: []graph.Family{graph.InvGamma}, Doc: "variance (data or an inverse-Gamma variable)"},
		{Name: "prec", Required: true, Alt: "var", Families: []graph.Family{graph.Gamma}, Doc: "precision (data or a Gamma variable)"}}
	if x {
		out = append([]EdgeSpec{{Name: "x", Required: true, Families: []graph.Family{graph.Gaussian}, Doc: "the Gaussian variable"}}, out...)
	}
	return out
}

func (k NormalPrior) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	return checkNormalNet(k, f, fam)
}

func (k Normal) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	if err := observation("normal", f); err != nil {
		return err
	}
	if err := finiteY(f.Y[0]); err != nil {
		return &EdgeError{Elem: -1, Branch: -1, Msg: "normal: " + err.Error()}
	}
	return checkNormalNet(k, f, fam)
}

func checkNormalNet(k NetKind, f *graph.NetFactor, fam func(int) graph.Family) error {
	_, hasVar := f.Edge("var")
	_, hasPrec := f.Edge("prec")
	if hasVar && hasPrec {
		return &EdgeError{Edge: "prec", Elem: -1, Branch: -1, Msg: "normal: give var or prec, not both"}
	}
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if err := scalarData("normal", name, v); err != nil {
			return err
		}
		if name == "mean" || name == "x" {
			if err := finiteY(v[0]); err != nil {
				return &EdgeError{Edge: name, Elem: -1, Branch: -1, Msg: "normal: `" + name + "` " + err.Error()}
			}
			return nil
		}
		return positive("normal", name, v)
	})
}

// LogDensityEdges is log N(x; mean, var) (x = y when observed).
func (NormalPrior) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	return normalLogDensity(scalarEdge(f, vals, "x"), f, vals)
}

// LogDensityEdges is log N(y; mean, var).
func (Normal) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	return normalLogDensity(f.Y[0], f, vals)
}

func normalLogDensity(x float64, f *graph.NetFactor, vals [][]float64) float64 {
	prec := 0.0
	if v, ok := edgeValue(f, vals, "prec"); ok {
		prec = v[0]
	} else {
		prec = 1 / scalarEdge(f, vals, "var")
	}
	d := x - scalarEdge(f, vals, "mean")
	return 0.5*math.Log(prec/(2*math.Pi)) - 0.5*prec*d*d
}
