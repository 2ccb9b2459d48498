package ep

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Predict returns GPML's FITC predictive mean and variance of the latent
// function at T new inputs from their cross covariance Ksu = k(X*, Z)
// (T×m) and prior variances kss = k(x*, x*):
//
//	E f* = v*ᵀ V α,   Var f* = k** − |v*|² + v*ᵀ A⁻¹ v*,   v* = L_u⁻¹ k_u(x*)
//
// (see fitc.go; GPML 4.2 gp.m with apxSparse: fmu = Ks'·alpha,
// fs2 = kss − Q** + ‖L_A⁻¹ v*‖²). A test point does not share a training
// point's FITC term g_i, so a prediction at a training input differs from
// that latent's EP marginal.
func (r *FITCResult) Predict(Ksu *mat.Dense, kss []float64) (mean, vr []float64, err error) {
	if r.st == nil {
		return nil, nil, errNoPosterior
	}
	t, m := Ksu.Dims()
	if m != r.pr.m || len(kss) != t {
		return nil, nil, fmt.Errorf("ep: FITC Predict dimensions: Ksu %d×%d, kss %d, m = %d", t, m, len(kss), r.pr.m)
	}
	Vs := mat.DenseCopyOf(Ksu)
	// Rows become v*ᵀ = k_u(x*)ᵀ U_u⁻¹, then W = Vs U_A⁻¹ (rows v*ᵀ U_A⁻¹).
	ctx := context.Background() // T×m² work, bounded by the caller
	if err := solveRowsU(ctx, &r.pr.Lu, Vs); err != nil {
		return nil, nil, err
	}
	W := mat.DenseCopyOf(Vs)
	if err := solveRowsU(ctx, &r.st.A, W); err != nil {
		return nil, nil, err
	}
	mean, vr = make([]float64, t), make([]float64, t)
	for j := range mean {
		v, w := vec(Vs.RawRowView(j)), vec(W.RawRowView(j))
		mean[j] = blas64.Dot(v, vec(r.beta))
		vr[j] = kss[j] - blas64.Dot(v, v) + blas64.Dot(w, w)
	}
	return mean, vr, nil
}
