package openblas

// A packed matrix product for the pure-Go build.
//
// Gonum's Dgemm computes C ← αAB + βC by dot products or axpys of its
// SSE2 assembly (two float64 a vector instruction, one multiply and one
// add): on this project's machine it reaches 4–5 GFLOP/s a core, a fifth of
// what the core's fused multiply–add units can do. gemm is the textbook
// structure of a fast product (K. Goto and R. van de Geijn, "Anatomy of
// high-performance matrix multiplication", ACM TOMS 34(3), 2008): the inner
// dimension is cut into blocks of gemmKC, B's block is packed into slivers of
// gemmNR columns and A's into slivers of gemmMR rows, stored in the order
// the micro-kernel reads them, and the micro-kernel keeps a gemmMR×gemmNR
// tile of C in registers while it sweeps the block's inner dimension. The
// micro-kernel (gemm_amd64.s) is AVX2 with fused multiply–add, used when the
// processor has both; elsewhere, and in the OpenBLAS build, products go to
// blas64.Gemm as before.
//
// Every element of C is computed by the same operations whatever the tiling
// of C: for each inner block (from 0, gemmKC at a time) the sum
// Σ_l a_il b_lj accumulated by fused multiply–adds in l order, then
// c_ij ← c_ij + α·sum. A product split into row or column ranges on several
// goroutines therefore gives the same bits as the whole product on one.

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Register tile of the micro-kernel and the inner-dimension block.
const (
	gemmMR = 6
	gemmNR = 8
	gemmKC = 256
	// gemmMC rows of A are packed at a time: gemmMC×gemmKC float64 (192
	// KiB) stay in the L2 cache while the packed B block streams past.
	gemmMC = 96
	// gemmNC columns of B are packed at a time (gemmKC×gemmNC float64, 4
	// MiB at most).
	gemmNC = 2048
)

// fastGemm reports whether gemm runs on the packed micro-kernel (the
// gonum backend on a processor with AVX2 and FMA).
var fastGemm = Backend == "gonum" && haveKernel

// packedA is a goroutine's packed block of A and its edge tile of C.
type packedA struct {
	a    [gemmMC * gemmKC]float64
	tile [gemmMR * gemmNR]float64
}

// The packing buffers, reused across calls (a product allocates nothing
// once the pool holds a buffer large enough).
var (
	aPool = sync.Pool{New: func() any { return new(packedA) }}
	bPool sync.Pool // *[]float64, from packedB
)

// packedB returns a pooled buffer for packB's blocks of a product with n
// columns and inner dimension k: min(k, gemmKC)×min(n, gemmNC) float64
// with the last sliver padded to gemmNR columns, not the 4 MiB of the
// largest block, so a small product keeps a small buffer live (and the
// garbage collector's heap goal, twice the live heap, small). Return it
// with bPool.Put.
func packedB(k, n int) *[]float64 {
	need := min(k, gemmKC) * ((min(n, gemmNC) + gemmNR - 1) / gemmNR * gemmNR)
	pb, _ := bPool.Get().(*[]float64)
	if pb == nil || len(*pb) < need {
		b := make([]float64, need)
		pb = &b
	}
	return pb
}

// Gemm sets C ← alpha·op(A)·op(B) + beta·C on the calling goroutine, where
// op(X) is X or Xᵀ as tA, tB say. On the packed micro-kernel (fastGemm) the
// product is computed as described above; otherwise it is blas64.Gemm.
func Gemm(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	if !fastGemm {
		blas64.Gemm(tA, tB, alpha, a, b, beta, c)
		return
	}
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	m, n := c.Rows, c.Cols
	if m == 0 || n == 0 {
		return
	}
	scaleRows(beta, c)
	if alpha == 0 || k == 0 {
		return
	}
	pb := packedB(k, n)
	defer bPool.Put(pb)
	pa := aPool.Get().(*packedA)
	defer aPool.Put(pa)
	for j0 := 0; j0 < n; j0 += gemmNC {
		nc := min(gemmNC, n-j0)
		for p0 := 0; p0 < k; p0 += gemmKC {
			kc := min(gemmKC, k-p0)
			packB(tB != blas.NoTrans, b, p0, kc, j0, nc, *pb)
			for i0 := 0; i0 < m; i0 += gemmMC {
				mc := min(gemmMC, m-i0)
				packA(tA != blas.NoTrans, a, i0, mc, p0, kc, pa.a[:])
				macroKernel(alpha, mc, nc, kc, pa, *pb, c, i0, j0)
			}
		}
	}
}

