package ffep

import (
	"math"

	"github.com/fg-infer/fg/families"
)

// Potential is a log-potential log f(w) of a block vector w ∈ R^d with its
// gradient and diagonal Hessian (the same method set as graph.Potential;
// stdlib/loss.Batch and stdlib/ad.Potential implement it). Derivs fills grad
// and hdiag (length d) and returns log f(w).
type Potential interface {
	LogF(w []float64) float64
	Derivs(w, grad, hdiag []float64) float64
}

// AxisPotential is an optional fast path for the 2d+1 points of GQ and VQ:
// LogFAxes returns log f(w) and fills lp[i] = log f(w + step_i e_i),
// lm[i] = log f(w − step_i e_i). stdlib/loss.Batch implements it in
// O(s·d) loss evaluations by shifting margins.
type AxisPotential interface {
	LogFAxes(w, step, lp, lm []float64) float64
}

// site is log g(θ) = C0 + Σ_i (A_i z_i + B_i z_i²) with z_i = (θ_i − μ_i)/σ_i
// relative to the cavity N(μ, diag σ²) it was computed for.
type site struct {
	C0   float64
	A, B []float64
}

// work is the scratch space of one engine run (no allocation per update).
type work struct {
	d                 int
	theta, grad, hess []float64
	trial             []float64
	l0                float64   // log f(μ)
	lp, lm            []float64 // log f(μ ± γσ_i e_i)
	ep, em            []float64 // VQ: g at the ± points (scaled)
	dA, dB            []float64 // Newton direction (LA: dA[:d]; VQ: dA[0] for a0, dA[1:], dB[1:])
	s                 site
	iters             int // Newton iterations of the last LA/VQ site
	// convex is set by LA/QLA when ∂²log f > 0 in some coordinate at the
	// expansion point: the factor is not log-concave there.
	convex bool
	// terms, loo: the exact scheme's leave-one-out projections (projected.go).
	terms, loo []families.Projection
}

func newWork(d int) *work {
	f := func() []float64 { return make([]float64, d) }
	return &work{d: d, theta: f(), grad: f(), hess: f(), trial: f(),
		lp: f(), lm: f(), ep: f(), em: f(),
		dA: make([]float64, d+1), dB: make([]float64, d+1),
		s: site{A: f(), B: f()}}
}

// logZ returns log ∫ N(θ; μ, σ²) g(θ) dθ for the site, or ErrImproper when
// some 1 − 2B_i ≤ 0 (the tilted approximation is not normalisable).
func (s *site) logZ() (float64, error) {
	z := s.C0
	for i, b := range s.B {
		p := 1 - 2*b
		if !(p > 0) {
			return 0, ErrImproper
		}
		z += -0.5*math.Log(p) + s.A[i]*s.A[i]/(2*p)
	}
	if math.IsNaN(z) || math.IsInf(z, 0) {
		return 0, ErrNonFinite
	}
	return z, nil
}

// natural converts coordinate i of the site to natural parameters in θ:
//
//	log g = −½ λ θ² + η θ + const,  λ = −2B/σ²,  η = A/σ + λ μ.
func (s *site) natural(i int, mu, sd float64) (lam, eta float64) {
	lam = -2 * s.B[i] / (sd * sd)
	return lam, s.A[i]/sd + lam*mu
}

// compute fills w.s with the site of scheme sc for factor f under the cavity
// N(mu, diag sd²).
func (w *work) compute(sc Scheme, f Potential, mu, sd []float64) error {
	var err error
	w.iters, w.convex = 0, false
	switch sc.Kind {
	case QuickLaplace:
		err = w.quickLaplace(f, mu, sd)
	case Laplace:
		err = w.laplace(f, mu, sd, sc.tol(), sc.maxIter())
	case GQ:
		err = w.gq(f, mu, sd)
	case VQ:
		err = w.vq(f, mu, sd, sc.tol(), sc.maxIter(), sc.ColdStart)
	case Exact:
		err = w.projected(f, mu, sd)
	case GH:
		if w.d != 1 {
			return ErrMultivariateGH
		}
		err = w.gh1(f, mu[0], sd[0], sc.nodes())
	default:
		return ErrImproper
	}
	if err != nil {
		return err
	}
	return w.s.check()
}

func (s *site) check() error {
	if math.IsNaN(s.C0) || math.IsInf(s.C0, 0) {
		return ErrNonFinite
	}
	for i := range s.A {
		if math.IsNaN(s.A[i]) || math.IsInf(s.A[i], 0) || math.IsNaN(s.B[i]) || math.IsInf(s.B[i], 0) {
			return ErrNonFinite
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
