package openblas

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestBlocked checks the blocked TrsmLeftTrans and SyrkTrans against
// blas64's Trsm and Syrk at sizes across several blocks (and a partial
// last block) to 1e-12 relative.
func TestBlocked(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, k = 3*blockSize + 17, 150
	randn := func(m int) []float64 {
		x := make([]float64, m)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x
	}
	// A well-conditioned upper triangle: unit-scale diagonal, small off-diagonal.
	ud := make([]float64, n*n)
	for i := 0; i < n; i++ {
		ud[i*n+i] = 1 + rng.Float64()
		for j := i + 1; j < n; j++ {
			ud[i*n+j] = 0.1 * rng.NormFloat64() / math.Sqrt(n)
		}
	}
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: ud}
	b := randn(n * k)
	want := blas64.General{Rows: n, Cols: k, Stride: k, Data: append([]float64(nil), b...)}
	got := blas64.General{Rows: n, Cols: k, Stride: k, Data: append([]float64(nil), b...)}
	blas64.Trsm(blas.Left, blas.Trans, 1, u, want)
	TrsmLeftTrans(u, got)
	check(t, "TrsmLeftTrans", got.Data, want.Data, nil)

	a := blas64.General{Rows: k, Cols: n, Stride: n, Data: randn(k * n)}
	c0 := randn(n * n)
	cw := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: append([]float64(nil), c0...)}
	cg := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: append([]float64(nil), c0...)}
	blas64.Syrk(blas.Trans, -0.7, a, 1.3, cw)
	SyrkTrans(-0.7, a, 1.3, cg)
	upper := func(i int) bool { return i%n >= i/n }
	check(t, "SyrkTrans", cg.Data, cw.Data, upper)
	for i := range c0 {
		if !upper(i) && cg.Data[i] != c0[i] {
			t.Fatalf("SyrkTrans wrote the lower triangle at (%d, %d)", i/n, i%n)
		}
	}
}

func check(t *testing.T, name string, got, want []float64, keep func(int) bool) {
	t.Helper()
	checkTol(t, name, got, want, keep, 1e-12)
}
