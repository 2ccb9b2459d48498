package main

import (
	"path/filepath"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
)

// BenchmarkPlotExamples measures `fg run` with and without --plot on every
// model of examples/ (the sub-benchmarks MODEL/table and MODEL/plot; their
// difference is what --plot costs), and on the classifiers of examples/
// with an mcmc line added, which answer the decision-boundary grid from
// 1000 posterior draws: approx_schemes (logistic, exact), hinge_batches
// (hinge losses, no boundary: no site classifies) and toy5 (step). The
// target is at most 1 s of --plot on each (docs/performance.md). Besides
// ns/op (wall time, which a loaded machine inflates) each reports cpu-s/op,
// the process's user + system CPU time per run.
//
//	go test -run '^$' -bench PlotExamples -benchtime 1x ./cmd/fg/
func BenchmarkPlotExamples(b *testing.B) {
	root := filepath.Join("..", "..", "examples")
	models, _ := filepath.Glob(filepath.Join(root, "*.fg"))
	more, _ := filepath.Glob(filepath.Join(root, "*", "*.fg"))
	type run struct {
		name string
		args []string
	}
	var runs []run
	for _, m := range append(models, more...) {
		rel, _ := filepath.Rel(root, m)
		runs = append(runs, run{rel, []string{m}})
	}
	for _, m := range []string{"approx_schemes.fg", "hinge_batches.fg", "toy5.fg"} {
		runs = append(runs, run{m + "+mcmc", []string{filepath.Join(root, m), "--method", "mcmc as bench_mcmc"}})
	}
	for _, r := range runs {
		out := filepath.Join(b.TempDir(), "plot.png")
		var code int
		b.Run(r.name+"/table", func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				var stderr string
				if _, stderr, code = runFG(append([]string{"run"}, r.args...)...); code != exitOK && code != exitMethod {
					b.Fatalf("exit %d: %s", code, stderr)
				}
			}
		})
		b.Run(r.name+"/plot", func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				if _, stderr, c := runFG(append([]string{"run", "--plot", out}, r.args...)...); c != code {
					b.Fatalf("exit %d with --plot, %d without: %s", c, code, stderr)
				}
			}
		})
	}
}

// reportCPU starts measuring the process's CPU time; the function it
// returns reports it per iteration as cpu-s/op.
func reportCPU(b *testing.B) func() {
	t0 := testkit.ProcessCPU(b)
	return func() { b.ReportMetric((testkit.ProcessCPU(b)-t0).Seconds()/float64(b.N), "cpu-s/op") }
}
