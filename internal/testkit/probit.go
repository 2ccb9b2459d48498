package testkit

import "math"

// ProbitOneSite is the closed form of one probit site on a Gaussian prior:
// the marginals of p(w | y) ∝ Φ(y xᵀw) Π_j N(w_j; m0, v0), which is also
// ADF's (and one-site EP's) answer, since (w_j, xᵀw) are jointly Gaussian
// (Minka 2001, §3.2.1):
//
//	s = √(1 + Σx_j² v0), z = y Σx_j m0 / s, r = φ(z)/Φ(z),
//	E w_j = m0 + v0 x_j y r / s,   Var w_j = v0 − v0² x_j² r (z + r) / s².
//
// It is written independently of the engines' site updates, for tests.
func ProbitOneSite(y float64, x []float64, m0, v0 float64) (mean, vr []float64) {
	var mt, vt float64
	for _, xj := range x {
		mt, vt = mt+xj*m0, vt+xj*xj*v0
	}
	s := math.Sqrt(1 + vt)
	z := y * mt / s
	r := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) / (0.5 * math.Erfc(-z/math.Sqrt2))
	for _, xj := range x {
		mean = append(mean, m0+v0*xj*y*r/s)
		vr = append(vr, v0-v0*v0*xj*xj*r*(z+r)/(s*s))
	}
	return mean, vr
}
