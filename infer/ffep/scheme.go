// Package ffep holds the numerical moment schemes of fg for factors without
// closed-form tilted moments, and the fully factorised EP engine (FF-EP,
// roche-numerical-ep.txt) that runs them on mini-batch factors.
//
// Every scheme approximates, for a factor f and a cavity distribution
// c = N(μ, diag σ²), the unnormalised Gaussian g ("site") such that c·g
// approximates c·f in its moments of order 0, 1 and 2 per coordinate
// (roche eqs 4–5). Sites are computed in the cavity's standardised
// coordinates z_i = (θ_i − μ_i)/σ_i:
//
//	log g(θ) = C0 + Σ_i (A_i z_i + B_i z_i²),
//
// so that the approximate tilted distribution c·g has, per coordinate,
// precision (1 − 2B_i)/σ_i², mean μ_i + σ_i A_i/(1 − 2B_i), and
//
//	log ∫ c g = C0 + Σ_i [ −½ log(1 − 2B_i) + A_i²/(2(1 − 2B_i)) ].
//
// The schemes (the approx option infer.Scheme, turned into an engine
// Scheme by SchemeOf):
//
//   - gh(n): Gauss–Hermite with n nodes (one-dimensional factors only; the
//     accurate default for a factor of one projection aᵀw).
//   - laplace (LA): second-order Taylor expansion of log f at the mode of c·f
//     with the diagonal Hessian (roche eq. 6).
//   - quick_laplace (QLA): the same expansion at the cavity mean μ.
//   - gq: precision-3 quadrature, 2d+1 points θ0 = μ, θ±j = μ ± γσ_j e_j,
//     γ = √(d + ½), uniform weights 1/(2d+1) (roche eq. 7 and §2.2); the
//     moments are matched, then divided by the cavity.
//   - vq: variational quadrature (roche §2.3): minimise the empirical
//     generalised KL L̃(α) of eq. 10 over the 2d+1 coefficients of log g by
//     Newton's method (gradient and Hessian eq. 11, Cholesky), tolerance
//     1e-5 on the relative parameter change.
//   - exact: for a factor f(aᵀw) on one projection (Projected), the exact
//     marginals of the tilted distribution from log Z of the projection
//     (projected.go); the fully factorised EP of Minka (2001) and, with one
//     pass, AdPredictor's ADF.
//
// Note on VQ: with the 2d+1 points of the precision-3 rule and the 2d+1
// monomials of the factorised family, the matrix Φ with rows φ(θ_j)ᵀ is
// square and invertible, so the stationarity condition ∇L̃ = ΦᵀW(e − f) = 0
// of eq. 11 forces g(θ_j) = f(θ_j) at every point: the VQ site interpolates
// log f at the 2d+1 points. We still run Newton as the paper specifies (it
// is the general method, and the Hessian has an arrow structure solved by a
// block Cholesky in O(d)); the tests check the result against that
// interpolation, an independent closed form.
package ffep

import (
	"errors"
	"fmt"

	"github.com/fg-infer/fg/infer"
)

// Kind names a moment scheme: the kinds of the approx option, defined in
// package infer with their names and ranges.
type Kind = infer.SchemeKind

// The numerical schemes.
const (
	GH           = infer.SchemeGH           // Gauss–Hermite (1-D)
	Laplace      = infer.SchemeLaplace      // LA: expansion at the mode of c·f
	QuickLaplace = infer.SchemeQuickLaplace // QLA: expansion at the cavity mean
	GQ           = infer.SchemeGQ           // precision-3 Gaussian quadrature
	VQ           = infer.SchemeVQ           // variational quadrature
	// Exact: closed-form tilted marginals of a factor on one projection
	// aᵀw (a Projected potential; projected.go).
	Exact = infer.SchemeExact
)

// Scheme is a moment scheme with its options.
type Scheme struct {
	Kind Kind
	// N is the number of Gauss–Hermite nodes (GH only; 0 means
	// infer.DefaultGHNodes; at most infer.MaxGHNodes).
	N int
	// Tol is the relative tolerance of the Newton iterations of LA and VQ
	// (0 means 1e-5, roche §3.1); MaxIter bounds them (0 means 100; 500
	// for a cold-started VQ, whose iterations cost O(d) each).
	Tol     float64
	MaxIter int
	// ColdStart (VQ only) starts Newton from the constant site instead of
	// the log-space least-squares fit (see vq.go); the minimiser is the
	// same, only the iteration count differs.
	ColdStart bool
}

func (s Scheme) String() string {
	if s.Kind == GH {
		return fmt.Sprintf("gh(n = %d)", s.nodes())
	}
	return s.Kind.String()
}

func (s Scheme) nodes() int {
	if s.N <= 0 {
		return infer.DefaultGHNodes
	}
	return s.N
}

func (s Scheme) tol() float64 {
	if s.Tol <= 0 {
		return 1e-5
	}
	return s.Tol
}

func (s Scheme) maxIter() int {
	switch {
	case s.MaxIter > 0:
		return s.MaxIter
	case s.Kind == VQ && s.ColdStart:
		return 500
	}
	return 100
}

// SchemeOf returns the engine scheme of the approx option s, checked
// against the ranges of infer.Scheme.Check. approx = exact is the Exact
// scheme, which only factors on one projection (Projected) support.
func SchemeOf(s infer.Scheme) (Scheme, error) {
	if err := s.Check(); err != nil {
		return Scheme{}, fmt.Errorf("ffep: %w", err)
	}
	return Scheme{Kind: s.Kind, N: s.N}, nil
}

// check checks the scheme's kind and number of nodes.
func (s Scheme) check() error {
	if err := (infer.Scheme{Kind: s.Kind, N: s.nodes()}).Check(); err != nil {
		return fmt.Errorf("ffep: %w", err)
	}
	return nil
}

// Errors of a single site computation. The FF engine counts them as skipped
// updates; the 1-D API returns them.
var (
	// ErrImproper: the approximate tilted distribution has a non-positive
	// variance, or the cavity is improper.
	ErrImproper = errors.New("ffep: improper tilted approximation (non-positive variance)")
	// ErrNonFinite: log f or its derivatives were not finite where needed.
	ErrNonFinite = errors.New("ffep: non-finite factor value")
	// ErrNoConvergence: the Newton iteration of LA or VQ did not converge.
	ErrNoConvergence = errors.New("ffep: Newton iteration did not converge")
	// ErrMultivariateGH: Gauss–Hermite is only offered for 1-D factors.
	ErrMultivariateGH = errors.New("ffep: gh is a one-dimensional scheme; use laplace, quick_laplace, gq or vq for mini-batch factors")
)
