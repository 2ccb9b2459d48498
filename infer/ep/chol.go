package ep

import (
	"errors"

	"github.com/fg-infer/fg/internal/openblas"
	"gonum.org/v1/gonum/blas/blas64"
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

// cholBlock is the block-column width of the blocked Cholesky and the
// row-block height of the blocked triangular solve (openblas's blocks).
const cholBlock = 128

// cholMin is the smallest order openblas.CholUpperDone factors by blocks.
const cholMin = 4 * cholBlock

// cholUpper factors the symmetric positive definite matrix whose upper
// triangle a holds in place, a = Uᵀ U, and returns U (a's storage), by
// openblas.CholUpperDone (LAPACK's left-looking blocked Cholesky from
// library calls on blocks, checking done between two calls). It returns
// errImproper when a is not positive definite and errCanceled when done
// closes first (a is then partly overwritten).
func cholUpper(a blas64.Symmetric, done <-chan struct{}) (blas64.Triangular, error) {
	u, err := openblas.CholUpperDone(a, done)
	switch {
	case errors.Is(err, openblas.ErrCanceled):
		return u, errCanceled
	case err != nil:
		return u, errImproper
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
