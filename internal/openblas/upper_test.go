package openblas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestUpperNT: on every path (micro-kernel, gonum tiles, OpenBLAS row
// panels) UpperNT's upper triangle equals C + αABᵀ summed in the test,
// within the rounding bound of TestGemmMatchesGonum; the elements below the
// diagonal farther than the path's row block (two micro-kernel or tile row
// blocks; one OpenBLAS panel of upperPanel rows) are untouched; and the
// micro-kernel's bits do not depend on GOMAXPROCS.
func TestUpperNT(t *testing.T) {
	reach := 2 * max(gemmMC, upperTileRows)
	if Backend != "gonum" {
		reach = upperPanel
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range [][2]int{{1, 1}, {7, 3}, {300, 64}, {2100, 13}, {250, 300}} {
		n, k := sh[0], sh[1]
		a, b := randGeneral(rng, n, k), randGeneral(rng, n, k)
		c0 := randGeneral(rng, n, n)
		var first []float64
		for _, fast := range []bool{false, true} {
			for _, procs := range []int{1, 2, 3} {
				name := fmt.Sprintf("n=%d k=%d fast=%v procs=%d", n, k, fast, procs)
				c := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: append([]float64(nil), c0.Data...)}
				withFast(fast, func() { withProcs(procs, func() { UpperNT(-0.3, a, b, c) }) })
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						got := c.Data[i*n+j]
						if j < i {
							if j < i-reach && got != c0.Data[i*n+j] {
								t.Fatalf("%s: C[%d,%d] below the diagonal written", name, i, j)
							}
							continue
						}
						s, abs := c0.Data[i*n+j], 0.0
						for l := 0; l < k; l++ {
							p := -0.3 * a.Data[i*k+l] * b.Data[j*k+l]
							s, abs = s+p, abs+math.Abs(p)
						}
						if tol := 4*float64(k)*0x1p-52*abs + 0x1p-52*math.Abs(s); !(math.Abs(got-s) <= tol) {
							t.Fatalf("%s: C[%d,%d] = %.17g, want %.17g", name, i, j, got, s)
						}
					}
				}
				if fast {
					if first == nil {
						first = c.Data
					} else {
						sameBits(t, name, c.Data, first)
					}
				}
			}
		}
	}
}
