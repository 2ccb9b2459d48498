package fgraph

import (
	"context"
	"fmt"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
)

// BenchmarkRandomWalk smooths a random walk observed at every step (T
// Gaussian observations) by one forward–backward pass:
//
//	go test -run '^$' -bench RandomWalk -benchtime 5x ./infer/fgraph
//
// It reports the process CPU time per run (cpu-ns/op: user + system, GC
// included, which stays meaningful when other jobs share the cores and
// inflate wall time) and the state bytes per time step (graph, messages,
// beliefs, schedule; Graph.StateBytes) to show memory linear in T.
func BenchmarkRandomWalk(b *testing.B) {
	for _, T := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			c := newChain(T, 1, 0, 1, 9)
			g := c.graph()
			b.ResetTimer()
			cpu0 := testkit.ProcessCPU(b)
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), g, Settings{})
				if err != nil || !res.Exact {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(testkit.ProcessCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(g.StateBytes())/float64(T), "state-B/step")
		})
	}
}

// BenchmarkProbitWalk is EP on a random walk with probit labels
// (family = full, which on a chain is the forward–backward schedule
// repeated to tol = 1e-6): "60%" labels 60% of the steps (probitWalk),
// "all" every step of a walk with long saturated stretches (labelWalk).
// cpu-ns/pass is the CPU time of one forward–backward pass, linear in T:
//
//	go test -run '^$' -bench ProbitWalk -benchtime 3x ./infer/fgraph
func BenchmarkProbitWalk(b *testing.B) {
	walks := []struct {
		name string
		make func(T int) *Graph
	}{
		{"60%", func(T int) *Graph { return probitWalk(T, 0.1, 9) }},
		{"all", func(T int) *Graph { return labelWalk(T, 0.1, 1) }},
	}
	for _, w := range walks {
		for _, T := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/T=%d", w.name, T), func(b *testing.B) {
				g := w.make(T)
				b.ResetTimer()
				cpu0 := testkit.ProcessCPU(b)
				passes := 0
				for i := 0; i < b.N; i++ {
					res, err := Run(context.Background(), g, Settings{})
					if err != nil || res.Status != infer.Converged {
						b.Fatal(err, res.Status)
					}
					passes += res.Iterations
				}
				cpu := float64(testkit.ProcessCPU(b) - cpu0)
				b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
				b.ReportMetric(cpu/float64(passes), "cpu-ns/pass")
				b.ReportMetric(float64(passes)/float64(b.N), "passes")
			})
		}
	}
}
