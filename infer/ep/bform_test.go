package ep

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestTrsmBlocked: the blocked triangular solve gives Dtrsm's solution of
// Uᵀ X = B (U the Cholesky factor of a kernel matrix, 2.5 blocks) to 1e-10.
func TestTrsmBlocked(t *testing.T) {
	n := 2*trsmBlock + trsmBlock/2
	K := kernel.SE{Lengthscale: 0.7, Var: 2}.Matrix(randInputs(n, 2, 4))
	for i := 0; i < n; i++ {
		K.SetSym(i, i, K.At(i, i)+0.1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(K) {
		t.Fatal("not positive definite")
	}
	u := ch.RawU().(*mat.TriDense).RawTriangular()
	B := mat.NewDense(n, 70, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 70; j++ {
			B.Set(i, j, math.Sin(float64(3*i+j)))
		}
	}
	got, want := mat.DenseCopyOf(B), mat.DenseCopyOf(B)
	trsmLeftTrans(u, got.RawMatrix())
	blas64.Trsm(blas.Left, blas.Trans, 1, u, want.RawMatrix())
	var d mat.Dense
	d.Sub(got, want)
	if e := mat.Norm(&d, math.Inf(1)); e > 1e-10 {
		t.Errorf("blocked solve differs from Dtrsm by %g", e)
	}
	var r mat.Dense // residual Uᵀ X − B
	r.Mul(ch.RawU().T(), got)
	r.Sub(&r, B)
	if e := mat.Norm(&r, math.Inf(1)); e > 1e-10 {
		t.Errorf("residual ‖Uᵀ X − B‖∞ = %g", e)
	}
}
