package fgraph

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRandomWalk smooths a random walk observed at every step (T
// Gaussian observations) by one forward–backward pass:
//
//	go test -run '^$' -bench RandomWalk -benchtime 3x ./infer/fgraph
//
// It reports the state bytes per time step (graph, messages, beliefs,
// schedule; Graph.StateBytes) to show memory linear in T.
func BenchmarkRandomWalk(b *testing.B) {
	for _, T := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			c := newChain(T, 1, 0, 1, 9)
			g := c.graph()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), g, Settings{})
				if err != nil || !res.Exact {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(g.StateBytes())/float64(T), "state-B/step")
		})
	}
}
