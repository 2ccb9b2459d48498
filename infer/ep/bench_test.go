package ep

import (
	"context"
	"fmt"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

var benchSizes = []int{500, 1000, 2000}

// benchEngine builds a probit GP problem of size n (SE kernel on 2-D inputs)
// and an engine warmed by one sweep, so that sites are non-trivial.
func benchEngine(b *testing.B, n int, sched infer.Schedule) *engine {
	X := randInputs(n, 2, 99)
	p := &Problem{Cov: kernel.SE{Lengthscale: 0.7, Var: 2}.Matrix(X)}
	for i := 0; i < n; i++ {
		y := 1.0
		if X.At(i, 0)*X.At(i, 1) < 0 {
			y = -1
		}
		p.Sites = append(p.Sites, Site{Lik: Probit{}, Y: y, Index: i})
	}
	s := Settings{Settings: infer.Settings{Schedule: sched}, Refresh: -1}
	r, _ := newRule(nil, 1)
	e, err := newEngine(p, s, r)
	if err != nil {
		b.Fatal(err)
	}
	if e.st, err = recompute(e.pr, e.sites, e.sequential(), scratch{}); err != nil {
		b.Fatal(err)
	}
	return e
}

func gflops(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkSweepSequential: one sequential sweep = n rank-1 updates of the
// n×n covariance (n³ flops), no refresh.
func BenchmarkSweepSequential(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := benchEngine(b, n, infer.Sequential)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := e.sweepSequential(1); err != nil {
					b.Fatal(err)
				}
			}
			gflops(b, float64(n)*float64(n)*float64(n))
		})
	}
}

// BenchmarkSweepParallel: one parallel sweep = all site updates, one
// Cholesky of B (n³/3) and one triangular solve with n right-hand sides (n³).
func BenchmarkSweepParallel(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := benchEngine(b, n, infer.Parallel)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := e.sweepParallel(); err != nil {
					b.Fatal(err)
				}
			}
			gflops(b, 4.0/3*float64(n)*float64(n)*float64(n))
		})
	}
}

// benchSPD is the SPD matrix of the Cholesky benchmarks: an SE kernel
// matrix on n random 2-D inputs plus the identity.
func benchSPD(n int) *mat.SymDense {
	K := kernel.SE{Lengthscale: 0.7, Var: 2}.Matrix(randInputs(n, 2, 98))
	for i := 0; i < n; i++ {
		K.SetSym(i, i, K.At(i, i)+1)
	}
	return K
}

// BenchmarkCholTrsm is the dense linear algebra a parallel sweep cannot
// avoid: Cholesky of an n×n SPD matrix and a triangular solve with n
// right-hand sides.
func BenchmarkCholTrsm(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			K := benchSPD(n)
			R := mat.NewDense(n, n, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var ch mat.Cholesky
				if !ch.Factorize(K) {
					b.Fatal("not PD")
				}
				R.Copy(K)
				blas64.Trsm(blas.Left, blas.Trans, 1, ch.RawU().(*mat.TriDense).RawTriangular(), R.RawMatrix())
			}
			gflops(b, 4.0/3*float64(n)*float64(n)*float64(n))
		})
	}
}

// BenchmarkCholTrsmBlocked is BenchmarkCholTrsm by the kernels a parallel
// sweep uses: the blocked, interruptible cholUpper and solveUpperTrans
// (internal/openblas), whose independent panels and right-hand-side
// columns run on GOMAXPROCS goroutines in the pure-Go build.
func BenchmarkCholTrsmBlocked(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			K := benchSPD(n)
			A := mat.NewSymDense(n, nil)
			R := mat.NewDense(n, n, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				A.CopySym(K)
				u, err := cholUpper(A.RawSymmetric(), nil)
				if err != nil {
					b.Fatal(err)
				}
				R.Copy(K)
				if err := solveUpperTrans(u, R.RawMatrix(), nil); err != nil {
					b.Fatal(err)
				}
			}
			gflops(b, 4.0/3*float64(n)*float64(n)*float64(n))
		})
	}
}

// BenchmarkRankOne is the dense linear algebra a sequential sweep cannot
// avoid: n symmetric rank-1 updates (BLAS Dsyr) of an n×n matrix.
func BenchmarkRankOne(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			X := randInputs(n, 2, 97)
			S := kernel.SE{Lengthscale: 0.7, Var: 2}.Matrix(X)
			x := make([]float64, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := 0; k < n; k++ {
					column(S.RawSymmetric(), k, x)
					blas64.Syr(-1e-6, blas64.Vector{N: n, Inc: 1, Data: x}, S.RawSymmetric())
				}
			}
			gflops(b, float64(n)*float64(n)*float64(n))
		})
	}
}

// BenchmarkRun is a whole EP run of exactly 5 sweeps (Tol below reach) with
// the default settings: problem set-up, the sweeps, and the final
// factorisation, log Z and marginals. Its ratio to 5× the sweep benchmarks
// above is the run's overhead (target: within 1.3×, docs/performance.md).
func BenchmarkRun(b *testing.B) {
	for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%v/%d", sched, n), func(b *testing.B) {
				p := benchEngine(b, n, sched).p
				s := Settings{Settings: infer.Settings{Schedule: sched, MaxIter: 5, Tol: 1e-300}}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if res, err := Run(context.Background(), p, s); err != nil || res.Iterations != 5 || !res.HasLogZ && res.Status == infer.Converged {
						b.Fatal(err, res.Status)
					}
				}
			})
		}
	}
}
