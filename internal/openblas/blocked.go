package openblas

import (
	"errors"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Gonum's pure-Go Dtrsm and Dsyrk are unblocked and single-threaded,
// several times slower than its Dgemm (cache-blocked, on GOMAXPROCS
// goroutines) and Cholesky at the same size. On that backend TrsmLeftTrans
// and SyrkTrans cast most of their work as Dgemm on blocks of
// blockSize rows or columns; on OpenBLAS, whose Dtrsm and Dsyrk are
// blocked and threaded already, they call them directly.
const blockSize = 128

// TrsmLeftTrans solves Uᵀ X = B in place (B ← U⁻ᵀ B) for the upper
// triangular U: forward substitution by row blocks, each block of X solved
// by Dtrsm on its diagonal block of U after subtracting the contribution of
// the blocks above with one Dgemm (TrsmLeftTransDone without a done
// channel).
func TrsmLeftTrans(u blas64.Triangular, b blas64.General) {
	if Backend != "gonum" || u.N <= blockSize {
		blas64.Trsm(blas.Left, blas.Trans, 1, u, b)
		return
	}
	_ = TrsmLeftTransDone(u, b, nil) // fails only when done closes
}

// ErrCanceled reports a computation abandoned because its done channel
// closed.
var ErrCanceled = errors.New("openblas: canceled")

// ChunkFlops bounds the work of one library call of the interruptible
// kernels between two checks of their done channel: about a tenth of a
// second at the pure-Go matrix-product speed of a few GFLOP/s.
const ChunkFlops = 5e8

// ChunkCols is the number of columns of an r×? panel updated with inner
// dimension k in one call of at most ChunkFlops flops (at least
// blockSize).
func ChunkCols(r, k int) int {
	return max(blockSize, int(ChunkFlops/float64(2*max(1, r)*max(1, k))))
}

// Done reports whether done is closed (false for a nil channel).
func Done(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// TrsmLeftTransDone is TrsmLeftTrans by blocks on every backend, on column
// chunks of B cut so that no call exceeds ChunkFlops, with a check of done
// between two calls: it returns ErrCanceled (B partly solved) when done
// closes first, so that a solve with thousands of right-hand sides can be
// interrupted. On the gonum backend B's columns are split into GOMAXPROCS
// contiguous ranges solved on their own goroutines (see par.go).
func TrsmLeftTransDone(u blas64.Triangular, b blas64.General, done <-chan struct{}) error {
	n := u.N
	flops := float64(n) * float64(n) * float64(b.Cols)
	return splitRange(b.Cols, workers(b.Cols, flops), func(lo, hi int) error {
		return trsmLeftTransCols(u, b, lo, hi, done)
	})
}

// trsmLeftTransCols is TrsmLeftTransDone on the columns [lo, hi) of B, on
// the calling goroutine (one of the contiguous column ranges the
// right-hand sides are split into: their solves are independent).
func trsmLeftTransCols(u blas64.Triangular, b blas64.General, lo, hi int, done <-chan struct{}) error {
	n := u.N
	step := ChunkCols(blockSize, n)
	for c0 := lo; c0 < hi; c0 += step {
		c1 := min(c0+step, hi)
		for k0 := 0; k0 < n; k0 += blockSize {
			if Done(done) {
				return ErrCanceled
			}
			k1 := min(k0+blockSize, n)
			bk := blas64.General{Rows: k1 - k0, Cols: c1 - c0, Stride: b.Stride, Data: b.Data[k0*b.Stride+c0:]}
			if k0 > 0 {
				// B_k ← B_k − U[0:k0, k0:k1]ᵀ X[0:k0, :]
				uk := blas64.General{Rows: k0, Cols: k1 - k0, Stride: u.Stride, Data: u.Data[k0:]}
				x := blas64.General{Rows: k0, Cols: c1 - c0, Stride: b.Stride, Data: b.Data[c0:]}
				gemmTN(-1, uk, x, 1, bk)
			}
			ukk := blas64.Triangular{Uplo: blas.Upper, Diag: u.Diag, N: k1 - k0, Stride: u.Stride, Data: u.Data[k0*u.Stride+k0:]}
			blas64.Trsm(blas.Left, blas.Trans, 1, ukk, bk)
		}
	}
	return nil
}

// SyrkTrans sets the upper triangle of C to alpha·AᵀA + beta·C (A k×n,
// C n×n upper): by column blocks of C, the diagonal block by Dsyrk and the
// block above it by Dgemm (SyrkTransDone without a done channel).
func SyrkTrans(alpha float64, a blas64.General, beta float64, c blas64.Symmetric) {
	if Backend != "gonum" || c.N <= blockSize || c.Uplo != blas.Upper {
		blas64.Syrk(blas.Trans, alpha, a, beta, c)
		return
	}
	_ = SyrkTransDone(alpha, a, beta, c, nil) // fails only when done closes
}

// SyrkTransDone is SyrkTrans by blocks on every backend (C's upper
// triangle only), the Dgemm above each diagonal block cut into row chunks
// of at most ChunkFlops flops, with a check of done between two calls: it
// returns ErrCanceled (C partly updated) when done closes first.
func SyrkTransDone(alpha float64, a blas64.General, beta float64, c blas64.Symmetric, done <-chan struct{}) error {
	n := c.N
	step := ChunkCols(blockSize, a.Rows)
	for j0 := 0; j0 < n; j0 += blockSize {
		j1 := min(j0+blockSize, n)
		aj := blas64.General{Rows: a.Rows, Cols: j1 - j0, Stride: a.Stride, Data: a.Data[j0:]}
		for r0 := 0; r0 < j0; r0 += step {
			if Done(done) {
				return ErrCanceled
			}
			// C[r0:r1, j0:j1] ← alpha A[:, r0:r1]ᵀ A[:, j0:j1] + beta C[r0:r1, j0:j1]
			r1 := min(r0+step, j0)
			ar := blas64.General{Rows: a.Rows, Cols: r1 - r0, Stride: a.Stride, Data: a.Data[r0:]}
			cr := blas64.General{Rows: r1 - r0, Cols: j1 - j0, Stride: c.Stride, Data: c.Data[r0*c.Stride+j0:]}
			GemmTN(alpha, ar, aj, beta, cr)
		}
		if Done(done) {
			return ErrCanceled
		}
		cjj := blas64.Symmetric{Uplo: blas.Upper, N: j1 - j0, Stride: c.Stride, Data: c.Data[j0*c.Stride+j0:]}
		blas64.Syrk(blas.Trans, alpha, aj, beta, cjj)
	}
	return nil
}
