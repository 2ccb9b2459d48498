package openblas

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// UpperNT sets the upper triangle of C to C + alpha·A·Bᵀ (A and B n×k,
// C n×n): the update of a symmetric matrix by a product of two tall thin
// factors, such as EP's delayed rank-one updates Σ ← Σ − W Uᵀ. Elements
// below the diagonal may be written (with the same sum) within the blocks
// that straddle it; the rest of the lower triangle is not touched.
//
// On the packed micro-kernel (gemm.go) B's block is packed once per call
// and GOMAXPROCS goroutines share the row blocks of gemmMC rows, each
// multiplying its packed rows by the columns from its diagonal on; every
// element is computed as by Gemm, so the result is bit-identical whatever
// GOMAXPROCS. On OpenBLAS, whose Dgemm is threaded, a call per row panel of
// upperPanel rows. On gonum's Dgemm without the micro-kernel, tiles of
// upperTileRows×upperTileCols, small enough for gonum to multiply them
// serially (its parallel Dgemm starts a heap-allocated goroutine per 64×64
// block), shared by GOMAXPROCS goroutines.
func UpperNT(alpha float64, a, b blas64.General, c blas64.Symmetric) {
	n := c.N
	switch {
	case n == 0:
	case fastGemm:
		upperPacked(alpha, a, b, c)
	case Backend != "gonum":
		for r0 := 0; r0 < n; r0 += upperPanel {
			r1 := min(r0+upperPanel, n)
			blas64.Gemm(blas.NoTrans, blas.Trans, alpha, rowsOf(a, r0, r1), rowsOf(b, r0, n), 1,
				blas64.General{Rows: r1 - r0, Cols: n - r0, Stride: c.Stride, Data: c.Data[r0*c.Stride+r0:]})
		}
	default:
		panels := (n + upperTileRows - 1) / upperTileRows
		eachPanel(panels, func(p int) {
			r0 := p * upperTileRows
			r1 := min(r0+upperTileRows, n)
			for c0 := r0; c0 < n; c0 += upperTileCols {
				c1 := min(c0+upperTileCols, n)
				blas64.Gemm(blas.NoTrans, blas.Trans, alpha, rowsOf(a, r0, r1), rowsOf(b, c0, c1), 1,
					blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: c.Stride, Data: c.Data[r0*c.Stride+c0:]})
			}
		})
	}
}

// Row panels of UpperNT on OpenBLAS, and its tiles on gonum's Dgemm (which
// multiplies a result of fewer than four 64×64 blocks serially).
const (
	upperPanel    = 256
	upperTileRows = 64
	upperTileCols = 192
)

// upperPacked is UpperNT on the micro-kernel: for each block of B's
// columns and of the inner dimension, B's block is packed once and the
// row blocks that reach it are multiplied by it on GOMAXPROCS goroutines.
func upperPacked(alpha float64, a, b blas64.General, c blas64.Symmetric) {
	n, k := c.N, a.Cols
	if k == 0 || alpha == 0 {
		return
	}
	pb := packedB(k, n)
	defer bPool.Put(pb)
	cg := blas64.General{Rows: n, Cols: n, Stride: c.Stride, Data: c.Data}
	for j0 := 0; j0 < n; j0 += gemmNC {
		nc := min(gemmNC, n-j0)
		for p0 := 0; p0 < k; p0 += gemmKC {
			kc := min(gemmKC, k-p0)
			packB(true, b, p0, kc, j0, nc, *pb)
			// Row blocks [i0, i0+gemmMC) with i0 < j0+nc reach this column
			// block; each starts at the sliver holding its diagonal.
			blocks := (min(n, j0+nc) + gemmMC - 1) / gemmMC
			eachPanel(blocks, func(blk int) {
				i0 := blk * gemmMC
				mc := min(gemmMC, n-i0)
				js := max(0, (i0-j0)/gemmNR*gemmNR)
				pa := aPool.Get().(*packedA)
				defer aPool.Put(pa)
				packA(false, a, i0, mc, p0, kc, pa.a[:])
				macroKernel(alpha, mc, nc-js, kc, pa, (*pb)[js*kc:], cg, i0, j0+js)
			})
		}
	}
}

// eachPanel calls fn(p) for p in [0, panels) on min(GOMAXPROCS, panels)
// goroutines, goroutine g taking p = g, g + workers, … (interleaved, so
// that the long panels at the top of a triangle are shared).
func eachPanel(panels int, fn func(p int)) {
	workers := min(runtime.GOMAXPROCS(0), panels)
	if workers <= 1 {
		for p := range panels {
			fn(p)
		}
		return
	}
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := g; p < panels; p += workers {
				fn(p)
			}
		}()
	}
	wg.Wait()
}

// rowsOf returns rows r0:r1 of g.
func rowsOf(g blas64.General, r0, r1 int) blas64.General {
	return blas64.General{Rows: r1 - r0, Cols: g.Cols, Stride: g.Stride, Data: g.Data[r0*g.Stride:]}
}
