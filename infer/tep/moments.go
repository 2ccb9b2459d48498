package tep

// tilt holds the normaliser, mean and variance of a one-dimensional tilted
// density ∝ St(s; ν, m, v) · l(s)^p.
type tilt struct {
	Z, Mean, Var float64
}

// tiltMoments returns Z = ∫ St(s; ν, m, v) l(s)^p ds and the mean and
// variance of the normalised product, the site likelihood's t-EP rule
// (factor.Escort). The three uses are
//
//	escort-tilted (moment matching):  ν+2, scale ν v/(ν+2), p = t   (algorithms.md)
//	Z1 of Theorem 1 (evidence):       ν,   scale v,         p = t
//	predictive p(y | x*):             ν,   scale v,         p = 1.
//
// The variance needs ν > 2 and is NaN otherwise.
func tiltMoments(s Site, p, nu, m, v float64) tilt {
	z, mean, vr := s.Lik.Escort(s.Y, nu, m, v, p)
	return tilt{Z: z, Mean: mean, Var: vr}
}
