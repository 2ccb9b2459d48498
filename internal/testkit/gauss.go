package testkit

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// GaussCondition is the posterior of z ~ N(m, P) given y = H z + ε,
// ε ~ N(0, R), in covariance form (no precisions, no messages), the
// closed form that tests hold message passing and EP on linear-Gaussian
// models to:
//
//	C = H P Hᵀ + R,  E[z|y] = m + P Hᵀ C⁻¹ (y − H m),  Cov = P − P Hᵀ C⁻¹ H P,
//	log p(y) = log N(y; H m, C).
//
// It returns the marginal means and variances of z and log p(y), and
// panics when C is not positive definite.
func GaussCondition(m []float64, P *mat.SymDense, H *mat.Dense, R *mat.SymDense, y []float64) (mean, vari []float64, logZ float64) {
	n, k := H.Dims()
	HP := mat.NewDense(n, k, nil)
	HP.Mul(H, P)
	full := mat.NewDense(n, n, nil)
	full.Mul(HP, H.T())
	full.Add(full, R)
	Cs := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			Cs.SetSym(i, j, 0.5*(full.At(i, j)+full.At(j, i)))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(Cs) {
		panic("closed form: C not positive definite")
	}
	r := mat.NewVecDense(n, nil)
	r.MulVec(H, mat.NewVecDense(k, m))
	r.SubVec(mat.NewVecDense(n, append([]float64(nil), y...)), r)
	alpha := mat.NewVecDense(n, nil)
	if err := ch.SolveVecTo(alpha, r); err != nil {
		panic(err)
	}
	logZ = -0.5*mat.Dot(r, alpha) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
	W := mat.NewDense(n, k, nil)
	if err := ch.SolveTo(W, HP); err != nil {
		panic(err)
	}
	mean, vari = make([]float64, k), make([]float64, k)
	for i := 0; i < k; i++ {
		mean[i] = m[i] + mat.Dot(HP.ColView(i), alpha)
		vari[i] = P.At(i, i) - mat.Dot(HP.ColView(i), W.ColView(i))
	}
	return mean, vari, logZ
}
