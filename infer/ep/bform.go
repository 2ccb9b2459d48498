package ep

import (
	"errors"
	"math"

	"github.com/fg-infer/fg/internal/openblas"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// bform factors the matrix behind every "from scratch" computation of the
// EP posterior. With site precisions T = diag(τ̃) written as T = S D S,
// S = diag(√|τ̃|), D = diag(sign τ̃) (D = D⁻¹), the Woodbury identity gives
//
//	Σ = (Kf⁻¹ + T)⁻¹ = Kf − Kf S B⁻¹ S Kf,    B = D + S Kf S,
//
// which never inverts Kf (it may be singular, e.g. a linear kernel with more
// points than dimensions). When every τ̃ ≥ 0, B = I + S Kf S is GPML's
// B = I + W½ K W½ and is factored by Cholesky, B = L Lᵀ (Rasmussen &
// Williams, Algorithm 3.5). When some site precision is negative (legal in
// EP for non-log-concave likelihoods), B is symmetric indefinite and is
// factored by LU with partial pivoting instead.
type bform struct {
	s          []float64
	indefinite bool
	chol       mat.Cholesky
	lu         mat.LU
	logDet     float64 // log |det B| = log det(I + T Kf)
}

// errImproper: the site precisions make Kf⁻¹ + T indefinite or singular
// (B singular or ill-conditioned, det(I + T Kf) ≤ 0, a marginal variance
// ≤ 0): the posterior is not a Gaussian.
var errImproper = errors.New("ep: the posterior precision Kf⁻¹ + diag τ̃ is not positive definite")

func newBform(Kf *mat.SymDense, tau []float64) (*bform, error) {
	m := len(tau)
	bf := &bform{s: make([]float64, m)}
	d := make([]float64, m)
	detD := 1.0
	for i, t := range tau {
		bf.s[i] = math.Sqrt(math.Abs(t))
		d[i] = 1
		if t < 0 {
			d[i] = -1
			detD = -detD
			bf.indefinite = true
		}
	}
	B := mat.NewSymDense(m, nil)
	raw := B.RawSymmetric()
	kraw := Kf.RawSymmetric()
	for i := 0; i < m; i++ {
		si := bf.s[i]
		row := raw.Data[i*raw.Stride:]
		krow := kraw.Data[i*kraw.Stride:]
		for j := i; j < m; j++ {
			row[j] = si * krow[j] * bf.s[j]
		}
		row[i] += d[i]
	}
	if !bf.indefinite {
		if !bf.chol.Factorize(B) {
			return nil, errImproper
		}
		bf.logDet = bf.chol.LogDet()
		return bf, nil
	}
	bf.lu.Factorize(B)
	if c := bf.lu.Cond(); math.IsInf(c, 1) || c > 1e16 {
		return nil, errImproper
	}
	// det(I + T Kf) = det B · det D must be positive for a proper posterior.
	ld, sign := bf.lu.LogDet()
	if sign*detD < 0 {
		return nil, errImproper
	}
	bf.logDet = ld
	return bf, nil
}

// quadForm returns P, Q (M×T) with Cᵀ S B⁻¹ S C = Pᵀ Q for C (M×T):
// P = Q = L⁻¹ S C in the Cholesky case (one triangular solve with T
// right-hand sides), P = S C and Q = B⁻¹ S C in the LU case.
func (bf *bform) quadForm(C mat.Matrix) (P, Q *mat.Dense) {
	m, t := C.Dims()
	P = mat.NewDense(m, t, nil)
	P.Copy(C)
	for i := 0; i < m; i++ {
		row := P.RawRowView(i)
		si := bf.s[i]
		for j := range row {
			row[j] *= si
		}
	}
	if !bf.indefinite {
		trsmLeftTrans(bf.chol.RawU().(*mat.TriDense).RawTriangular(), P.RawMatrix())
		return P, P
	}
	Q = mat.NewDense(m, t, nil)
	if err := bf.lu.SolveTo(Q, false, P); err != nil {
		// The condition number was checked at factorisation; a failure here
		// leaves Q non-finite, which callers detect as an improper posterior.
		Q.Apply(func(int, int, float64) float64 { return math.NaN() }, Q)
	}
	return P, Q
}

// solveVec overwrites x with B⁻¹ x.
func (bf *bform) solveVec(x *mat.VecDense) error {
	if !bf.indefinite {
		return bf.chol.SolveVecTo(x, x)
	}
	return bf.lu.SolveVecTo(x, false, x)
}

// trsmLeftTrans solves Uᵀ X = B in place (B ← U⁻ᵀ B) for upper triangular
// U. Gonum's pure-Go Dtrsm is unblocked and single-threaded, several times
// slower than its Cholesky on the same n; on that backend the solve is
// blocked (forward substitution by row blocks of trsmBlock): each block of
// X is solved by Dtrsm on its diagonal block of U after subtracting the
// contribution of the blocks above with one Dgemm, which gonum runs
// cache-blocked on GOMAXPROCS goroutines. OpenBLAS's Dtrsm is blocked and
// threaded already.
func trsmLeftTrans(u blas64.Triangular, b blas64.General) {
	n := u.N
	if openblas.Backend != "gonum" || n <= trsmBlock {
		blas64.Trsm(blas.Left, blas.Trans, 1, u, b)
		return
	}
	for k0 := 0; k0 < n; k0 += trsmBlock {
		k1 := min(k0+trsmBlock, n)
		bk := blas64.General{Rows: k1 - k0, Cols: b.Cols, Stride: b.Stride, Data: b.Data[k0*b.Stride:]}
		if k0 > 0 {
			// B_k ← B_k − U[0:k0, k0:k1]ᵀ X[0:k0, :]
			uk := blas64.General{Rows: k0, Cols: k1 - k0, Stride: u.Stride, Data: u.Data[k0:]}
			x := blas64.General{Rows: k0, Cols: b.Cols, Stride: b.Stride, Data: b.Data}
			blas64.Gemm(blas.Trans, blas.NoTrans, -1, uk, x, 1, bk)
		}
		ukk := blas64.Triangular{Uplo: blas.Upper, Diag: u.Diag, N: k1 - k0, Stride: u.Stride, Data: u.Data[k0*u.Stride+k0:]}
		blas64.Trsm(blas.Left, blas.Trans, 1, ukk, bk)
	}
}

// trsmBlock is the row-block size of the blocked triangular solve.
const trsmBlock = 128

// colDot returns Σ_i P_ij Q_ij for every column j.
func colDot(P, Q *mat.Dense) []float64 {
	m, t := P.Dims()
	out := make([]float64, t)
	for i := 0; i < m; i++ {
		pr, qr := P.RawRowView(i), Q.RawRowView(i)
		for j := range out {
			out[j] += pr[j] * qr[j]
		}
	}
	return out
}

// reduce returns y − Pᵀ(Q x) for vectors x, y.
func reduce(P, Q *mat.Dense, x, y []float64) []float64 {
	m, t := Q.Dims()
	qx := mat.NewVecDense(m, nil)
	qx.MulVec(Q, mat.NewVecDense(t, x))
	ptq := mat.NewVecDense(t, nil)
	ptq.MulVec(P.T(), qx)
	out := make([]float64, t)
	for j := range out {
		out[j] = y[j] - ptq.AtVec(j)
	}
	return out
}
