package tfam

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// StdTail returns the partial moments of the standard Student-t density
// t_ν(z) = St(z; ν, 0, 1) above z0,
//
//	M0 = ∫_{z0}^∞ t_ν(z) dz = S_ν(z0)                          (survival function)
//	M1 = ∫_{z0}^∞ z t_ν(z) dz = (ν + z0²)/(ν − 1) · t_ν(z0)
//	M2 = ∫_{z0}^∞ z² t_ν(z) dz = [ν S_ν(z0) + z0 (ν + z0²) t_ν(z0)]/(ν − 2).
//
// Derivation: t_ν'(z) = −(ν+1) z/(ν+z²) t_ν(z) gives
// d/dz[(ν+z²) t_ν] = (1−ν) z t_ν and d/dz[z(ν+z²) t_ν] = ν t_ν + (2−ν) z² t_ν;
// integrate both from z0 to ∞. M1 needs ν > 1 and M2 needs ν > 2 (NaN
// otherwise). z0 = −Inf gives the full moments 1, 0, ν/(ν−2).
func StdTail(nu, z0 float64) (m0, m1, m2 float64) {
	d := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}
	m0 = d.Survival(z0)
	if math.IsInf(z0, 0) {
		m0 = 1
		if z0 > 0 {
			m0 = 0
		}
		m2 = math.NaN()
		if nu > 2 {
			m2 = m0 * nu / (nu - 2)
		}
		m1 = 0
		if nu <= 1 {
			m1 = math.NaN()
		}
		return m0, m1, m2
	}
	// (ν + z0²) t_ν(z0) computed in logs: t_ν decays like |z|^{−ν−1}.
	lp := d.LogProb(z0)
	a := math.Exp(math.Log(nu+z0*z0) + lp)
	m1, m2 = math.NaN(), math.NaN()
	if nu > 1 {
		m1 = a / (nu - 1)
	}
	if nu > 2 {
		m2 = (nu*m0 + z0*a) / (nu - 2)
	}
	return m0, m1, m2
}