// scaleRows sets C ← beta·C (beta = 0: C ← 0 without reading C).
func scaleRows(beta float64, c blas64.General) {
	if beta == 1 {
		return
	}
	for i := 0; i < c.Rows; i++ {
		row := c.Data[i*c.Stride : i*c.Stride+c.Cols]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// packA copies op(A)[i0:i0+mc, p0:p0+kc] into dst as slivers of gemmMR
// rows, each stored column by column (gemmMR values for each l), the last
// sliver padded with zeros.
func packA(trans bool, a blas64.General, i0, mc, p0, kc int, dst []float64) {
	for s := 0; s < mc; s += gemmMR {
		d := dst[s*kc : s*kc+gemmMR*kc]
		rows := min(gemmMR, mc-s)
		for r := 0; r < gemmMR; r++ {
			if r >= rows {
				for l := 0; l < kc; l++ {
					d[l*gemmMR+r] = 0
				}
				continue
			}
			i := i0 + s + r
			if trans {
				for l := 0; l < kc; l++ {
					d[l*gemmMR+r] = a.Data[(p0+l)*a.Stride+i]
				}
			} else {
				row := a.Data[i*a.Stride+p0 : i*a.Stride+p0+kc]
				for l, v := range row {
					d[l*gemmMR+r] = v
				}
			}
		}
	}
}

// packB copies op(B)[p0:p0+kc, j0:j0+nc] into dst as slivers of gemmNR
// columns, each stored row by row (gemmNR values for each l), the last
// sliver padded with zeros.
func packB(trans bool, b blas64.General, p0, kc, j0, nc int, dst []float64) {
	for s := 0; s < nc; s += gemmNR {
		d := dst[s*kc : s*kc+gemmNR*kc]
		cols := min(gemmNR, nc-s)
		if !trans {
			for l := 0; l < kc; l++ {
				row := b.Data[(p0+l)*b.Stride+j0+s:]
				dl := d[l*gemmNR : l*gemmNR+gemmNR]
				copy(dl, row[:cols])
				clear(dl[cols:])
			}
			continue
		}
		for j := 0; j < gemmNR; j++ {
			if j >= cols {
				for l := 0; l < kc; l++ {
					d[l*gemmNR+j] = 0
				}
				continue
			}
			row := b.Data[(j0+s+j)*b.Stride+p0 : (j0+s+j)*b.Stride+p0+kc]
			for l, v := range row {
				d[l*gemmNR+j] = v
			}
		}
	}
}

// macroKernel adds alpha times the product of the packed blocks (mc×kc
// in pa, kc×nc in pb) to C[i0:i0+mc, j0:j0+nc], one gemmMR×gemmNR tile at a time.
// Edge tiles are computed into a zeroed buffer (the kernel stores
// 0 + alpha·sum there, exactly alpha·sum) and added to C element by
// element: the same two roundings as a full tile.
func macroKernel(alpha float64, mc, nc, kc int, pa *packedA, pb []float64, c blas64.General, i0, j0 int) {
	for js := 0; js < nc; js += gemmNR {
		bp := &pb[js*kc]
		cols := min(gemmNR, nc-js)
		for is := 0; is < mc; is += gemmMR {
			ap := &pa.a[is*kc]
			rows := min(gemmMR, mc-is)
			off := (i0+is)*c.Stride + j0 + js
			if rows == gemmMR && cols == gemmNR {
				kernel6x8(kc, ap, bp, &c.Data[off], c.Stride, alpha)
				continue
			}
			t := &pa.tile
			clear(t[:])
			kernel6x8(kc, ap, bp, &t[0], gemmNR, alpha)
			for r := 0; r < rows; r++ {
				crow := c.Data[off+r*c.Stride : off+r*c.Stride+cols]
				for j := range crow {
					crow[j] += t[r*gemmNR+j]
				}
			}
		}
	}
}
