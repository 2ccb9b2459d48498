package compile

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/fg-infer/fg/internal/benchdata"
)

// BenchmarkCompileIsingGrid compiles the r×r grid (r = 1000 without
// -short), with one coupling and with a coupling per edge. Reported: ns/op
// = one compile; live-B/factor = heap the compiled model keeps per factor
// (after a GC), the compile share of the whole run's memory. A coupling
// per edge costs its 8 bytes of data (J) and nothing more: the factors
// keep their parameter, not a table (graph.AddLogLinear).
func BenchmarkCompileIsingGrid(b *testing.B) {
	sides := []int{100, 300}
	if !testing.Short() {
		sides = append(sides, 1000)
	}
	for _, perEdge := range []bool{false, true} {
		for _, r := range sides {
			src := benchdata.IsingGridSource(r, perEdge, 20)
			name := fmt.Sprint(r)
			if perEdge {
				name += "/per-edge"
			}
			b.Run(name, func(b *testing.B) {
				var live float64
				for i := 0; i < b.N; i++ {
					m, bytes := compileLive(b, "grid.fg", src)
					live += bytes / float64(m.Graph.NumFactors())
				}
				b.ReportMetric(live/float64(b.N), "live-B/factor")
			})
		}
	}
}

// compileLive compiles src and returns the model with the heap it keeps
// (after a GC, in bytes).
func compileLive(b *testing.B, name string, src []byte) (*Model, float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := CompileSource(name, src, Options{})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return m, float64(after.HeapAlloc) - float64(before.HeapAlloc)
}
