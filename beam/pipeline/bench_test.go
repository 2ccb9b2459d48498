package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkBeamMillion: 10⁶ probit points (d = 3) in 16 csv shards on
// prism, the local runner; one op is a whole run (tol 1e-10), reported per
// EP iteration. Workers: run with -cpu 1,2 (GOMAXPROCS of the process that
// hosts prism and its loopback worker). The data are written to a temporary
// folder and deleted afterwards. Long: only with FG_BEAM_BENCH=1.
//
//	FG_BEAM_BENCH=1 go test -run '^$' -bench BeamMillion -benchtime 1x -cpu 1,2 ./pipeline
func BenchmarkBeamMillion(b *testing.B) {
	if os.Getenv("FG_BEAM_BENCH") == "" {
		b.Skip("set FG_BEAM_BENCH=1 (writes 10⁶ rows to a temporary folder)")
	}
	dir := b.TempDir()
	m := writeShards(b, dir, 1_000_000, 16, 9)
	cfg := Config{Model: m, Shards: filepath.Join(dir, "part-*.csv"), Out: b.TempDir(), Execute: prism}
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		res, _, _, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds()/float64(res.Iterations), "s/iter")
		b.ReportMetric(float64(res.Iterations), "iters")
	}
}
