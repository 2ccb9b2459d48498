package ep

import (
	"errors"

	"github.com/fg-infer/fg/internal/openblas"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Interruptible dense factorisations.
//
// Site-space EP's O(M³) steps (the Cholesky of B, the triangular solve
// with M right-hand sides, the product that forms Σ) take seconds to
// minutes at the thousands of sites the memory budget allows; one LAPACK
// call cannot look at a context. They are composed here of library calls
// on blocks (lapack64.Potrf on diagonal blocks, blas64 Syrk, Gemm and Trsm
// on panels, so that an OpenBLAS build still runs every flop on OpenBLAS),
// each of at most about openblas.ChunkFlops flops, with a check of the run's done
// channel between two calls: a Ctrl-C waits for one call, not for the whole
// factorisation.

// cholBlock is the block-column width of the blocked Cholesky (and the
// row-block height of the blocked triangular solve, openblas's blocks).
const cholBlock = 128

// cholMin is the smallest order factored by blocks: smaller matrices take
// one Potrf call (well under openblas.ChunkFlops), with the rounding of LAPACK's own
// blocking that the small reproductions were made with.
const cholMin = 4 * cholBlock

// cholUpper factors the symmetric positive definite matrix whose upper
// triangle a holds in place, a = Uᵀ U, and returns U (a's storage). It is
// LAPACK's left-looking blocked Cholesky (dpotrf): for each block column
// j of width cholBlock,
//
//	A_jj ← A_jj − U_0jᵀ U_0j (Syrk),  U_jj = chol(A_jj) (Potrf),
//	A_jr ← U_jj⁻ᵀ (A_jr − U_0jᵀ U_0r) (Gemm, Trsm),
//
// with the done channel checked before every block column and every panel
// chunk. It returns errImproper when a is not positive definite and
// errCanceled when done closes first (a is then partly overwritten).
func cholUpper(a blas64.Symmetric, done <-chan struct{}) (blas64.Triangular, error) {
	n, ld, d := a.N, a.Stride, a.Data
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: ld, Data: d}
	if n < cholMin {
		if openblas.Done(done) {
			return u, errCanceled
		}
		if _, ok := lapack64.Potrf(a); !ok {
			return u, errImproper
		}
		return u, nil
	}
	for j := 0; j < n; j += cholBlock {
		if openblas.Done(done) {
			return u, errCanceled
		}
		jb := min(cholBlock, n-j)
		ajj := blas64.Symmetric{Uplo: blas.Upper, N: jb, Stride: ld, Data: d[j*ld+j:]}
		if j > 0 {
			blas64.Syrk(blas.Trans, -1, blas64.General{Rows: j, Cols: jb, Stride: ld, Data: d[j:]}, 1, ajj)
		}
		if _, ok := lapack64.Potrf(ajj); !ok {
			return u, errImproper
		}
		ujj := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: jb, Stride: ld, Data: d[j*ld+j:]}
		step := openblas.ChunkCols(jb, j+jb)
		for c0 := j + jb; c0 < n; c0 += step {
			if openblas.Done(done) {
				return u, errCanceled
			}
			c1 := min(c0+step, n)
			ajr := blas64.General{Rows: jb, Cols: c1 - c0, Stride: ld, Data: d[j*ld+c0:]}
			if j > 0 {
				blas64.Gemm(blas.Trans, blas.NoTrans, -1,
					blas64.General{Rows: j, Cols: jb, Stride: ld, Data: d[j:]},
					blas64.General{Rows: j, Cols: c1 - c0, Stride: ld, Data: d[c0:]}, 1, ajr)
			}
			blas64.Trsm(blas.Left, blas.Trans, 1, ujj, ajr)
		}
	}
	return u, nil
}

// solveUpperTrans overwrites b with U⁻ᵀ b for upper triangular U by
// blocks (openblas.TrsmLeftTransDone), checking done between two calls.
// The blocks matter for speed too: gonum's pure-Go Dtrsm is unblocked and
// single-threaded, several times slower than its Gemm.
func solveUpperTrans(u blas64.Triangular, b blas64.General, done <-chan struct{}) error {
	if errors.Is(openblas.TrsmLeftTransDone(u, b, done), openblas.ErrCanceled) {
		return errCanceled
	}
	return nil
}
