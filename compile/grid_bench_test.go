package compile

import (
	"fmt"
	"runtime"
	"testing"
)

// isingGridSource is the r×r Ising grid written in the language: a plate
// over nodes(G) with field and a plate over edges(G) with ising (at
// r = 1000, the scale target: 10⁶ variables and 2 998 000 factors).
func isingGridSource(r int) []byte {
	return fmt.Appendf(nil, `model grid
param J = 0.25
data G = grid(%d, %d)
data h = random_normal(3, nodes(G), 0, 1)
latent x: spin[nodes(G)] ~ uniform_spin()
for i in 0..nodes(G) {
  factor field(x[i], h[i])
}
for (k, i, j) in edges(G) {
  factor ising(x[i], x[j], J)
}
infer bp
`, r, r)
}

// BenchmarkCompileIsingGrid compiles the r×r grid (r = 1000 without
// -short). Reported: ns/op = one compile; live-B/factor = heap the
// compiled model keeps per factor (after a GC), the compile share of the
// whole run's memory.
func BenchmarkCompileIsingGrid(b *testing.B) {
	sides := []int{100, 300}
	if !testing.Short() {
		sides = append(sides, 1000)
	}
	for _, r := range sides {
		src := isingGridSource(r)
		b.Run(fmt.Sprint(r), func(b *testing.B) {
			var live float64
			for i := 0; i < b.N; i++ {
				m, bytes := compileLive(b, "grid.fg", src)
				live += bytes / float64(m.Graph.NumFactors())
			}
			b.ReportMetric(live/float64(b.N), "live-B/factor")
		})
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
