package compile

import (
	"fmt"
	"testing"
)

// BenchmarkCompileRandomWalkLive compiles random walks of T steps observed
// at every step (2T factors; T = 10⁶ without -short) and reports the heap
// the compiled model keeps per step after a GC (live-B/step: the graph,
// the FactorGraph's Gaussians and sites, labels) and the time per step.
func BenchmarkCompileRandomWalkLive(b *testing.B) {
	steps := []int{100_000}
	if !testing.Short() {
		steps = append(steps, 1_000_000)
	}
	for _, T := range steps {
		src := []byte(randomWalkSource(T))
		b.Run(fmt.Sprint("T=", T), func(b *testing.B) {
			var live float64
			for i := 0; i < b.N; i++ {
				_, bytes := compileLive(b, "rw.fg", src)
				live += bytes / float64(T)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(T), "ns/step")
			b.ReportMetric(live/float64(b.N), "live-B/step")
		})
	}
}
