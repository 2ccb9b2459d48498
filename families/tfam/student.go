package tfam

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// StudentT is the k-dimensional Student-t distribution St(x; ν, μ, Σ)
// (futami eq. 5)
//
//	St(x; ν, μ, Σ) = Γ((ν+k)/2) / ((πν)^{k/2} Γ(ν/2) |Σ|^{1/2})
//	                 · (1 + (x−μ)ᵀ(νΣ)⁻¹(x−μ))^{−(ν+k)/2},
//
// seen as a member of the t-exponential family with
//
//	t = 1 + 2/(ν+k)            (from −(ν+k)/2 = 1/(1−t)),
//	K = (νΣ)⁻¹,  Ψ = (Γ((ν+k)/2) / ((πν)^{k/2} Γ(ν/2) |Σ|^{1/2}))^{−2/(ν+k)},
//	⟨Φ(x), θ⟩ = Ψ/(1−t) (xᵀKx − 2μᵀKx) = hᵀx − ½ xᵀPx,
//	g_t(θ)   = −Ψ/(1−t) (μᵀKμ + 1) + 1/(1−t)
//	         = (ν+k)/2 (Ψ − 1) + ½ μᵀPμ                      (eqs 7–9),
//
// where the natural parameters are written as a "precision" and a "shift"
//
//	P = (ν+k) Ψ K = (ν+k)Ψ/ν · Σ⁻¹,   h = P μ,
//
// so that St = exp_t(⟨Φ(x), θ⟩ − g_t(θ)) (eq. 10). As ν → ∞, Ψ → 1, P → Σ⁻¹
// and g_t tends to the Gaussian log-partition ½ log|2πΣ| + ½ μᵀΣ⁻¹μ.
type StudentT struct {
	Nu    float64
	Mu    []float64
	Sigma *mat.SymDense // scale matrix (not the covariance)

	chol mat.Cholesky
}

// NewStudentT validates its arguments (ν > 0, len(mu) = dim Σ, Σ positive
// definite) and returns the distribution; ok is false otherwise.
func NewStudentT(nu float64, mu []float64, sigma mat.Symmetric) (StudentT, bool) {
	var s StudentT
	if !(nu > 0) || sigma.SymmetricDim() != len(mu) || len(mu) == 0 {
		return s, false
	}
	s.Nu = nu
	s.Mu = append([]float64(nil), mu...)
	s.Sigma = mat.NewSymDense(len(mu), nil)
	s.Sigma.CopySym(sigma)
	if !s.chol.Factorize(s.Sigma) {
		return StudentT{}, false
	}
	return s, true
}

// Dim is k, the dimension.
func (s StudentT) Dim() int { return len(s.Mu) }

// T is the t of the family, 1 + 2/(ν+k).
func (s StudentT) T() float64 { return TOf(s.Nu, s.Dim()) }

// TOf returns t = 1 + 2/(ν+k) for a k-dimensional Student-t with ν degrees
// of freedom.
func TOf(nu float64, k int) float64 { return 1 + 2/(nu+float64(k)) }

// LogNormConst returns log c with c = Γ((ν+k)/2) / ((πν)^{k/2} Γ(ν/2)), the
// Student-t normaliser without the |Σ|^{−1/2} factor. For large ν the
// difference of log-gamma functions is taken from Stirling's series, so that
// the ν → ∞ limit (−k/2 · log 2π) is reached without cancellation.
func LogNormConst(nu float64, k int) float64 {
	return lgammaRatio(nu/2, float64(k)/2) - float64(k)/2*math.Log(math.Pi*nu)
}

// lgammaRatio returns log Γ(a+b) − log Γ(a).
func lgammaRatio(a, b float64) float64 {
	if a < 1e5 {
		g1, _ := math.Lgamma(a + b)
		g0, _ := math.Lgamma(a)
		return g1 - g0
	}
	// Stirling: log Γ(x) = (x−½) log x − x + ½ log 2π + 1/(12x) − 1/(360x³) + …
	d := (a-0.5)*math.Log1p(b/a) + b*math.Log(a+b) - b
	return d + 1/(12*(a+b)) - 1/(12*a)
}

// LogDetSigma is log|Σ|.
func (s StudentT) LogDetSigma() float64 { return s.chol.LogDet() }

// LogNorm is log of the density normaliser, log c − ½ log|Σ|.
func (s StudentT) LogNorm() float64 {
	return LogNormConst(s.Nu, s.Dim()) - 0.5*s.LogDetSigma()
}

// LogPsi is log Ψ = −2/(ν+k) · (log c − ½ log|Σ|) (futami eq. 7).
func (s StudentT) LogPsi() float64 {
	return -2 / (s.Nu + float64(s.Dim())) * s.LogNorm()
}

// Mahalanobis returns (x−μ)ᵀΣ⁻¹(x−μ) by a Cholesky solve.
func (s StudentT) Mahalanobis(x []float64) float64 {
	d := mat.NewVecDense(len(x), nil)
	d.SubVec(mat.NewVecDense(len(x), x), mat.NewVecDense(len(s.Mu), s.Mu))
	var u mat.VecDense
	if err := s.chol.SolveVecTo(&u, d); err != nil {
		return math.NaN()
	}
	return mat.Dot(d, &u)
}

// LogProb is the log density at x.
func (s StudentT) LogProb(x []float64) float64 {
	k := float64(s.Dim())
	return s.LogNorm() - (s.Nu+k)/2*math.Log1p(s.Mahalanobis(x)/s.Nu)
}

// Prob is the density at x.
func (s StudentT) Prob(x []float64) float64 { return math.Exp(s.LogProb(x)) }

// Escort returns the escort distribution p^t / ∫p^t, which for a Student-t
// is again a Student-t (futami §2; algorithms.md):
//
//	St(ν, μ, Σ)^t ∝ St(ν+2, μ, νΣ/(ν+2)),
//
// because t(ν+k)/2 = (ν+2+k)/2 and 1 + z/ν = 1 + z'/(ν+2) with z' computed
// with the scale νΣ/(ν+2). Its mean is μ and its covariance is Σ.
func (s StudentT) Escort() StudentT {
	sig := mat.NewSymDense(s.Dim(), nil)
	sig.ScaleSym(s.Nu/(s.Nu+2), s.Sigma)
	e, _ := NewStudentT(s.Nu+2, s.Mu, sig)
	return e
}

// Covariance returns ν/(ν−2) Σ; ok is false when ν ≤ 2 (infinite covariance).
func (s StudentT) Covariance() (*mat.SymDense, bool) {
	if s.Nu <= 2 {
		return nil, false
	}
	c := mat.NewSymDense(s.Dim(), nil)
	c.ScaleSym(s.Nu/(s.Nu-2), s.Sigma)
	return c, true
}

// Project returns the scale-location parameters of the one-dimensional
// projection aᵀx ~ St(ν, aᵀμ, aᵀΣa).
func (s StudentT) Project(a []float64) (m, v float64) {
	av := mat.NewVecDense(len(a), a)
	return floats.Dot(a, s.Mu), mat.Inner(av, s.Sigma, av)
}
