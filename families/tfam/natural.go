package tfam

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Natural returns the natural parameters (h, P) of the distribution,
//
//	P = (ν+k)Ψ/ν · Σ⁻¹,   h = P μ,
//
// so that ⟨Φ(x), θ⟩ = hᵀx − ½ xᵀPx. Σ⁻¹ is formed from the Cholesky factor
// of Σ; engines that iterate keep (h, P) and never call this in a loop.
func (s StudentT) Natural() (h []float64, P *mat.SymDense) {
	k := s.Dim()
	P = mat.NewSymDense(k, nil)
	if err := s.chol.InverseTo(P); err != nil {
		return nil, nil
	}
	P.ScaleSym((s.Nu+float64(k))*math.Exp(s.LogPsi())/s.Nu, P)
	hv := mat.NewVecDense(k, nil)
	hv.MulVec(P, mat.NewVecDense(k, s.Mu))
	return hv.RawVector().Data, P
}

// LogPsiFromPrecision returns log Ψ of the Student-t with ν degrees of
// freedom whose natural "precision" P has log-determinant logDetP. From
// Σ = (ν+k)Ψ/ν · P⁻¹ and log Ψ = −2/(ν+k)(log c − ½ log|Σ|):
//
//	log Ψ = (−2 log c + k log((ν+k)/ν) − log|P|) / ν.
func LogPsiFromPrecision(nu float64, k int, logDetP float64) float64 {
	kf := float64(k)
	return (-2*LogNormConst(nu, k) + kf*math.Log1p(kf/nu) - logDetP) / nu
}

// FromNatural returns the Student-t with ν degrees of freedom and natural
// parameters (h, P); ok is false when P is not positive definite.
func FromNatural(nu float64, h []float64, P mat.Symmetric) (StudentT, bool) {
	k := P.SymmetricDim()
	var ch mat.Cholesky
	if !(nu > 0) || len(h) != k || !ch.Factorize(P) {
		return StudentT{}, false
	}
	var mu mat.VecDense
	if err := ch.SolveVecTo(&mu, mat.NewVecDense(k, append([]float64(nil), h...))); err != nil {
		return StudentT{}, false
	}
	sig := mat.NewSymDense(k, nil)
	if err := ch.InverseTo(sig); err != nil {
		return StudentT{}, false
	}
	logPsi := LogPsiFromPrecision(nu, k, ch.LogDet())
	sig.ScaleSym((nu+float64(k))*math.Exp(logPsi)/nu, sig)
	return NewStudentT(nu, mu.RawVector().Data, sig)
}

// LogPartition is g_t(θ) = (ν+k)/2 (Ψ − 1) + ½ μᵀPμ (futami eq. 9),
// evaluated with expm1 so that the ν → ∞ limit keeps its digits.
func (s StudentT) LogPartition() float64 {
	k := float64(s.Dim())
	logPsi := s.LogPsi()
	quad := (s.Nu + k) * math.Exp(logPsi) / s.Nu * s.Mahalanobis(make([]float64, s.Dim()))
	return (s.Nu+k)/2*math.Expm1(logPsi) + 0.5*quad
}

// Inner is ⟨Φ(x), θ⟩ = hᵀx − ½ xᵀPx = Ψ/(1−t)(xᵀKx − 2μᵀKx) (futami eq. 8).
func (s StudentT) Inner(x []float64) float64 {
	k := float64(s.Dim())
	c := (s.Nu + k) * math.Exp(s.LogPsi()) / s.Nu
	// xᵀΣ⁻¹x − 2μᵀΣ⁻¹x = (x−μ)ᵀΣ⁻¹(x−μ) − μᵀΣ⁻¹μ.
	return -0.5 * c * (s.Mahalanobis(x) - s.Mahalanobis(make([]float64, s.Dim())))
}
