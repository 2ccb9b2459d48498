package openblas

import (
	"errors"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// ErrNotPositiveDefinite reports a Cholesky factorisation of a matrix that
// is not positive definite.
var ErrNotPositiveDefinite = errors.New("openblas: matrix not positive definite")

// cholMin is the smallest order CholUpperDone factors by blocks: smaller
// matrices take one Potrf call (well under ChunkFlops), with the rounding
// of LAPACK's own blocking.
const cholMin = 4 * blockSize

// CholUpperDone factors the symmetric positive definite matrix whose upper
// triangle a holds in place, a = Uᵀ U, and returns U (a's storage). It is
// LAPACK's left-looking blocked Cholesky (dpotrf) composed of library
// calls on blocks, so that an OpenBLAS build still runs every flop on
// OpenBLAS: for each block column j of width blockSize,
//
//	A_jj ← A_jj − U_0jᵀ U_0j (Syrk),  U_jj = chol(A_jj) (Potrf),
//	A_jr ← U_jj⁻ᵀ (A_jr − U_0jᵀ U_0r) (Gemm, Trsm),
//
// with the done channel checked before every block column and every panel
// chunk of at most ChunkFlops flops: one LAPACK call cannot look at a
// context, so a Ctrl-C waits for one chunk, not for the whole O(n³)
// factorisation. It returns ErrNotPositiveDefinite when a is not positive
// definite and ErrCanceled when done closes first (a is then partly
// overwritten).
func CholUpperDone(a blas64.Symmetric, done <-chan struct{}) (blas64.Triangular, error) {
	n, ld, d := a.N, a.Stride, a.Data
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: ld, Data: d}
	if n < cholMin {
		if Done(done) {
			return u, ErrCanceled
		}
		if _, ok := lapack64.Potrf(a); !ok {
			return u, ErrNotPositiveDefinite
		}
		return u, nil
	}
	for j := 0; j < n; j += blockSize {
		if Done(done) {
			return u, ErrCanceled
		}
		jb := min(blockSize, n-j)
		ajj := blas64.Symmetric{Uplo: blas.Upper, N: jb, Stride: ld, Data: d[j*ld+j:]}
		if j > 0 {
			blas64.Syrk(blas.Trans, -1, blas64.General{Rows: j, Cols: jb, Stride: ld, Data: d[j:]}, 1, ajj)
		}
		if _, ok := lapack64.Potrf(ajj); !ok {
			return u, ErrNotPositiveDefinite
		}
		ujj := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: jb, Stride: ld, Data: d[j*ld+j:]}
		r := n - j - jb
		flops := float64(jb) * float64(r) * float64(2*j+jb)
		err := splitRange(r, workers(r, flops), func(lo, hi int) error {
			return cholPanel(d, ld, j, jb, j+jb+lo, j+jb+hi, ujj, done)
		})
		if err != nil {
			return u, err
		}
	}
	return u, nil
}

// cholPanel is the trailing panel update of CholUpperDone's block column
// j (width jb) on the columns [lo, hi):
// A_jr ← U_jj⁻ᵀ (A_jr − U_0jᵀ U_0r), by chunks of at most ChunkFlops flops
// with a check of done before each. The columns are independent, so
// CholUpperDone splits them into contiguous ranges on GOMAXPROCS
// goroutines on the gonum backend (see par.go).
func cholPanel(d []float64, ld, j, jb, lo, hi int, ujj blas64.Triangular, done <-chan struct{}) error {
	step := ChunkCols(jb, j+jb)
	for c0 := lo; c0 < hi; c0 += step {
		if Done(done) {
			return ErrCanceled
		}
		c1 := min(c0+step, hi)
		ajr := blas64.General{Rows: jb, Cols: c1 - c0, Stride: ld, Data: d[j*ld+c0:]}
		if j > 0 {
			gemmTN(-1,
				blas64.General{Rows: j, Cols: jb, Stride: ld, Data: d[j:]},
				blas64.General{Rows: j, Cols: c1 - c0, Stride: ld, Data: d[c0:]}, 1, ajr)
		}
		blas64.Trsm(blas.Left, blas.Trans, 1, ujj, ajr)
	}
	return nil
}

// CholInverseDone sets the upper triangle of c (n×n, its own storage) to
// A⁻¹ = U⁻¹U⁻ᵀ for the Cholesky factor U of A = UᵀU, checking done between
// two library calls. Below cholMin it is one Potri (LAPACK's dpotri, the
// rounding of mat.Cholesky.InverseTo); from cholMin on, W = U⁻ᵀ (lower
// triangular) is solved from the identity by TrsmLeftTransDone on column
// panels, each panel only on the rows at and below its first column (W's
// zeros above are not computed), and A⁻¹ = WᵀW by SyrkTransDone. It
// returns ErrCanceled (c partly written) when done closes first.
func CholInverseDone(u blas64.Triangular, c blas64.Symmetric, done <-chan struct{}) error {
	n := u.N
	if n < cholMin {
		if Done(done) {
			return ErrCanceled
		}
		for i := 0; i < n; i++ {
			copy(c.Data[i*c.Stride+i:i*c.Stride+n], u.Data[i*u.Stride+i:i*u.Stride+n])
		}
		if _, ok := lapack64.Potri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: c.Stride, Data: c.Data}); !ok {
			return ErrNotPositiveDefinite
		}
		return nil
	}
	w := make([]float64, n*n)
	for i := 0; i < n; i++ {
		w[i*n+i] = 1
	}
	for c0 := 0; c0 < n; c0 += cholMin {
		c1 := min(c0+cholMin, n)
		// U[c0:, c0:]ᵀ W[c0:, c0:c1] = I[c0:, c0:c1]
		uc := blas64.Triangular{Uplo: blas.Upper, Diag: u.Diag, N: n - c0, Stride: u.Stride, Data: u.Data[c0*u.Stride+c0:]}
		wc := blas64.General{Rows: n - c0, Cols: c1 - c0, Stride: n, Data: w[c0*n+c0:]}
		if err := TrsmLeftTransDone(uc, wc, done); err != nil {
			return err
		}
	}
	return SyrkTransDone(1, blas64.General{Rows: n, Cols: n, Stride: n, Data: w}, 0, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: c.Stride, Data: c.Data}, done)
}
