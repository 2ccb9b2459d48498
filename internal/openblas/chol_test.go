package openblas

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// spd returns a well-conditioned random symmetric positive definite n×n
// matrix X Xᵀ/n + I.
func spd(n int) *mat.SymDense {
	rng := rand.New(rand.NewPCG(5, 6))
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1/float64(n), x)
	for i := 0; i < n; i++ {
		a.SetSym(i, i, a.At(i, i)+1)
	}
	return a
}

// TestCholInverseDone: CholUpperDone and CholInverseDone against gonum's
// mat.Cholesky Factorize and InverseTo (dpotrf, dpotri), below cholMin
// (one Potrf, one Potri: bit-identical) and across several blocks with a
// partial last block (1e-12 relative); the lower triangle is not written.
func TestCholInverseDone(t *testing.T) {
	for _, n := range []int{100, cholMin + blockSize + 7} {
		a := spd(n)
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			t.Fatal("not positive definite")
		}
		var wantU mat.TriDense
		ch.UTo(&wantU)
		want := mat.NewSymDense(n, nil)
		if err := ch.InverseTo(want); err != nil {
			t.Fatal(err)
		}
		f := mat.NewSymDense(n, nil)
		f.CopySym(a)
		u, err := CholUpperDone(f.RawSymmetric(), nil)
		if err != nil {
			t.Fatal(err)
		}
		c := make([]float64, n*n)
		if err := CholInverseDone(u, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: c}, nil); err != nil {
			t.Fatal(err)
		}
		upper := func(i int) bool { return i%n >= i/n }
		tol := 1e-12
		if n < cholMin {
			tol = 0
		}
		checkTol(t, "CholUpperDone", u.Data, wantU.RawTriangular().Data, upper, tol)
		checkTol(t, "CholInverseDone", c, want.RawSymmetric().Data, upper, tol)
		for i, x := range c {
			if !upper(i) && x != 0 {
				t.Fatalf("n = %d: CholInverseDone wrote the lower triangle at (%d, %d)", n, i/n, i%n)
			}
		}
	}
}

// TestDoneKernelsCancel: a closed done channel stops every interruptible
// kernel with ErrCanceled; an indefinite matrix is ErrNotPositiveDefinite.
func TestDoneKernelsCancel(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	for _, n := range []int{50, cholMin + blockSize} {
		a := spd(n)
		raw := a.RawSymmetric()
		if _, err := CholUpperDone(raw, closed); !errors.Is(err, ErrCanceled) {
			t.Errorf("n = %d: CholUpperDone %v", n, err)
		}
		u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: raw.Data}
		c := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}
		if err := CholInverseDone(u, c, closed); !errors.Is(err, ErrCanceled) {
			t.Errorf("n = %d: CholInverseDone %v", n, err)
		}
		if err := SyrkTransDone(1, blas64.General{Rows: n, Cols: n, Stride: n, Data: raw.Data}, 0, c, closed); !errors.Is(err, ErrCanceled) {
			t.Errorf("n = %d: SyrkTransDone %v", n, err)
		}
		b := spd(n)
		b.SetSym(n-1, n-1, -1)
		if _, err := CholUpperDone(b.RawSymmetric(), nil); !errors.Is(err, ErrNotPositiveDefinite) {
			t.Errorf("n = %d: indefinite: %v", n, err)
		}
	}
}

// checkTol compares got with want, elementwise to tol relative (0: equal),
// on the elements keep selects (nil: all).
func checkTol(t *testing.T, name string, got, want []float64, keep func(int) bool, tol float64) {
	t.Helper()
	for i := range want {
		if keep != nil && !keep(i) {
			continue
		}
		if d := math.Abs(got[i] - want[i]); !(d <= tol*max(1, math.Abs(want[i]))) {
			t.Fatalf("%s: element %d: %.17g, want %.17g", name, i, got[i], want[i])
		}
	}
}
