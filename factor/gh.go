package factor

import (
	"math"

	"github.com/fg-infer/fg/internal/mathx"
)

// ghN is the number of Gauss–Hermite nodes of the cavity integrals that a
// kind without a closed form uses inside its Tilted rule (probit under
// power EP).
const ghN = 96

// ghTilted integrates p^u against N(m, v) with Gauss–Hermite nodes
// f_k = m + √(2v) x_k, in the log domain, and returns log Z and the
// derivatives via the tilted mean and variance: d1 = (m̂ − m)/v,
// d2 = (v̂ − v)/v².
func ghTilted(logp func(float64) float64, m, v, u float64) (logZ, d1, d2 float64) {
	ghX, ghW := mathx.Hermite(ghN)
	s := math.Sqrt(2 * v)
	lw := make([]float64, ghN)
	mx := math.Inf(-1)
	for k, x := range ghX {
		lw[k] = math.Log(ghW[k]) + u*logp(m+s*x)
		mx = math.Max(mx, lw[k])
	}
	if math.IsInf(mx, -1) {
		return mx, 0, 0
	}
	var z, e1, e2 float64
	for k, x := range ghX {
		w := math.Exp(lw[k] - mx)
		d := s * x
		z += w
		e1 += w * d
		e2 += w * d * d
	}
	e1 /= z
	vh := e2/z - e1*e1
	return mx + math.Log(z) - 0.5*math.Log(math.Pi), e1 / v, (vh - v) / (v * v)
}

// ghExpLog returns E[log p] under p̂ ∝ p·N(m, v) by Gauss–Hermite quadrature.
func ghExpLog(logp func(float64) float64, m, v float64) float64 {
	ghX, ghW := mathx.Hermite(ghN)
	s := math.Sqrt(2 * v)
	lw := make([]float64, ghN)
	lp := make([]float64, ghN)
	mx := math.Inf(-1)
	for k, x := range ghX {
		lp[k] = logp(m + s*x)
		lw[k] = math.Log(ghW[k]) + lp[k]
		mx = math.Max(mx, lw[k])
	}
	var z, e float64
	for k := range ghX {
		w := math.Exp(lw[k] - mx)
		z += w
		if w > 0 {
			e += w * lp[k]
		}
	}
	return e / z
}

// GHExpect returns E[g(f)] for f ~ N(m, v) by n-point Gauss–Hermite
// quadrature: Σ_k w_k g(m + √(2v) x_k) / √π; at v = 0 (a point mass, as
// for a prediction given one posterior draw) it is g(m), which the rule
// gives up to rounding at n times the cost.
func GHExpect(n int, m, v float64, g func(f float64) float64) float64 {
	if v == 0 {
		return g(m)
	}
	x, w := mathx.Hermite(n)
	s := 0.0
	for k := range x {
		s += w[k] * g(m+math.Sqrt(2*v)*x[k])
	}
	return s / math.Sqrt(math.Pi)
}
