// Package tep is expectation propagation for the t-exponential family
// (Futami, Sato, Sugiyama, NIPS 2017; shared/papers/futami-t-exponential-ep.txt):
// a k-dimensional Student-t prior St(w; ν, μ0, Σ0) and likelihood sites on
// one-dimensional projections sᵢ = aᵢᵀw (Bayes point machine: w ~ St(ν, 0, I),
// aᵢ = xᵢ; Student-t process classification: f ~ TP(ν, 0, K), aᵢ = eᵢ),
// approximated by q(w) = St(w; ν, μ, Σ) under the t-factorisation
//
//	q(w) ∝ p0(w) ⊗_t t̃_1(w) ⊗_t … ⊗_t t̃_n(w)          (futami eq. 31)
//
// with t = 1 + 2/(ν+k). Because exp_t(a) ⊗_t exp_t(b) = exp_t(a + b), the
// natural parameters (h, P) of tfam.StudentT add: θ = θ0 + Σⱼ θⱼ, the cavity
// is θ\j = θ − θⱼ (q-division, eqs 32–33), the new posterior is the escort
// moment match of the tilted distribution q\j(w) lⱼ(w) (eq. 17 and
// Theorem 1), and the new site is θⱼ = θ_new − θ\j (eqs 37–38).
//
// Sites are general (not rank one): escort moment matching rescales the
// whole cavity scale matrix — the posterior of a Student-t model widens or
// narrows in every direction with the surprise of each datum — so
// P_new = s·P\j + r·ggᵀ with a scalar s ≠ 1 in general, and the stored site
// precision (s−1)P\j + r ggᵀ is a full k×k matrix (see update.go). Each site
// update therefore costs one k×k Cholesky; with k ≤ a few hundred (the
// Student-t process on the benchmark sets) that is fine.
//
// Convergence. The global rescaling couples all sites: undamped t-EP can
// oscillate where Gaussian EP converges (Student-t process classification
// with labeling noise, ν ≈ 6–30), and damping 0.5 restores convergence in
// the cases we tried (tests, experiments/tep_robust). With contradictory
// labels on a scale-free likelihood (a Bayes point machine with step sites
// and many flipped labels) the location and scale can shrink towards zero
// together sweep after sweep, or the sweeps keep oscillating; such runs end
// with IterationLimit or a tiny posterior, never NaN.
//
// Everything runs in whitened coordinates u = L0⁻¹(w) with Σ0 = L0 L0ᵀ, so
// the prior precision is a multiple of I and no inverse of Σ0 is formed.
// Natural parameters transform under w = L0 u by one common scalar
// (|L0|^{2/(ν+k)}), so the fixed point is the same as in w coordinates; the
// evidence is evaluated in w coordinates (evidence.go).
package tep

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Lik is the kind of a site likelihood.
type Lik int

const (
	// Step is the labeling-noise likelihood p(y|s) = ε + (1 − 2ε) Θ(y s)
	// (futami eq. 43; qi-guo eq. 8). ε = 0 is the noiseless step.
	Step Lik = iota
	// Probit is p(y|s) = Φ(y s).
	Probit
)

func (l Lik) String() string {
	switch l {
	case Step:
		return "step"
	case Probit:
		return "probit"
	}
	return fmt.Sprintf("Lik(%d)", int(l))
}

// Site is one likelihood factor l(y | aᵀw).
type Site struct {
	Lik Lik
	Eps float64 // labeling noise ε ∈ [0, ½) of Step
	Y   float64 // label, +1 or −1
	// Proj is the projection vector a (length k). When nil the projection
	// is the coordinate e_Index (Student-t process sites).
	Proj  []float64
	Index int
}

// Problem is a Student-t prior St(w; Nu, Mean, Scale) with projection sites.
type Problem struct {
	Nu    float64       // degrees of freedom ν > 0 (infer.T{Nu})
	Mean  []float64     // prior location μ0; nil means zero
	Scale *mat.SymDense // prior scale matrix Σ0 (k×k, positive definite)
	Sites []Site
}

// Dim is k, the dimension of w.
func (p *Problem) Dim() int {
	if p.Scale == nil {
		return 0
	}
	return p.Scale.SymmetricDim()
}

// validate checks the problem's shapes and parameter ranges.
func (p *Problem) validate() error {
	if p == nil || p.Scale == nil || p.Dim() == 0 {
		return errors.New("tep: problem needs a prior scale matrix")
	}
	k := p.Dim()
	switch {
	case !(p.Nu > 0) || math.IsInf(p.Nu, 0):
		return fmt.Errorf("tep: degrees of freedom nu = %g must be positive and finite", p.Nu)
	case p.Mean != nil && len(p.Mean) != k:
		return fmt.Errorf("tep: mean has length %d, scale is %d×%d", len(p.Mean), k, k)
	}
	for i, s := range p.Sites {
		if err := s.validate(k); err != nil {
			return fmt.Errorf("tep: site %d: %w", i, err)
		}
	}
	return nil
}

func (s Site) validate(k int) error {
	switch {
	case s.Y != 1 && s.Y != -1:
		return fmt.Errorf("label %g is not ±1", s.Y)
	case s.Lik != Step && s.Lik != Probit:
		return fmt.Errorf("unknown likelihood %v", s.Lik)
	case s.Lik == Step && !(s.Eps >= 0 && s.Eps < 0.5):
		return fmt.Errorf("step noise eps = %g outside [0, 0.5)", s.Eps)
	case s.Proj != nil && len(s.Proj) != k:
		return fmt.Errorf("projection has length %d, want %d", len(s.Proj), k)
	case s.Proj == nil && (s.Index < 0 || s.Index >= k):
		return fmt.Errorf("index %d outside [0, %d)", s.Index, k)
	}
	return nil
}

// proj returns the projection vector a of the site (length k).
func (s Site) proj(k int) []float64 {
	if s.Proj != nil {
		return s.Proj
	}
	a := make([]float64, k)
	a[s.Index] = 1
	return a
}
