package ep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// spdKernel is an SE kernel matrix on n random 2-D inputs plus jitter on
// the diagonal: symmetric positive definite, condition number ~10⁴.
func spdKernel(n int) *mat.SymDense {
	K := kernel.SE{Lengthscale: 0.7, Var: 2}.Matrix(randInputs(n, 2, 4))
	for i := 0; i < n; i++ {
		K.SetSym(i, i, K.At(i, i)+0.1)
	}
	return K
}

// canceledDone is the done channel of a canceled context.
func canceledDone() <-chan struct{} {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx.Done()
}

// TestCholUpperBlocked: the blocked, interruptible Cholesky equals
// mat.Cholesky (one LAPACK Potrf) to 1e-10 on a matrix of 5.5 block
// columns past cholMin, and Uᵀ U reproduces the matrix.
func TestCholUpperBlocked(t *testing.T) {
	n := cholMin + 5*cholBlock + cholBlock/2
	K := spdKernel(n)
	var ch mat.Cholesky
	if !ch.Factorize(K) {
		t.Fatal("not positive definite")
	}
	want := ch.RawU().(*mat.TriDense)
	a := mat.NewSymDense(n, nil)
	a.CopySym(K)
	u, err := cholUpper(a.RawSymmetric(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := mat.NewTriDense(n, mat.Upper, nil)
	got.Copy(mat.NewTriDense(n, mat.Upper, u.Data))
	var d mat.Dense
	d.Sub(got, want)
	if e := mat.Norm(&d, math.Inf(1)); !(e <= 1e-10) {
		t.Errorf("blocked Cholesky differs from mat.Cholesky by %g", e)
	}
	var r mat.Dense // Uᵀ U − K
	gd := mat.DenseCopyOf(got)
	r.Mul(gd.T(), gd)
	r.Sub(&r, K)
	if e := mat.Norm(&r, math.Inf(1)); !(e <= 1e-10) {
		t.Errorf("‖Uᵀ U − K‖∞ = %g", e)
	}
}

// TestCholUpperRefuses: an indefinite matrix is errImproper, a closed done
// channel errCanceled, at both sizes (one Potrf, blocked).
func TestCholUpperRefuses(t *testing.T) {
	closed := canceledDone()
	for _, n := range []int{50, cholMin + cholBlock} {
		K := spdKernel(n)
		K.SetSym(n-1, n-1, -1)
		if _, err := cholUpper(K.RawSymmetric(), nil); !errors.Is(err, errImproper) {
			t.Errorf("n = %d indefinite: err = %v, want errImproper", n, err)
		}
		if _, err := cholUpper(spdKernel(n).RawSymmetric(), closed); !errors.Is(err, errCanceled) {
			t.Errorf("n = %d canceled: err = %v, want errCanceled", n, err)
		}
	}
}

// TestSolveUpperTrans: the blocked triangular solve gives Dtrsm's solution
// of Uᵀ X = B (U the Cholesky factor of a kernel matrix, 2.5 blocks) to
// 1e-10, and a closed done channel stops it.
func TestSolveUpperTrans(t *testing.T) {
	n := 2*cholBlock + cholBlock/2
	var ch mat.Cholesky
	if !ch.Factorize(spdKernel(n)) {
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
	if err := solveUpperTrans(u, got.RawMatrix(), nil); err != nil {
		t.Fatal(err)
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, u, want.RawMatrix())
	var d mat.Dense
	d.Sub(got, want)
	if e := mat.Norm(&d, math.Inf(1)); !(e <= 1e-10) {
		t.Errorf("blocked solve differs from Dtrsm by %g", e)
	}
	var r mat.Dense // residual Uᵀ X − B
	r.Mul(ch.RawU().T(), got)
	r.Sub(&r, B)
	if e := mat.Norm(&r, math.Inf(1)); !(e <= 1e-10) {
		t.Errorf("residual ‖Uᵀ X − B‖∞ = %g", e)
	}
	closed := canceledDone()
	if err := solveUpperTrans(u, B.RawMatrix(), closed); !errors.Is(err, errCanceled) {
		t.Errorf("canceled solve: err = %v", err)
	}
}

// BenchmarkCholesky: the interruptible blocked Cholesky (cholUpper, with a
// live done channel) against mat.Cholesky's single LAPACK call, n³/3 flops.
func BenchmarkCholesky(b *testing.B) {
	for _, n := range benchSizes {
		K := spdKernel(n)
		a := mat.NewSymDense(n, nil)
		ctx, cancel := context.WithCancel(context.Background())
		b.Run(fmt.Sprintf("blocked/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				a.CopySym(K)
				if _, err := cholUpper(a.RawSymmetric(), ctx.Done()); err != nil {
					b.Fatal(err)
				}
			}
			gflops(b, float64(n)*float64(n)*float64(n)/3)
		})
		cancel()
		b.Run(fmt.Sprintf("mat.Cholesky/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var ch mat.Cholesky
				if !ch.Factorize(K) {
					b.Fatal("not positive definite")
				}
			}
			gflops(b, float64(n)*float64(n)*float64(n)/3)
		})
	}
}
