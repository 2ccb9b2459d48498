package bp

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
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

// BenchmarkNewProblemIsingGrid converts a 300×300 Ising grid written as a
// graph (field and ising factors, one shared coupling table, as the
// compiler makes it) into engine form. Reported: live-B/factor = the
// engine problem's heap per graph factor.
func BenchmarkNewProblemIsingGrid(b *testing.B) {
	g := gridGraph(300)
	var live float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := NewProblem(g)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		live += float64(after.HeapAlloc-before.HeapAlloc) / float64(g.NumFactors())
		runtime.KeepAlive(p)
	}
	b.ReportMetric(live/float64(b.N), "live-B/factor")
}

// gridGraph is the r×r spin grid with fields 0.1 and couplings 0.25 as a
// graph.Graph, the coupling table shared by every edge.
func gridGraph(r int) *graph.Graph {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{r, r}, ast.NoPos)
	field := []float64{math.Exp(-0.1), math.Exp(0.1)}
	ising := []float64{math.Exp(0.25), math.Exp(-0.25), math.Exp(-0.25), math.Exp(0.25)}
	for v := range r * r {
		g.AddFactor(graph.Factor{Kind: factor.Field{}, Vars: []int{v}, Table: field})
	}
	for v := range r * r {
		if (v+1)%r != 0 {
			g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{v, v + 1}, Table: ising})
		}
		if v+r < r*r {
			g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{v, v + r}, Table: ising})
		}
	}
	return g
}
