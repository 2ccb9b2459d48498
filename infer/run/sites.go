package run

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/quad"
	"github.com/fg-infer/fg/internal/mathx"
	"github.com/fg-infer/fg/stdlib/loss"
)

// siteLogLik returns log p(y | f) of a site and its first two derivatives
// in f:
//
//	probit    log Φ(y f)                       g = y r, h = −r (y f + r), r = N(yf)/Φ(yf)
//	step      log(ε + (1 − 2ε) Θ(y f))         g = h = 0 (piecewise constant)
//	logistic  −log(1 + e^{−y f})               g = y σ(−y f), h = −σ(y f) σ(−y f)
//	normal    log N(y; f, σ²)                  g = (y − f)/σ², h = −1/σ²
func siteLogLik(s compile.Site, f float64) (v, g, h float64) {
	y := s.Y
	switch s.Kind {
	case "probit":
		z := y * f
		r := mathx.InvMills(z)
		return mathx.LogPhi(z), y * r, -r * (z + r)
	case "step":
		eps := s.Params["eps"]
		if y*f > 0 {
			return math.Log1p(-eps), 0, 0
		}
		if y*f < 0 {
			return math.Log(eps), 0, 0
		}
		return math.Log(0.5), 0, 0 // Θ(0) = ½, the half sum of the one-sided limits
	case "logistic":
		v, d1, d2 := loss.Logistic{}.Eval(y * f) // log p = −ℓ(y f), y² = 1
		return -v, -y * d1, -d2
	case "normal":
		s2 := s.Params["var"]
		d := y - f
		return -0.5*math.Log(2*math.Pi*s2) - d*d/(2*s2), d / s2, -1 / s2
	}
	return math.NaN(), math.NaN(), math.NaN()
}

// siteValue returns f ↦ log p(y | f) of a site (siteLogLik's value alone)
// with its label and parameters read once: the gold standards evaluate it
// millions of times.
func siteValue(s compile.Site) func(f float64) float64 {
	y := s.Y
	switch s.Kind {
	case "probit":
		return func(f float64) float64 { return mathx.LogPhi(y * f) }
	case "step":
		eps := s.Params["eps"]
		hi, lo, mid := math.Log1p(-eps), math.Log(eps), math.Log(0.5)
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
	return func(f float64) float64 {
		v, _, _ := siteLogLik(s, f)
		return v
	}
}

// numericLikelihood wraps a site for infer/ep with the infer line's scheme.
func (j *job) numericLikelihood(s compile.Site) (ep.Likelihood, error) {
	scheme, err := quad.SchemeOf(j.spec.Approx)
	if err != nil {
		return nil, err
	}
	switch s.Kind {
	case "probit", "step", "logistic", "normal":
	default:
		return nil, fmt.Errorf("no one-dimensional rule for %s sites", s.Kind)
	}
	proto := compile.Site{Kind: s.Kind, Params: s.Params}
	ll := func(y, f float64) (float64, float64, float64) {
		p := proto
		p.Y = y
		return siteLogLik(p, f)
	}
	return ep.Numeric{Kind: s.Kind, Scheme: scheme, LogLik: ll, Binary: s.Kind != "normal"}, nil
}

// sitePotential is a site as a potential of the whole block vector w, for
// fully factorised EP: log f(w) = log p(y | aᵀw), with gradient g·a and
// diagonal Hessian h·a².
type sitePotential struct {
	s compile.Site
	n int
}

func (p sitePotential) LogF(w []float64) float64 {
	v, _, _ := siteLogLik(p.s, project(p.s, w))
	return v
}

func (p sitePotential) Derivs(w, grad, hdiag []float64) float64 {
	v, g, h := siteLogLik(p.s, project(p.s, w))
	for i := range grad {
		grad[i], hdiag[i] = 0, 0
	}
	if p.s.Proj == nil {
		grad[p.s.Index], hdiag[p.s.Index] = g, h
		return v
	}
	for i, a := range p.s.Proj {
		grad[i], hdiag[i] = g*a, h*a*a
	}
	return v
}
