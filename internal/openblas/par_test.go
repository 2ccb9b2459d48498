package openblas

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// randGeneral returns an r×c matrix of standard normal draws.
func randGeneral(rng *rand.Rand, r, c int) blas64.General {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: d}
}

// sameBits fails unless got and want hold the same float64 bit patterns.
func sameBits(t *testing.T, name string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d: %.17g, want %.17g (bit-identical)", name, i, got[i], want[i])
		}
	}
}

// TestGemmTNBitIdentical: GemmTN, split into contiguous row or column
// ranges on GOMAXPROCS goroutines, gives the bits of one Gemm call (the
// packed micro-kernel where the processor has it, else blas64.Gemm), for
// tall and wide C and several GOMAXPROCS.
func TestGemmTNBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][3]int{{300, 500, 211}, {300, 211, 500}, {40, 70, 30}} {
		k, m, n := sh[0], sh[1], sh[2]
		a, b, c0 := randGeneral(rng, k, m), randGeneral(rng, k, n), randGeneral(rng, m, n)
		want := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), c0.Data...)}
		Gemm(blas.Trans, blas.NoTrans, -0.7, a, b, 1.3, want)
		for _, p := range []int{1, 2, 3} {
			got := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), c0.Data...)}
			withProcs(p, func() { GemmTN(-0.7, a, b, 1.3, got) })
			sameBits(t, "GemmTN", got.Data, want.Data)
		}
	}
}

// TestKernelsProcsBitIdentical: CholUpperDone and TrsmLeftTransDone give
// the same bits on 1, 2 and 3 procs (their column ranges are independent).
func TestKernelsProcsBitIdentical(t *testing.T) {
	const n, k = cholMin + blockSize + 37, 333
	a := spd(n)
	rhs := randGeneral(rand.New(rand.NewPCG(9, 10)), n, k)
	run := func(p int) (u, x []float64) {
		f := mat.NewSymDense(n, nil)
		f.CopySym(a)
		x = append([]float64(nil), rhs.Data...)
		withProcs(p, func() {
			tri, err := CholUpperDone(f.RawSymmetric(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := TrsmLeftTransDone(tri, blas64.General{Rows: n, Cols: k, Stride: k, Data: x}, nil); err != nil {
				t.Fatal(err)
			}
		})
		return f.RawSymmetric().Data, x
	}
	u1, x1 := run(1)
	for _, p := range []int{2, 3} {
		up, xp := run(p)
		sameBits(t, "CholUpperDone", up, u1)
		sameBits(t, "TrsmLeftTransDone", xp, x1)
	}
}

// withProcs runs f with GOMAXPROCS set to p.
func withProcs(p int, f func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
	f()
}
