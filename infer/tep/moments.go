package tep

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/fg-infer/fg/families/tfam"
	"github.com/fg-infer/fg/internal/mathx"
)

// tilt holds the normaliser, mean and variance of a one-dimensional tilted
// density ∝ St(s; ν, m, v) · l(s)^p.
type tilt struct {
	Z, Mean, Var float64
}

// tiltMoments returns Z = ∫ St(s; ν, m, v) l(s)^p ds and the mean and
// variance of the normalised product. The three uses are
//
//	escort-tilted (moment matching):  ν+2, scale ν v/(ν+2), p = t   (algorithms.md)
//	Z1 of Theorem 1 (evidence):       ν,   scale v,         p = t
//	predictive p(y | x*):             ν,   scale v,         p = 1.
//
// The variance needs ν > 2 and is NaN otherwise.
func tiltMoments(s Site, p, nu, m, v float64) tilt {
	if s.Lik == Step {
		return stepMoments(s, p, nu, m, v)
	}
	return probitMoments(s, p, nu, m, v)
}

// stepMoments is the closed form for l(s) = ε + (1−2ε) Θ(y s):
// l^p = e0 + (e1 − e0) Θ(y s) with e0 = ε^p, e1 = (1−ε)^p. With
// z̃ = y (s − m)/√v, the indicator is z̃ > z0 = −y m/√v, and with the
// partial moments (M0, M1, M2) of tfam.StdTail at z0,
//
//	Z     = e0 + (e1 − e0) M0
//	E z̃   = (e1 − e0) M1 / Z
//	E z̃²  = (e0 ν/(ν−2) + (e1 − e0) M2) / Z
//	E s   = m + y √v E z̃,   Var s = v (E z̃² − (E z̃)²).
//
// ε = 0 is allowed (e0 = 0).
func stepMoments(s Site, p, nu, m, v float64) tilt {
	e0, e1 := math.Pow(s.Eps, p), math.Pow(1-s.Eps, p)
	sv := math.Sqrt(v)
	m0, m1, m2 := tfam.StdTail(nu, -s.Y*m/sv)
	z := e0 + (e1-e0)*m0
	ez := (e1 - e0) * m1 / z
	ez2 := (e0*nu/(nu-2) + (e1-e0)*m2) / z
	return tilt{Z: z, Mean: m + s.Y*sv*ez, Var: v * (ez2 - ez*ez)}
}

// probitMoments integrates St(s; ν, m, v) Φ(y s)^p numerically. In the
// standardised variable z = (s − m)/√v the probit factor changes over a width
// 1/√v around zc = −m/√v, the density over a width 1; the line is cut at
// zc ± 12/√v and ±12, each piece is mapped by z = tan θ and integrated with a
// 96-point Gauss–Legendre rule (relative accuracy ≈ 1e-12 in the tests).
func probitMoments(s Site, p, nu, m, v float64) tilt {
	sv := math.Sqrt(v)
	zc := -m / sv
	w := 12 / sv
	cuts := sortedCuts(zc-w, zc+w, -12, 12)
	lognorm := tfam.LogNormConst(nu, 1)
	var i0, i1, i2 float64
	f := func(z float64) float64 {
		return math.Exp(lognorm - (nu+1)/2*math.Log1p(z*z/nu) + p*mathx.LogPhi(s.Y*(m+sv*z)))
	}
	for c := 0; c+1 < len(cuts); c++ {
		a, b := math.Atan(cuts[c]), math.Atan(cuts[c+1])
		x, wt := legendre()
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
	return tilt{Z: i0, Mean: m + sv*ez, Var: v * (i2/i0 - ez*ez)}
}

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

var (
	legOnce    sync.Once
	legX, legW []float64
)

// legendre returns the 96-point Gauss–Legendre nodes and weights on [−1, 1].
func legendre() ([]float64, []float64) {
	legOnce.Do(func() {
		legX, legW = make([]float64, 96), make([]float64, 96)
		quad.Legendre{}.FixedLocations(legX, legW, -1, 1)
	})
	return legX, legW
}
