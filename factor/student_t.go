package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var studentTBuiltin = stdlib.Builtin{Name: "student_t", Kind: stdlib.Distribution, Domains: realDomain, Prior: true, Observed: true,
	Params: []stdlib.Param{stdlib.Required("nu", stdlib.NumberT, "degrees of freedom (> 0)"),
		stdlib.Required("mean", stdlib.NumericT, "location; as a likelihood the latent projection a"),
		stdlib.RequiredVariance("scale", stdlib.NumericT, "scale: Σ = diag(scale) (variance-like σ², scalar or vector); or by name `sd =` σ, `var =` σ², `precision =` 1/σ²")},
	Doc: "multivariate Student-t prior St(nu, mean, Σ = scale·I) on a real vector latent; as a likelihood y ~ student_t(nu, a, scale): p(y|a) = St(y; nu, a, scale), robust regression"}

// StudentTPrior is the prior St(ν, mean, Σ = diag(scale)) on a real vector
// latent: the prior of t-EP (futami §5, Bayes point machine), and under
// Gaussian EP its ν → ∞ limit N(mean, Σ), an approximation.
type StudentTPrior struct{}

func (StudentTPrior) Name() string             { return "student_t" }
func (StudentTPrior) Role() Role               { return Prior }
func (StudentTPrior) Builtin() *stdlib.Builtin { return &studentTBuiltin }
func (StudentTPrior) Family() graph.Family     { return graph.StudentT }
func (StudentTPrior) Process() bool            { return false }
func (StudentTPrior) Independent() bool        { return false }
func (StudentTPrior) Quality(c Column) Quality { return limitQuality(c) }

// StudentT is the robust regression likelihood
//
//	p(y | f) = Γ((ν+1)/2) / (Γ(ν/2) √(νπ s)) · (1 + (y − f)²/(ν s))^{−(ν+1)/2}
//
// with ν = Nu degrees of freedom and variance-like scale s = Scale (σ², as
// for the prior). It is not log-concave: the tilted distribution can be
// bimodal, EP site precisions can be negative, and EP may need damping; its
// tilted moments come from quadTilted (windows at the cavity, the tilted
// mode and y ± 12√s). Its power p^u is again of the same shape, integrated
// the same way (power EP).
type StudentT struct{ Nu, Scale float64 }

func (StudentT) Name() string             { return "student_t" }
func (StudentT) Role() Role               { return Likelihood }
func (StudentT) Builtin() *stdlib.Builtin { return &studentTBuiltin }
func (StudentT) Projection() string       { return "mean" }

func (l StudentT) Params() map[string]float64 {
	return map[string]float64{"nu": l.Nu, "scale": l.Scale}
}

// New validates nu > 0 and scale > 0.
func (StudentT) New(p map[string]float64) (Site, error) {
	l := StudentT{Nu: p["nu"], Scale: p["scale"]}
	if !(l.Nu > 0) || math.IsInf(l.Nu, 1) {
		return nil, &ParamError{Param: "nu", Msg: fmt.Sprintf("student_t: `nu` must be > 0 and finite, got %g", l.Nu)}
	}
	if !(l.Scale > 0) || math.IsInf(l.Scale, 1) {
		return nil, &ParamError{Param: "scale", Msg: fmt.Sprintf("student_t: `scale` must be > 0 and finite, got %g", l.Scale)}
	}
	return l, nil
}

// Quality: the quadrature moments under kl are checked against adaptive
// quadrature and EP against `infer exact`; power and relaxed EP on a
// non-log-concave site have no reference.
func (StudentT) Quality(c Column) Quality {
	if c.PowerOrRelaxed() {
		return Experimental
	}
	return Stable
}

func (l StudentT) CheckY(y float64) error { return finiteY(y) }

// LogLik is log St(y; ν, f, s) with r = y − f, q = ν s + r²:
// g = (ν+1) r / q, h = (ν+1)(r² − ν s)/q².
func (l StudentT) LogLik(y, f float64) (v, g, h float64) {
	return l.logLik(l.logNorm(), y, f)
}

// logNorm is the log normaliser of St(·; ν, 0, s),
// log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(ν π s).
func (l StudentT) logNorm() float64 {
	lg1, _ := math.Lgamma((l.Nu + 1) / 2)
	lg0, _ := math.Lgamma(l.Nu / 2)
	return lg1 - lg0 - 0.5*math.Log(l.Nu*math.Pi*l.Scale)
}

// logLik is LogLik with the log normaliser c = logNorm() computed by the
// caller, once per site rather than once per quadrature node.
func (l StudentT) logLik(c, y, f float64) (v, g, h float64) {
	nu, s := l.Nu, l.Scale
	r := y - f
	q := nu*s + r*r
	v = c - (nu+1)/2*math.Log1p(r*r/(nu*s))
	return v, (nu + 1) * r / q, (nu + 1) * (r*r - nu*s) / (q * q)
}

func (l StudentT) logp(y float64) func(f float64) (float64, float64, float64) {
	c := l.logNorm()
	return func(f float64) (float64, float64, float64) { return l.logLik(c, y, f) }
}

func (l StudentT) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	logZ, d1, d2, _ = quadTilted(l.logp(y), m, v, u, window{y, math.Sqrt(l.Scale)})
	return logZ, d1, d2
}

func (l StudentT) ExpLogLik(y, m, v float64) float64 {
	_, _, _, e := quadTilted(l.logp(y), m, v, 1, window{y, math.Sqrt(l.Scale)})
	return e
}

// Prob: a regression likelihood has no class probability.
func (StudentT) Prob(m, v float64) (float64, bool) { return 0, false }

func (StudentT) Support() string { return "a finite number" }

// Multimodal: the Student-t likelihood is not log-concave (Multimodal).
func (StudentT) Multimodal() bool { return true }
