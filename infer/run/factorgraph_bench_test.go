package run

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/benchdata"
)

// BenchmarkRandomWalkEndToEnd compiles the random walk from source and
// runs `infer ep` through infer/run (one forward–backward pass), the path
// of `fg run`:
//
//	go test -run '^$' -bench RandomWalkEndToEnd -benchtime 3x ./infer/run
//
// It reports the compile and run times per op separately, and the bytes
// the run allocates per time step (graph, messages, beliefs and results).
func BenchmarkRandomWalkEndToEnd(b *testing.B) {
	for _, T := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			var compileT, runT time.Duration
			var runBytes uint64
			var ms runtime.MemStats
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				m, err := compile.CompileSource("rw.fg", []byte(benchdata.RandomWalkSource), compile.Options{Set: map[string]string{"T": fmt.Sprint(T)}})
				if err != nil {
					b.Fatal(err)
				}
				runtime.ReadMemStats(&ms)
				alloc0 := ms.TotalAlloc
				t1 := time.Now()
				rs, err := Run(context.Background(), m, Options{})
				if err != nil || rs[0].Status != infer.Converged {
					b.Fatal(err, rs[0].Status, rs[0].Message)
				}
				compileT, runT = compileT+t1.Sub(t0), runT+time.Since(t1)
				runtime.ReadMemStats(&ms)
				runBytes += ms.TotalAlloc - alloc0
			}
			b.ReportMetric(float64(compileT.Nanoseconds())/float64(b.N), "compile-ns/op")
			b.ReportMetric(float64(runT.Nanoseconds())/float64(b.N), "run-ns/op")
			b.ReportMetric(float64(runBytes)/float64(b.N)/float64(T), "run-B/step")
		})
	}
}
