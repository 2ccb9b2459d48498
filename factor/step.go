package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/families/tfam"
	"github.com/fg-infer/fg/internal/mathx"
	"github.com/fg-infer/fg/stdlib"
)

var stepBuiltin = stdlib.Builtin{Name: "step", Kind: stdlib.Distribution, Domains: spinDomain, Observed: true,
	Params: []stdlib.Param{stdlib.Required("a", stdlib.LatentT, "latent projection"),
		stdlib.Optional("eps", stdlib.NumberT, "0", "label-noise rate in [0, 1/2)")},
	Doc: "labeling-noise step likelihood p(y|a) = eps + (1 − 2·eps)·Θ(y·a) (Qi & Guo eq. 8)"}

// Step is the labelling-noise likelihood p(y | f) = Eps + (1 − 2 Eps)·Θ(y f)
// (qi-guo eq. 8), 0 ≤ Eps < ½; Eps = 0 is the noise-free step. Its power is
// again a step, p^u = Eps^u + ((1−Eps)^u − Eps^u)·Θ(y f) (qi-guo long version,
// Appendix C eq. 41), so with a = Eps^u, b = (1−Eps)^u − Eps^u:
//
//	z = y m / √v,  Z = a + b Φ(z),  r = b N(z)/Z,
//	d1 = y r / √v,  d2 = −r (z + r) / v.
type Step struct{ Eps float64 }

func (Step) Name() string             { return "step" }
func (Step) Role() Role               { return Likelihood }
func (Step) Builtin() *stdlib.Builtin { return &stepBuiltin }
func (Step) Discontinuous()           {}

func (l Step) Params() map[string]float64 { return map[string]float64{"eps": l.Eps} }

func (Step) Projection() string { return "a" }

// New validates eps ∈ [0, ½).
func (Step) New(p map[string]float64) (Site, error) {
	eps := p["eps"]
	if !(eps >= 0 && eps < 0.5) {
		return nil, &ParamError{Param: "eps", Msg: fmt.Sprintf("step: eps must be in [0, 0.5), got %g", eps)}
	}
	return Step{Eps: eps}, nil
}

// Quality: t-EP's step rule is futami eq. 43; everything else is in qi-guo.
func (Step) Quality(Column) Quality { return Stable }

func (l Step) CheckY(y float64) error {
	if !(l.Eps >= 0 && l.Eps < 0.5) {
		return fmt.Errorf("ep: step eps = %g, want 0 ≤ eps < 0.5", l.Eps)
	}
	return spinY(y)
}

func (l Step) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	sv := math.Sqrt(v)
	z := y * m / sv
	logA := u * math.Log(l.Eps) // −Inf when Eps = 0
	b := math.Pow(1-l.Eps, u) - math.Exp(logA)
	if b <= 0 {
		return logA, 0, 0
	}
	var r float64
	if l.Eps == 0 {
		logZ, r = mathx.LogPhi(z), mathx.InvMills(z)
	} else {
		logZ = mathx.LogAddExp(logA, math.Log(b)+mathx.LogPhi(z))
		r = math.Exp(math.Log(b) + mathx.LogN(z) - logZ)
	}
	return logZ, y * r / sv, -r * (z + r) / v
}

// ExpLogLik is closed form: the tilted mass on the correct side is
// (1−Eps)Φ(z)/Z, so E[log p] = [(1−ε)log(1−ε)Φ(z) + ε log ε (1 − Φ(z))]/Z
// (qi-guo long version, first term of eq. 36).
func (l Step) ExpLogLik(y, m, v float64) float64 {
	if l.Eps == 0 {
		return 0
	}
	e := l.Eps
	z := y * m / math.Sqrt(v)
	pc, pw := mathx.Phi(z), mathx.Phi(-z)
	Z := e + (1-2*e)*pc
	return ((1-e)*math.Log(1-e)*pc + e*math.Log(e)*pw) / Z
}

// Prob is p(y = +1) = ε + (1 − 2ε) Φ(m/√v).
func (l Step) Prob(m, v float64) (float64, bool) {
	return l.Eps + (1-2*l.Eps)*mathx.Phi(m/math.Sqrt(v)), true
}

// LogLik is log(ε + (1 − 2ε) Θ(y f)) with g = h = 0 (piecewise constant);
// Θ(0) = ½, the half sum of the one-sided limits.
func (l Step) LogLik(y, f float64) (v, g, h float64) {
	if y*f > 0 {
		return math.Log1p(-l.Eps), 0, 0
	}
	if y*f < 0 {
		return math.Log(l.Eps), 0, 0
	}
	return math.Log(0.5), 0, 0
}

// Escort is closed form (futami eq. 43): p^u = e0 + (e1 − e0) Θ(y f)
// with e0 = ε^u, e1 = (1−ε)^u. With z̃ = y (f − m)/√v the indicator is
// z̃ > z0 = −y m/√v, and with the partial moments (M0, M1, M2) of the
// standard Student-t beyond z0 (tfam.StdTail),
//
//	z     = e0 + (e1 − e0) M0
//	E z̃   = (e1 − e0) M1 / z
//	E z̃²  = (e0 ν/(ν−2) + (e1 − e0) M2) / z
//	E f   = m + y √v E z̃,   Var f = v (E z̃² − (E z̃)²).
//
// ε = 0 is allowed (e0 = 0).
func (l Step) Escort(y, nu, m, v, u float64) (z, mean, variance float64) {
	e0, e1 := math.Pow(l.Eps, u), math.Pow(1-l.Eps, u)
	sv := math.Sqrt(v)
	m0, m1, m2 := tfam.StdTail(nu, -y*m/sv)
	z = e0 + (e1-e0)*m0
	ez := (e1 - e0) * m1 / z
	ez2 := (e0*nu/(nu-2) + (e1-e0)*m2) / z
	return z, m + y*sv*ez, v * (ez2 - ez*ez)
}

// LogValueAt is LogLik's value with the three logs computed once.
func (l Step) LogValueAt(y float64) func(f float64) float64 {
	hi, lo, mid := math.Log1p(-l.Eps), math.Log(l.Eps), math.Log(0.5)
	return func(f float64) float64 {
		switch z := y * f; {
		case z > 0:
			return hi
		case z < 0:
			return lo
		}
		return mid
	}
}

// LearnParam: eps is learned on the logit scale of (0, ½).
func (l Step) LearnParam() (string, float64, float64, float64) { return "eps", l.Eps, 0, 0.5 }

// ParamGrad: Ẑ = ε + (1 − 2ε) Φ(z), z = y m/√v, so
// ∂ log Ẑ/∂ε = (1 − 2Φ(z))/Ẑ = (Φ(−z) − Φ(z))/Ẑ.
func (l Step) ParamGrad(y, m, v float64) float64 {
	logZ, _, _ := l.Tilted(y, m, v, 1)
	z := y * m / math.Sqrt(v)
	return (mathx.Phi(-z) - mathx.Phi(z)) * math.Exp(-logZ)
}

func (Step) Support() string { return spinSupport }

// Multimodal reports whether the step is not log-concave in f: with label
// noise eps > 0, eps + (1 − 2eps)·Θ(y·f) is not (Multimodal).
func (l Step) Multimodal() bool { return l.Eps > 0 }
