package ep

import (
	"errors"
	"math"

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
	u          blas64.Triangular // B = Uᵀ U in B's own storage (Cholesky case)
	lu         mat.LU
	logDet     float64 // log |det B| = log det(I + T Kf)
}

// errImproper: the site precisions make Kf⁻¹ + T indefinite or singular
// (B singular or ill-conditioned, det(I + T Kf) ≤ 0, a marginal variance
// ≤ 0): the posterior is not a Gaussian.
var errImproper = errors.New("ep: the posterior precision Kf⁻¹ + diag τ̃ is not positive definite")

// newBform forms B and factors it. buf, when it holds at least M² floats,
// is B's storage (a spare from an earlier factorisation; see
// engine.release), so that a run's refactorisations allocate no new M×M
// matrix; the Cholesky factor overwrites B in place. done interrupts the
// factorisation (errCanceled); nil never does.
func newBform(Kf *mat.SymDense, tau []float64, buf []float64, done <-chan struct{}) (*bform, error) {
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
	if len(buf) < m*m {
		buf = make([]float64, m*m)
	}
	raw := blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: buf[:m*m]}
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
		u, err := cholUpper(raw, done)
		if err != nil {
			return nil, err
		}
		bf.u = u
		for i := 0; i < m; i++ {
			bf.logDet += 2 * math.Log(u.Data[i*u.Stride+i])
		}
		return bf, nil
	}
	bf.lu.Factorize(mat.NewSymDense(m, raw.Data))
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

// storage returns the M×M storage of the Cholesky factor for reuse (nil in
// the LU case, whose factors mat.LU owns).
func (bf *bform) storage() []float64 {
	if bf == nil || bf.indefinite {
		return nil
	}
	return bf.u.Data
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
		if err := solveUpperTrans(bf.u, P.RawMatrix(), nil); err != nil {
			panic(err) // unreachable: no done channel
		}
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
		v := blas64.Vector{N: x.Len(), Inc: 1, Data: x.RawVector().Data}
		blas64.Trsv(blas.Trans, bf.u, v)
		blas64.Trsv(blas.NoTrans, bf.u, v)
		return nil
	}
	return bf.lu.SolveVecTo(x, false, x)
}

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
