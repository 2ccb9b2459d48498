// Package gauss holds Gaussian messages and beliefs in natural parameters:
// univariate (Uni), factorised (Diag) and multivariate held by the Cholesky
// factor of its precision (MV).
//
// A Gaussian message is exp(−½ xᵀΛx + hᵀx) with precision Λ and
// precision-mean h = Λμ. Products and quotients of messages add and subtract
// natural parameters, powers scale them:
//
//	(Λ₁, h₁)·(Λ₂, h₂) = (Λ₁ + Λ₂, h₁ + h₂),   (Λ, h)^a = (aΛ, ah)
//
// (rodrigues-gpc-message-passing.md A.1 in natural form). EP site messages may
// have negative precision; such improper messages are representable (Uni and
// Diag hold any finite parameters) but have no mean, variance or normaliser,
// which the accessors report with ok = false. The log-normaliser of a proper
// Gaussian is
//
//	A(Λ, h) = ½ hᵀΛ⁻¹h − ½ log|Λ| + (d/2) log 2π,
//
// so that N(x; μ, Λ⁻¹) = exp(−½ xᵀΛx + hᵀx − A).
package gauss

import "math"

const log2Pi = 1.8378770664093454835606594728112

// Uni is a univariate Gaussian message exp(−½ Tau x² + Nu x). Tau > 0 is a
// proper Gaussian with mean Nu/Tau and variance 1/Tau; Tau = 0 is flat;
// Tau < 0 is improper.
type Uni struct{ Tau, Nu float64 }

// NewUni returns the Gaussian with the given mean and variance; ok is false
// unless the mean is finite and 0 < variance < ∞.
func NewUni(mean, variance float64) (Uni, bool) {
	if !(variance > 0) || math.IsInf(variance, 1) || !finite(mean) {
		return Uni{}, false
	}
	return Uni{Tau: 1 / variance, Nu: mean / variance}, true
}

// NewUniNatural returns the message with the given natural parameters; ok is
// false unless both are finite (negative precision is allowed).
func NewUniNatural(tau, nu float64) (Uni, bool) {
	return Uni{tau, nu}, finite(tau, nu)
}

// Proper reports whether u is a normalisable density (Tau > 0).
func (u Uni) Proper() bool { return u.Tau > 0 && finite(u.Tau, u.Nu) }

// Mean returns Nu/Tau; ok is false for an improper or flat message.
func (u Uni) Mean() (float64, bool) {
	if !u.Proper() {
		return 0, false
	}
	return u.Nu / u.Tau, true
}

// Var returns 1/Tau; ok is false for an improper or flat message.
func (u Uni) Var() (float64, bool) {
	if !u.Proper() {
		return 0, false
	}
	return 1 / u.Tau, true
}

// Mul returns the product u·v (natural parameters add).
func (u Uni) Mul(v Uni) Uni { return Uni{u.Tau + v.Tau, u.Nu + v.Nu} }

// Div returns the quotient u/v (natural parameters subtract), e.g. an EP
// cavity q/t̃.
func (u Uni) Div(v Uni) Uni { return Uni{u.Tau - v.Tau, u.Nu - v.Nu} }

// Pow returns u^a (natural parameters scale), as in power EP.
func (u Uni) Pow(a float64) Uni { return Uni{a * u.Tau, a * u.Nu} }

// Damp returns (1 − d)·old + d·u in natural parameters (damped EP, step d).
func (u Uni) Damp(old Uni, d float64) Uni {
	return Uni{(1-d)*old.Tau + d*u.Tau, (1-d)*old.Nu + d*u.Nu}
}

// LogNormalizer returns A = Nu²/(2 Tau) − ½ log Tau + ½ log 2π, the log of
// ∫ exp(−½ Tau x² + Nu x) dx; ok is false for an improper message.
func (u Uni) LogNormalizer() (float64, bool) {
	if !u.Proper() {
		return 0, false
	}
	return 0.5*u.Nu*u.Nu/u.Tau - 0.5*math.Log(u.Tau) + 0.5*log2Pi, true
}

// LogPdf returns log N(x; mean, var) for a proper u.
func (u Uni) LogPdf(x float64) (float64, bool) {
	a, ok := u.LogNormalizer()
	return -0.5*u.Tau*x*x + u.Nu*x - a, ok
}

// LogProductNormalizer returns log ∫ N_u(x) N_v(x) dx =
// A(u·v) − A(u) − A(v) for proper u, v, i.e. log N(μ_u; μ_v, σ_u² + σ_v²).
func LogProductNormalizer(u, v Uni) (float64, bool) {
	a, ok1 := u.Mul(v).LogNormalizer()
	b, ok2 := u.LogNormalizer()
	c, ok3 := v.LogNormalizer()
	return a - b - c, ok1 && ok2 && ok3
}

// KL returns KL(u ‖ v) = ½[σ_u²/σ_v² + (μ_v − μ_u)²/σ_v² − 1 + log(σ_v²/σ_u²)]
// for proper u, v.
func KL(u, v Uni) (float64, bool) {
	if !u.Proper() || !v.Proper() {
		return 0, false
	}
	mu, mv := u.Nu/u.Tau, v.Nu/v.Tau
	r := v.Tau / u.Tau
	return 0.5 * (r + v.Tau*(mv-mu)*(mv-mu) - 1 - math.Log(r)), true
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Diag is a factorised Gaussian: independent univariate messages.
type Diag []Uni

// NewDiag returns the factorised Gaussian with the given means and
// variances; ok is false unless every pair is valid for NewUni.
func NewDiag(mean, variance []float64) (Diag, bool) {
	if len(mean) != len(variance) {
		return nil, false
	}
	d := make(Diag, len(mean))
	for i := range d {
		var ok bool
		if d[i], ok = NewUni(mean[i], variance[i]); !ok {
			return nil, false
		}
	}
	return d, true
}

// Mul returns the element-wise product; the lengths must match.
func (d Diag) Mul(e Diag) Diag { return d.zip(e, Uni.Mul) }

// Div returns the element-wise quotient; the lengths must match.
func (d Diag) Div(e Diag) Diag { return d.zip(e, Uni.Div) }

// Pow returns every factor raised to a.
func (d Diag) Pow(a float64) Diag {
	out := make(Diag, len(d))
	for i, u := range d {
		out[i] = u.Pow(a)
	}
	return out
}

func (d Diag) zip(e Diag, f func(Uni, Uni) Uni) Diag {
	out := make(Diag, len(d))
	for i := range d {
		out[i] = f(d[i], e[i])
	}
	return out
}

// Proper reports whether every factor is proper.
func (d Diag) Proper() bool {
	for _, u := range d {
		if !u.Proper() {
			return false
		}
	}
	return true
}

// Moments returns the means and variances; ok is false if a factor is improper.
func (d Diag) Moments() (mean, variance []float64, ok bool) {
	if !d.Proper() {
		return nil, nil, false
	}
	mean, variance = make([]float64, len(d)), make([]float64, len(d))
	for i, u := range d {
		mean[i], variance[i] = u.Nu/u.Tau, 1/u.Tau
	}
	return mean, variance, true
}

// LogNormalizer returns the sum of the factors' log-normalisers.
func (d Diag) LogNormalizer() (float64, bool) {
	var s float64
	for _, u := range d {
		a, ok := u.LogNormalizer()
		if !ok {
			return 0, false
		}
		s += a
	}
	return s, true
}
