package ep

import (
	"context"
	"fmt"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/mat"
)

// benchFITC builds a probit FITC problem (SE kernel, n standard-normal
// inputs in d dimensions, the first m inputs as inducing inputs) and an
// engine warmed by one sweep, so that the sites are non-trivial.
func benchFITC(b *testing.B, n, m, d int, sched infer.Schedule) *fitcEngine {
	X := randInputs(n, d, 99)
	y := make([]float64, n)
	for i := range y {
		y[i] = 1
		if X.At(i, 0)*X.At(i, 1) < 0 {
			y[i] = -1
		}
	}
	p := fitcProblem(kernel.SE{Lengthscale: 1.5, Var: 2}, X, mat.DenseCopyOf(X.Slice(0, m, 0, d)), y, Probit{})
	pr, err := newFITCPrior(context.Background(), p)
	if err != nil {
		b.Fatal(err)
	}
	r, _ := newRule(nil, 1)
	e := newFITCEngine(p, pr, Settings{Settings: infer.Settings{Schedule: sched}}, r)
	if e.st, err = pr.recompute(context.Background(), e.tau, e.nu); err != nil {
		b.Fatal(err)
	}
	if err := e.sweepSequential(context.Background()); err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkFITCSweep: one FITC EP sweep (sequential: n rank-one updates of
// the m×m factor plus the O(n m²) rebuild; parallel: the rebuild only).
// spam is the size of GPML's spam run (n = 3067, D = 57, m = 50), where
// GPML 4.2's sparse infEP took 1.84 s per sweep.
//
//	go test -run '^$' -bench FITCSweep -benchmem ./infer/ep
func BenchmarkFITCSweep(b *testing.B) {
	for _, c := range []struct{ n, m, d int }{{3067, 50, 57}, {10000, 100, 2}, {100000, 100, 2}} {
		for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel} {
			b.Run(fmt.Sprintf("n=%d/m=%d/%v", c.n, c.m, sched), func(b *testing.B) {
				e := benchFITC(b, c.n, c.m, c.d, sched)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					var err error
					if sched == infer.Parallel {
						err = e.sweepParallel(context.Background())
					} else {
						err = e.sweepSequential(context.Background())
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
