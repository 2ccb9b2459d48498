package testkit

import (
	"math"
	"testing"
)

// GaussianSite is the posterior of independent x_k ~ N(mu_k, p_k) seen
// through one Gaussian likelihood y ~ N(aᵀx + c, r), in closed form with
// S = r + Σ a_j² p_j and d = y − c − Σ a_j mu_j:
//
//	E x_k = mu_k + p_k a_k d / S,   Var x_k = p_k (r + Σ_{j≠k} a_j² p_j) / S,
//	log Z = log N(d; 0, S),
//
// each sum taken directly over its own terms (no subtraction), so it keeps
// its digits at any r, also when one member's term a_k² p_k is far above
// r and the rest (the tight sites of the EP engines' tests).
func GaussianSite(mu, p, a []float64, c, y, r float64) (mean, vr []float64, logZ float64) {
	S, d := r, y-c
	for j, aj := range a {
		S += aj * aj * p[j]
		d -= aj * mu[j]
	}
	mean, vr = make([]float64, len(a)), make([]float64, len(a))
	for k := range a {
		rest := r
		for j, aj := range a {
			if j != k {
				rest += aj * aj * p[j]
			}
		}
		mean[k], vr[k] = mu[k]+p[k]*a[k]*d/S, p[k]*rest/S
	}
	return mean, vr, -0.5*math.Log(2*math.Pi*S) - 0.5*d*d/S
}

// CheckMarginals reports through t every element whose mean is more than
// tol posterior sds from mean (plus 4ε|mean|, the rounding of the mean
// itself, which matters where the sd is ~1e-6 of it) or whose variance is
// more than tol relative from vr; what names the run.
func CheckMarginals(t testing.TB, what string, gotMean, gotVar, mean, vr []float64, tol float64) {
	t.Helper()
	for k, m := range mean {
		dm := math.Abs(gotMean[k] - m)
		if !(dm <= tol*math.Sqrt(vr[k])+4*0x1p-52*math.Abs(m)) || !(math.Abs(gotVar[k]/vr[k]-1) <= tol) {
			t.Errorf("%s: element %d = %.17g ± %.17g, closed form %.17g ± %.17g", what, k, gotMean[k], math.Sqrt(gotVar[k]), m, math.Sqrt(vr[k]))
		}
	}
}
