package bp

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// isingGrid is RandomIsingGrid, which cannot fail for valid sizes.
func isingGrid(r, c int, seed uint64) *Problem {
	p, err := RandomIsingGrid(r, c, seed)
	if err != nil {
		panic(err)
	}
	return p
}

// BenchmarkSequentialSweep1000x1000 times one sequential BP pass (every
// edge message recomputed once, libDAI SEQFIX order) on a 1000×1000 Ising
// grid: 10^6 variables, 1 998 000 pairwise factors. Reported: ns/op = one
// pass; msgB/pairfactor = bytes of message state per pairwise factor.
func BenchmarkSequentialSweep1000x1000(b *testing.B) {
	if testing.Short() {
		b.Skip("large benchmark")
	}
	benchSweep(b, isingGrid(1000, 1000, 1), infer.Sequential)
}

// BenchmarkSequentialSweep100x100 is the same on a 100×100 grid.
func BenchmarkSequentialSweep100x100(b *testing.B) {
	benchSweep(b, isingGrid(100, 100, 1), infer.Sequential)
}

func benchSweep(b *testing.B, p *Problem, sch infer.Schedule) {
	s := Settings{infer.Settings{Schedule: sch}}
	en, err := newEngine(p, &s, true)
	if err != nil {
		b.Fatal(err)
	}
	sc, err := newScheduler(en, &s)
	if err != nil {
		b.Fatal(err)
	}
	state, err := p.MessageBytes(s)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc.pass()
	}
	b.ReportMetric(float64(state)/float64(p.NumFactors()), "msgB/pairfactor")
}

// BenchmarkRun1000x1000 is a whole run capped at 3 passes, including the
// per-pass belief computation and convergence test.
func BenchmarkRun1000x1000(b *testing.B) {
	if testing.Short() {
		b.Skip("large benchmark")
	}
	p := isingGrid(1000, 1000, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Run(context.Background(), Settings{infer.Settings{MaxIter: 3}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParallelSweep1000x1000 is one parallel pass (all new messages
// from the old ones, on GOMAXPROCS goroutines) on the 1000×1000 grid; run
// with -cpu 1,2 for the speedup from one core to two.
func BenchmarkParallelSweep1000x1000(b *testing.B) {
	if testing.Short() {
		b.Skip("large benchmark")
	}
	benchSweep(b, isingGrid(1000, 1000, 1), infer.Parallel)
}

// BenchmarkParallelSweep300x300 is the same on a 300×300 grid.
func BenchmarkParallelSweep300x300(b *testing.B) {
	benchSweep(b, isingGrid(300, 300, 1), infer.Parallel)
}
