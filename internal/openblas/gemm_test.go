package openblas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGemmMatchesGonum: Gemm equals a product summed in the test in
// extended care (each element's sum of |α a b| bounds its rounding): for
// every transpose, edge tiles in both directions, inner dimensions across
// the gemmKC block, strides wider than the rows, and beta 0, 1 and −0.4.
// The tolerance is 4 k ε Σ_l |α a_il b_lj| + ε|βc|, the classical bound of
// a dot product's rounding error (Higham, Accuracy and Stability, §3.1)
// with room.
func TestGemmMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][3]int{{1, 1, 1}, {6, 8, 5}, {7, 9, 300}, {97, 130, 64}, {200, 17, 513}, {13, 2100, 40}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				for _, beta := range []float64{0, 1, -0.4} {
					name := fmt.Sprintf("%dx%dx%d/%c%c/beta=%g", m, n, k, tA, tB, beta)
					a := padded(rng, m, k, tA)
					b := padded(rng, k, n, tB)
					c := padded(rng, m, n, blas.NoTrans)
					if beta == 0 {
						for i := 0; i < m; i++ {
							c.Data[i*c.Stride] = math.NaN() // never read
						}
					}
					c0 := append([]float64(nil), c.Data...)
					withFast(true, func() { Gemm(tA, tB, -0.7, a, b, beta, c) })
					at := func(g blas64.General, tr blas.Transpose, i, j int) float64 {
						if tr == blas.NoTrans {
							return g.Data[i*g.Stride+j]
						}
						return g.Data[j*g.Stride+i]
					}
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							var s, abs float64
							for l := 0; l < k; l++ {
								p := -0.7 * at(a, tA, i, l) * at(b, tB, l, j)
								s, abs = s+p, abs+math.Abs(p)
							}
							want := s
							if beta != 0 {
								want += beta * c0[i*c.Stride+j]
							}
							tol := 4*float64(k)*0x1p-52*abs + 0x1p-52*math.Abs(want)
							if got := c.Data[i*c.Stride+j]; !(math.Abs(got-want) <= tol) {
								t.Fatalf("%s: C[%d,%d] = %.17g, want %.17g (tol %.1e)", name, i, j, got, want, tol)
							}
						}
						// the padding beyond each row is untouched
						for j := n; j < c.Stride; j++ {
							if math.Float64bits(c.Data[i*c.Stride+j]) != math.Float64bits(c0[i*c.Stride+j]) {
								t.Fatalf("%s: padding C[%d,%d] written", name, i, j)
							}
						}
					}
				}
			}
		}
	}
}

// TestGemmTilingBitIdentical: a product computed as two row ranges or two
// column ranges (as the callers split work across goroutines) gives the
// bits of the whole product.
func TestGemmTilingBitIdentical(t *testing.T) {
	if !(Backend == "gonum" && haveKernel) {
		t.Skipf("the tiling property is the micro-kernel's; this build's Gemm is %s's, which does not promise it", Backend)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	m, n, k := 131, 143, 600
	a, b := randGeneral(rng, k, m), randGeneral(rng, k, n)
	c0 := randGeneral(rng, m, n)
	whole := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), c0.Data...)}
	withFast(true, func() { Gemm(blas.Trans, blas.NoTrans, 1.1, a, b, 0.5, whole) })
	for _, cut := range []int{1, 37, 64, 130} {
		rows := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), c0.Data...)}
		cols := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), c0.Data...)}
		withFast(true, func() {
			Gemm(blas.Trans, blas.NoTrans, 1.1, blas64.General{Rows: k, Cols: cut, Stride: m, Data: a.Data}, b, 0.5,
				blas64.General{Rows: cut, Cols: n, Stride: n, Data: rows.Data})
			Gemm(blas.Trans, blas.NoTrans, 1.1, blas64.General{Rows: k, Cols: m - cut, Stride: m, Data: a.Data[cut:]}, b, 0.5,
				blas64.General{Rows: m - cut, Cols: n, Stride: n, Data: rows.Data[cut*n:]})
			Gemm(blas.Trans, blas.NoTrans, 1.1, a, blas64.General{Rows: k, Cols: cut, Stride: n, Data: b.Data}, 0.5,
				blas64.General{Rows: m, Cols: cut, Stride: n, Data: cols.Data})
			Gemm(blas.Trans, blas.NoTrans, 1.1, a, blas64.General{Rows: k, Cols: n - cut, Stride: n, Data: b.Data[cut:]}, 0.5,
				blas64.General{Rows: m, Cols: n - cut, Stride: n, Data: cols.Data[cut:]})
		})
		sameBits(t, fmt.Sprintf("rows cut at %d", cut), rows.Data, whole.Data)
		sameBits(t, fmt.Sprintf("columns cut at %d", cut), cols.Data, whole.Data)
	}
}

