package openblas

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Threading of the pure-Go build.
//
// Gonum's Dgemm hands out 64×64 tiles of C to GOMAXPROCS goroutines in
// turn, each tile accumulated over k in blocks; on the 2-core machine fg is
// measured on that gives no speedup at all (a 1000×1000 product takes
// 0.19 s on 1 and on 2 cores, with twice the CPU time), and neither do
// contiguous column ranges computed by 64×192 tiles, whose 96 KiB of C
// stream through L2. What halves the time is one contiguous range of C's
// columns (or rows) per goroutine, computed by serial Dgemm calls on 64×64
// tiles of C (32 KiB, resident in L1 while the whole k is swept). The
// kernels of this package therefore split their independent work — the
// columns of a triangular solve with many right-hand sides, the trailing
// panel of a Cholesky block column, the rows or columns of a product — into
// GOMAXPROCS contiguous ranges on the gonum backend, each computed by
// serial Gemm calls (the packed micro-kernel of gemm.go where the processor
// has AVX2 and FMA, else gonum's Dgemm on 64×64 tiles). Each element is
// computed by the same sequence of floating-point operations as one Gemm
// call on the whole product (the triangular solve column by column), so
// results are bit-identical whatever GOMAXPROCS. OpenBLAS threads itself (its pool is sized to GOMAXPROCS):
// on that backend every call stays one library call.

// minParCols is the fewest columns (or rows) a goroutine is given.
const minParCols = 64

// minParFlops is the least work of a call split across goroutines.
const minParFlops = 4e6

// serialTileRows×serialTileCols is the shape of the C tiles gemmTN hands
// to Dgemm: one of gonum's 64×64 blocks (fewer than its minParBlock of 4),
// so that Dgemm runs it on the calling goroutine, from L1.
const serialTileRows, serialTileCols = 64, 64

// workers is the number of contiguous ranges n items of work of flops
// floating-point operations in all are split into: GOMAXPROCS on the gonum
// backend when the work is large enough, else 1.
func workers(n int, flops float64) int {
	if Backend != "gonum" || flops < minParFlops {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n/minParCols))
}

// splitRange calls fn(lo, hi) on p contiguous ranges covering [0, n), on
// p goroutines (p ≤ 1: one call on the caller's goroutine), and returns the
// first error by range.
func splitRange(n, p int, fn func(lo, hi int) error) error {
	if p <= 1 {
		return fn(0, n)
	}
	errs := make([]error, p)
	var wg sync.WaitGroup
	for w := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = fn(w*n/p, (w+1)*n/p)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// gemmTN sets C ← alpha AᵀB + beta C (A k×m, B k×n, C m×n) on the calling
// goroutine: by the packed micro-kernel (Gemm) where the processor has it,
// else by tiles small enough that gonum's Dgemm does not spawn its own
// workers (on OpenBLAS: one Dgemm call, threaded by the library).
func gemmTN(alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	if Backend != "gonum" || fastGemm {
		Gemm(blas.Trans, blas.NoTrans, alpha, a, b, beta, c)
		return
	}
	for i0 := 0; i0 < c.Rows; i0 += serialTileRows {
		i1 := min(i0+serialTileRows, c.Rows)
		for j0 := 0; j0 < c.Cols; j0 += serialTileCols {
			j1 := min(j0+serialTileCols, c.Cols)
			blas64.Gemm(blas.Trans, blas.NoTrans, alpha,
				blas64.General{Rows: a.Rows, Cols: i1 - i0, Stride: a.Stride, Data: a.Data[i0:]},
				blas64.General{Rows: b.Rows, Cols: j1 - j0, Stride: b.Stride, Data: b.Data[j0:]}, beta,
				blas64.General{Rows: i1 - i0, Cols: j1 - j0, Stride: c.Stride, Data: c.Data[i0*c.Stride+j0:]})
		}
	}
}

// GemmTN sets C ← alpha AᵀB + beta C (A k×m, B k×n, C m×n). On the gonum
// backend C's rows (or columns, when it has more of them) are split into
// GOMAXPROCS contiguous ranges computed on their own goroutines,
// bit-identical to one Gemm call; on OpenBLAS it is one blas64.Gemm call.
func GemmTN(alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	flops := 2 * float64(c.Rows) * float64(c.Cols) * float64(a.Rows)
	if c.Rows >= c.Cols {
		_ = splitRange(c.Rows, workers(c.Rows, flops), func(lo, hi int) error {
			gemmTN(alpha, blas64.General{Rows: a.Rows, Cols: hi - lo, Stride: a.Stride, Data: a.Data[lo:]}, b, beta,
				blas64.General{Rows: hi - lo, Cols: c.Cols, Stride: c.Stride, Data: c.Data[lo*c.Stride:]})
			return nil
		})
		return
	}
	_ = splitRange(c.Cols, workers(c.Cols, flops), func(lo, hi int) error {
		gemmTN(alpha, a, blas64.General{Rows: b.Rows, Cols: hi - lo, Stride: b.Stride, Data: b.Data[lo:]}, beta,
			blas64.General{Rows: c.Rows, Cols: hi - lo, Stride: c.Stride, Data: c.Data[lo:]})
		return nil
	})
}
