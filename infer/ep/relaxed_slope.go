package ep

import (
	"math"

	"github.com/fg-infer/fg/internal/mathx"
)

// The slope of relaxed EP's cost in b (qi-guo-relaxed-ep-rbp.md §3, eq. 5;
// long version eq. 35).
//
// The relaxed tilted distribution is an exponential family in b,
//
//	P_b(f) ∝ p(y|f) exp(b g(f)) N(f; h, λ),   g(f) = −½ (f − m_i)²,
//
// because the relaxation factor r_i = N(f; m_i, 1/b) multiplies the cavity
// (eqs 11, 14–15). So d E_P[φ]/db = Cov_P(φ, g) for any φ, and with G_b =
// proj P_b the moment-matched Gaussian,
//
//	dKL(P_b ‖ G_b)/db = Cov_P( log P_b(f) − log G_b(f), g(f) ).
//
// The dependence through G_b drops out: G_b minimises KL(P_b ‖ G) over
// Gaussians G, so its first-order variation is zero (envelope theorem).
// Writing log P_b − log G_b = log p(y|f) − (f − h̃)²/(2λ̃) + (f − m̂)²/(2v̂) +
// const, the slope needs Cov_P(log p, g) and the covariance of two
// quadratics, i.e. the cumulants of P_b up to order four.
//
// For the step likelihood all of these are closed form (stepSlope); for
// the Gaussian likelihood P_b is Gaussian and the KL is identically 0; for
// probit and numeric likelihoods, whose E_P[log p] is itself a quadrature,
// the slope is a Richardson-extrapolated central difference of the same
// relaxedKL that the line search minimises (diffSlope), so the root of the
// slope is the minimiser of that function to rounding.

// relaxedSlope returns dKL(P_b ‖ proj P_b)/db for the cavity (τc, νc), the
// old site mean mOld and b ≥ 0. It is NaN when the tilted variance is not
// positive.
func relaxedSlope(s Site, mOld, tc, nc, b float64) float64 {
	switch l := s.Lik.(type) {
	case Step:
		return stepSlope(l.Eps, s.Y, mOld, tc+b, nc+b*mOld)
	case Gaussian:
		return 0
	}
	return diffSlope(s, mOld, tc, nc, b)
}

// stepSlope is the closed-form slope for p(y|f) = ε + (1 − 2ε) Θ(y f) at
// the relaxed cavity with precision t = τc + b and shift n = νc + b m_i.
//
// In u = y f the relaxed cavity is N(μ, σ²), μ = y h̃, σ² = λ̃, and
// Z(μ) = ε + (1 − 2ε) Φ(z), z = μ/σ. The cumulant generating function of
// P is log Z(μ + σ² s) − log Z(μ) + μ s + σ² s²/2, so with ℓ_k = ∂^k log Z/∂z^k
//
//	κ1 = μ + σ ℓ1,  κ2 = σ² (1 + ℓ2),  κ3 = σ³ ℓ3,  κ4 = σ⁴ ℓ4,
//
// where, with r = (1 − 2ε) N(z)/Z (Z^(k)/Z = r, −z r, (z² − 1) r, (3z − z³) r),
//
//	ℓ1 = r,  ℓ2 = −r (z + r),  ℓ3 = (z² − 1) r + 3 z r² + 2 r³,
//	ℓ4 = (3z − z³) r − (7z² − 4) r² − 12 z r³ − 6 r⁴.
//
// In x = u − κ1, log P − log G = L·1[u > 0] + α2 x² + α1 x + const with
// L = log((1 − ε)/ε), α2 = ½ (1/κ2 − 1/σ²), α1 = −r/σ, and
// g = β2 x² + β1 x + const with β2 = −½, β1 = −(κ1 − y m_i). Then
//
//	Cov(α2 x² + α1 x, g) = α2 β2 (κ4 + 2κ2²) + (α2 β1 + α1 β2) κ3 + α1 β1 κ2,
//	Cov(1[u>0], g) = −½ Cov(1₊, x²) + β1 E[x 1₊],
//
// with, for t = (u − μ)/σ, P₊ = (1 − ε)Φ(z)/Z and ρ = (1 − ε)N(z)/Z (the
// truncated moments ∫_{−z}^∞ tᵏ N(t) dt = Φ(z), N(z), Φ(z) − z N(z)),
//
//	E[x 1₊] = σ (ρ − r P₊),   E[x² 1₊] = σ² (P₊ (1 + r²) − ρ (z + 2r)).
//
// For ε = 0, P has no mass where u < 0 and the log p term vanishes.
func stepSlope(eps, y, mOld, t, n float64) float64 {
	sigma := 1 / math.Sqrt(t)
	mu := y * n / t
	z := mu / sigma
	var logZ float64
	if eps == 0 {
		logZ = mathx.LogPhi(z)
	} else {
		logZ = mathx.LogAddExp(math.Log(eps), math.Log(1-2*eps)+mathx.LogPhi(z))
	}
	r := math.Exp(math.Log(1-2*eps) + mathx.LogN(z) - logZ)
	l2 := -r * (z + r)
	l3 := (z*z-1)*r + 3*z*r*r + 2*r*r*r
	l4 := (3*z-z*z*z)*r - (7*z*z-4)*r*r - 12*z*r*r*r - 6*r*r*r*r
	k1 := mu + sigma*r
	k2 := sigma * sigma * (1 + l2)
	if !(k2 > 0) {
		return math.NaN()
	}
	k3 := sigma * sigma * sigma * l3
	k4 := sigma * sigma * sigma * sigma * l4
	a2, a1 := 0.5*(1/k2-1/(sigma*sigma)), -r/sigma
	b2, b1 := -0.5, -(k1 - y*mOld)
	d := a2*b2*(k4+2*k2*k2) + (a2*b1+a1*b2)*k3 + a1*b1*k2
	if eps > 0 {
		pPlus := math.Exp(math.Log(1-eps) + mathx.LogPhi(z) - logZ)
		rho := math.Exp(math.Log(1-eps) + mathx.LogN(z) - logZ)
		ex := sigma * (rho - r*pPlus)
		ex2 := sigma * sigma * (pPlus*(1+r*r) - rho*(z+2*r))
		cov := -0.5*(ex2-pPlus*k2) + b1*ex
		d += math.Log((1-eps)/eps) * cov
	}
	return d
}

// diffSlope differentiates relaxedKL in b by central differences with one
// Richardson step, D = (4 D(h/2) − D(h))/3, D(h) = (K(b+h) − K(b−h))/(2h),
// whose truncation error is O(h⁴). P_b changes on the scale
// s = 1/((h̃ − m_i)² + λ̃) in b (the exponent b g(f) is O(1) there), so h =
// 10⁻³ s: truncation ~1e-12 and rounding ~1e-13 relative to K/s. s ≤ 1/λ̃ =
// τc + b keeps the relaxed precision τc + b − h positive, so b − h < 0 is
// allowed (P_b is defined for any b > −τc).
func diffSlope(s Site, mOld, tc, nc, b float64) float64 {
	t := tc + b
	h := (nc + b*mOld) / t
	sc := 1 / ((h-mOld)*(h-mOld) + 1/t)
	step := 1e-3 * sc
	k := func(x float64) float64 { return relaxedKL(s, mOld, tc, nc, x) }
	d := func(e float64) float64 { return (k(b+e) - k(b-e)) / (2 * e) }
	return (4*d(step/2) - d(step)) / 3
}
