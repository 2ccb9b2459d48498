package factor

import (
	"math"

	"github.com/fg-infer/fg/families/tfam"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/internal/mathx"
	"github.com/fg-infer/fg/stdlib"
)

var probitBuiltin = stdlib.Builtin{Name: "probit", Kind: stdlib.Distribution, Domains: spinDomain, Observed: true,
	Params: []stdlib.Param{stdlib.Required("a", stdlib.LatentT, "latent projection, e.g. dot(X[i], w) or f[i]")},
	Doc:    "probit likelihood p(y|a) = Φ(y·a) for a spin observation y"}

// Probit is the classification likelihood p(y | f) = Φ(y f), y ∈ {−1, +1}
// (GPML's likErf). With u = 1 the tilted moments are closed form
// (rodrigues eqs 15–18):
//
//	z = y m / √(1 + v),  log Z = log Φ(z),  r = N(z)/Φ(z),
//	d1 = y r / √(1 + v),  d2 = −r (z + r) / (1 + v).
//
// For u ≠ 1 (power EP) Φ(y f)^u has no closed form and Tilted integrates by
// 96-point Gauss–Hermite quadrature on the cavity.
type Probit struct{}

func (Probit) Name() string               { return "probit" }
func (Probit) Role() Role                 { return Likelihood }
func (Probit) Builtin() *stdlib.Builtin   { return &probitBuiltin }
func (Probit) Params() map[string]float64 { return nil }
func (Probit) CheckY(y float64) error     { return spinY(y) }

// New is the probit likelihood; it has no parameters.
func (Probit) New(map[string]float64) (Site, error) { return Probit{}, nil }

func (Probit) Projection() string { return "a" }

// Quality: power EP, relaxed EP and t-EP on Φ run but lack an external reference.
func (Probit) Quality(c Column) Quality {
	if c.PowerOrRelaxed() {
		return Experimental
	}
	return Stable
}

func (Probit) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	if u != 1 {
		return ghTilted(func(f float64) float64 { return mathx.LogPhi(y * f) }, m, v, u)
	}
	s := math.Sqrt(1 + v)
	z := y * m / s
	r := mathx.InvMills(z)
	return mathx.LogPhi(z), y * r / s, -r * (z + r) / (1 + v)
}

func (Probit) ExpLogLik(y, m, v float64) float64 {
	return ghExpLog(func(f float64) float64 { return mathx.LogPhi(y * f) }, m, v)
}

// Prob is p(y = +1) = Φ(m / √(1 + v)).
func (Probit) Prob(m, v float64) (float64, bool) {
	return mathx.Phi(m / math.Sqrt(1+v)), true
}

// LogLik is log Φ(y f): g = y r, h = −r (y f + r), r = N(yf)/Φ(yf).
func (Probit) LogLik(y, f float64) (v, g, h float64) {
	z := y * f
	r := mathx.InvMills(z)
	return mathx.LogPhi(z), y * r, -r * (z + r)
}

// Escort integrates St(f; ν, m, v) Φ(y f)^u numerically. In the
// standardised variable z = (f − m)/√v the probit factor changes over a
// width 1/√v around zc = −m/√v, the density over a width 1; the line is cut
// at zc ± 12/√v and ±12, each piece is mapped by z = tan θ and integrated
// with a 96-point Gauss–Legendre rule (relative accuracy ≈ 1e-12 against
// adaptive quadrature, infer/tep's tests).
func (Probit) Escort(y, nu, m, v, u float64) (z, mean, variance float64) {
	sv := math.Sqrt(v)
	zc := -m / sv
	w := 12 / sv
	cuts := sortedCuts(zc-w, zc+w, -12, 12)
	lognorm := tfam.LogNormConst(nu, 1)
	var i0, i1, i2 float64
	f := func(z float64) float64 {
		return math.Exp(lognorm - (nu+1)/2*math.Log1p(z*z/nu) + u*mathx.LogPhi(y*(m+sv*z)))
	}
	x, wt := escortLegX, escortLegW
	for c := 0; c+1 < len(cuts); c++ {
		a, b := math.Atan(cuts[c]), math.Atan(cuts[c+1])
		for q := range x {
			th := 0.5*(b-a)*x[q] + 0.5*(a+b)
			cs := math.Cos(th)
			z := math.Tan(th)
			g := f(z) * 0.5 * (b - a) * wt[q] / (cs * cs)
			i0 += g
			i1 += g * z
			i2 += g * z * z
		}
	}
	ez := i1 / i0
	return i0, m + sv*ez, v * (i2/i0 - ez*ez)
}

// escortLegX, escortLegW are the 96-point Gauss–Legendre rule of probit's
// Escort.
var escortLegX, escortLegW = legendreRule(96)

// sortedCuts returns −∞, the given points in increasing order (duplicates
// removed), +∞.
func sortedCuts(pts ...float64) []float64 {
	out := []float64{math.Inf(-1)}
	for len(pts) > 0 {
		mi := 0
		for i := range pts {
			if pts[i] < pts[mi] {
				mi = i
			}
		}
		if pts[mi] > out[len(out)-1] {
			out = append(out, pts[mi])
		}
		pts = append(pts[:mi], pts[mi+1:]...)
	}
	return append(out, math.Inf(1))
}

// LogValueAt is f ↦ log Φ(y f).
func (Probit) LogValueAt(y float64) func(f float64) float64 {
	return func(f float64) float64 { return mathx.LogPhi(y * f) }
}

// learning: probit has no parameter, so its evidence gradient is the
// kernel's alone (ParamGrad is not implemented).

var (
	spinDomain = []graph.Domain{graph.Spin}
	realDomain = []graph.Domain{graph.Real}
	discDomain = []graph.Domain{graph.Spin, graph.Bool, graph.Cat}
)

func (Probit) Support() string { return spinSupport }

const spinSupport = "a spin value (-1/+1)"