// padded returns op(X) of r×c as a random matrix whose stride is wider
// than its rows (X is c×r when tr is Trans).
func padded(rng *rand.Rand, r, c int, tr blas.Transpose) blas64.General {
	if tr != blas.NoTrans {
		r, c = c, r
	}
	g := blas64.General{Rows: r, Cols: c, Stride: c + 3, Data: make([]float64, r*(c+3))}
	for i := range g.Data {
		g.Data[i] = rng.NormFloat64()
	}
	return g
}

// withFast runs f with the packed micro-kernel on (when the processor has
// it) or off.
func withFast(on bool, f func()) {
	defer func(old bool) { fastGemm = old }(fastGemm)
	fastGemm = on && Backend == "gonum" && haveKernel
	f()
}

func BenchmarkGemm(b *testing.B) {
	for _, n := range []int{256, 1000} {
		rng := rand.New(rand.NewPCG(1, 2))
		x, y, c := randGeneral(rng, n, n), randGeneral(rng, n, n), randGeneral(rng, n, n)
		for _, fast := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/gonum", n)
			if fast {
				name = fmt.Sprintf("n=%d/packed", n)
			}
			b.Run(name, func(b *testing.B) {
				withFast(fast, func() {
					for b.Loop() {
						if fast {
							Gemm(blas.NoTrans, blas.Trans, 1, x, y, 1, c)
						} else {
							gemmTiles(x, y, c)
						}
					}
				})
				b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// gemmTiles is gonum's Dgemm on 64×64 tiles of C on one goroutine (how the
// callers used it before the packed kernel).
func gemmTiles(x, y, c blas64.General) {
	for i0 := 0; i0 < c.Rows; i0 += 64 {
		i1 := min(i0+64, c.Rows)
		for j0 := 0; j0 < c.Cols; j0 += 64 {
			j1 := min(j0+64, c.Cols)
			blas64.Gemm(blas.NoTrans, blas.Trans, 1,
				blas64.General{Rows: i1 - i0, Cols: x.Cols, Stride: x.Stride, Data: x.Data[i0*x.Stride:]},
				blas64.General{Rows: j1 - j0, Cols: y.Cols, Stride: y.Stride, Data: y.Data[j0*y.Stride:]}, 1,
				blas64.General{Rows: i1 - i0, Cols: j1 - j0, Stride: c.Stride, Data: c.Data[i0*c.Stride+j0:]})
		}
	}
}

// TestPackedBSized checks that the packing buffer of B is sized to the
// product (min(k, gemmKC) × min(n, gemmNC) rounded up to whole slivers), so
// a small product does not keep the 4 MiB of the largest block live.
func TestPackedBSized(t *testing.T) {
	for _, sh := range [][3]int{{7, 9, 7 * 16}, {200, 200, 200 * 200}, {300, 2100, gemmKC * gemmNC}, {1, 1, gemmNR}} {
		runtime.GC() // a pool's buffers survive one collection (victim cache)
		runtime.GC()
		pb := packedB(sh[0], sh[1])
		if len(*pb) != sh[2] {
			t.Errorf("k = %d, n = %d: buffer of %d float64, want %d", sh[0], sh[1], len(*pb), sh[2])
		}
	}
}
