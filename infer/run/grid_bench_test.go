package run

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/benchdata"
)

// BenchmarkIsingGridEndToEnd compiles and runs 5 BP passes on the r×r
// Ising grid written in the language (benchdata.IsingGridSource; r = 1000
// without -short), with one coupling and with a coupling per edge.
// Reported: compile-ns/op and run-ns/op (infer/run: BP's engine form, the
// passes, the results), run-B/factor = bytes the run allocates per factor,
// peak-MB = the largest heap in use over compile and run (benchdata.PeakHeap).
// `fg run` on the same source is what docs/performance.md times.
func BenchmarkIsingGridEndToEnd(b *testing.B) {
	sides := []int{300}
	if !testing.Short() {
		sides = append(sides, 1000)
	}
	for _, r := range sides {
		for _, perEdge := range []bool{false, true} {
			name := fmt.Sprint(r)
			if perEdge {
				name += "/per-edge"
			}
			src := benchdata.IsingGridSource(r, perEdge, 5)
			b.Run(name, func(b *testing.B) {
				var compileT, runT time.Duration
				var runBytes, peak uint64
				var ms runtime.MemStats
				for i := 0; i < b.N; i++ {
					var m *compile.Model
					var err error
					p := benchdata.PeakHeap(func() {
						t0 := time.Now()
						if m, err = compile.CompileSource("grid.fg", src, compile.Options{}); err != nil {
							return
						}
						runtime.ReadMemStats(&ms)
						alloc0 := ms.TotalAlloc
						t1 := time.Now()
						if _, err = Run(context.Background(), m, Options{}); err != nil {
							return
						}
						compileT, runT = compileT+t1.Sub(t0), runT+time.Since(t1)
						runtime.ReadMemStats(&ms)
						runBytes += ms.TotalAlloc - alloc0
					})
					if err != nil {
						b.Fatal(err)
					}
					peak = max(peak, p)
					b.ReportMetric(float64(runBytes)/float64(b.N)/float64(m.Graph.NumFactors()), "run-B/factor")
				}
				b.ReportMetric(float64(compileT.Nanoseconds())/float64(b.N), "compile-ns/op")
				b.ReportMetric(float64(runT.Nanoseconds())/float64(b.N), "run-ns/op")
				b.ReportMetric(float64(peak)/1e6, "peak-MB")
			})
		}
	}
}
