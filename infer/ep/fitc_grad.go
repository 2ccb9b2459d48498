package ep

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// FITCDeriv holds the derivatives of a FITC problem's inputs with respect
// to one hyperparameter θ: ∂K_uu/∂θ, ∂K_fu/∂θ, ∂k(x_i, x_i)/∂θ and ∂snu2/∂θ
// (for GPML's jitter rule 1e-6·tr(∂K_uu/∂θ)/m).
type FITCDeriv struct {
	Kuu    *mat.SymDense
	Kfu    *mat.Dense
	Kdiag  []float64
	Jitter float64
}

// GradLogZ returns ∂ log Z_EP/∂θ_j for each derivative d[j], at the
// converged sites (their own variation drops out at an EP fixed point, as
// for the dense Result.GradLogZ):
//
//	∂ log Z_EP/∂θ = ½ tr(R ∂Kt),   R = α αᵀ − (Kt + T⁻¹)⁻¹,   α = ν̃ − T μ,
//	(Kt + T⁻¹)⁻¹ = diag(w) − W Vᵀ A⁻¹ V W,
//	∂Kt = ∂Q + diag(∂k − ∂q),   ∂Q = ∂K_fu B + Bᵀ ∂K_uf − Bᵀ ∂P B,
//
// with P = K_uu + snu2 I, B = P⁻¹ K_uf and ∂q = diag ∂Q, so
//
//	tr(R ∂Kt) = 2 tr(F ∂K_fu) − tr(F Bᵀ ∂P) + Σ_i R_ii (∂k_i − ∂q_i),   F = B R,
//
// all in O(n m²) per derivative and O(n m) memory (W = diag(w), see fitc.go).
// The clip g = max(diag K − diag Q, 0) is treated as inactive. It needs a
// converged KL or power-EP result with log Z_EP.
func (r *FITCResult) GradLogZ(d []FITCDeriv) ([]float64, error) {
	if r.st == nil || !r.HasLogZ {
		return nil, errors.New("ep: GradLogZ needs a converged FITC result with log Z_EP")
	}
	pr := r.pr
	n, m := pr.n, pr.m
	for j, dj := range d {
		if dj.Kuu == nil || dj.Kuu.SymmetricDim() != m || dj.Kfu == nil || len(dj.Kdiag) != n {
			return nil, fmt.Errorf("ep: FITC derivative %d has the wrong dimensions", j)
		}
		if r, c := dj.Kfu.Dims(); r != n || c != m {
			return nil, fmt.Errorf("ep: FITC derivative %d: ∂K_fu is %d×%d, want %d×%d", j, r, c, n, m)
		}
	}
	B, F, Rdiag, err := r.gradFactors()
	if err != nil {
		return nil, err
	}
	G := mat.NewDense(m, m, nil)
	G.Mul(F, B.T()) // B R Bᵀ
	out := make([]float64, len(d))
	for j, dj := range d {
		var s float64
		for a := 0; a < m; a++ {
			fa := F.RawRowView(a)
			for i := 0; i < n; i++ {
				s += 2 * fa[i] * dj.Kfu.At(i, a)
			}
			for b := 0; b < m; b++ {
				dp := dj.Kuu.At(a, b)
				if a == b {
					dp += dj.Jitter
				}
				s -= G.At(a, b) * dp
			}
		}
		bi := make([]float64, m)
		pb := mat.NewVecDense(m, nil)
		dP := mat.NewSymDense(m, nil)
		dP.CopySym(dj.Kuu)
		for a := 0; a < m; a++ {
			dP.SetSym(a, a, dP.At(a, a)+dj.Jitter)
		}
		for i := 0; i < n; i++ {
			mat.Col(bi, i, B)
			bv := mat.NewVecDense(m, bi)
			pb.MulVec(dP, bv)
			dq := 2*blas64.Dot(vec(bi), vec(dj.Kfu.RawRowView(i))) - mat.Dot(bv, pb)
			s += Rdiag[i] * (dj.Kdiag[i] - dq)
		}
		out[j] = 0.5 * s
	}
	return out, nil
}

// gradFactors returns B = P⁻¹ K_uf = U_u⁻¹ V (m×n), F = B R (m×n) and
// diag R for the representation of r (see GradLogZ).
func (r *FITCResult) gradFactors() (B, F *mat.Dense, Rdiag []float64, err error) {
	pr, st := r.pr, r.st
	n, m := pr.n, pr.m
	B = mat.DenseCopyOf(pr.Vt.T())
	blas64.Trsm(blas.Left, blas.NoTrans, 1, upper(&pr.Lu), B.RawMatrix())
	w := make([]float64, n)
	for i := range w {
		_, _, w[i], _ = coef(pr.g[i], r.tau[i])
	}
	// BW = B diag(w), VW = V diag(w) (m×n); C = (B W Vᵀ) A⁻¹ (m×m).
	BW, VW := mat.DenseCopyOf(B), mat.DenseCopyOf(pr.Vt.T())
	for a := 0; a < m; a++ {
		bw, vw := BW.RawRowView(a), VW.RawRowView(a)
		for i := range w {
			bw[i] *= w[i]
			vw[i] *= w[i]
		}
	}
	var BWV, C mat.Dense
	BWV.Mul(BW, pr.Vt)
	if err := st.A.SolveTo(&C, BWV.T()); err != nil && !errors.As(err, new(mat.Condition)) {
		return nil, nil, nil, err
	}
	// F = (Bα) αᵀ − B W + Cᵀ V W   (Cᵀ = B W Vᵀ A⁻¹ since A is symmetric).
	F = mat.NewDense(m, n, nil)
	F.Mul(C.T(), VW)
	F.Sub(F, BW)
	ba := mat.NewVecDense(m, nil)
	ba.MulVec(B, mat.NewVecDense(n, r.alpha))
	for a := 0; a < m; a++ {
		row := F.RawRowView(a)
		blas64.Axpy(ba.AtVec(a), vec(r.alpha), vec(row))
	}
	// diag R = α_i² − w_i + w_i² v_iᵀ A⁻¹ v_i.
	Rdiag = make([]float64, n)
	z := make([]float64, m)
	u := upper(&st.A)
	for i := range Rdiag {
		copy(z, pr.Vt.RawRowView(i))
		blas64.Trsv(blas.Trans, u, vec(z))
		Rdiag[i] = r.alpha[i]*r.alpha[i] - w[i] + w[i]*w[i]*blas64.Dot(vec(z), vec(z))
	}
	return B, F, Rdiag, nil
}
