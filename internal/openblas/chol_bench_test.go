package openblas

import (
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkCholInverse: the covariance Λ⁻¹ of a dense n×n precision, by
// mat.Cholesky (Factorize, InverseTo: dpotrf, dpotri, not interruptible)
// and by CholUpperDone + CholInverseDone (interruptible blocks).
func BenchmarkCholInverse(b *testing.B) {
	const n = 2000
	a := spd(n)
	b.Run("mat.Cholesky", func(b *testing.B) {
		for range b.N {
			var ch mat.Cholesky
			ch.Factorize(a)
			cov := mat.NewSymDense(n, nil)
			if err := ch.InverseTo(cov); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Done", func(b *testing.B) {
		for range b.N {
			f := mat.NewSymDense(n, nil)
			f.CopySym(a)
			u, err := CholUpperDone(f.RawSymmetric(), nil)
			if err != nil {
				b.Fatal(err)
			}
			c := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}
			if err := CholInverseDone(u, c, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
