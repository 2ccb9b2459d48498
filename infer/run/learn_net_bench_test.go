package run

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/testkit"
)

// BenchmarkLearnNet times whole learning runs on typed factor graphs and
// reports the process CPU time per run (cpu-ms/op) and the evaluations of
// the evidence: the empirical-Bayes groups (a Beta prior's two
// pseudo-counts over twelve groups, EP) and the ten-step HMM's Dirichlet
// concentration and emission variance (VMP); the gain of an affine mean
// b * mu + c (EP) and an instrument's gain and offset
// (examples/families/learn_calibration.fg, EP and VMP).
//
//	go test -run '^$' -bench LearnNet -benchtime 3x ./infer/run/
func BenchmarkLearnNet(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"groups_kl", netGroups("kl")},
		{"hmm_vmp", netHMM("alpha(0)", "learn c, s")},
		{"affine_b_kl", netAffine("kl", "learn b")},
		{"calibration", netCalibration},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := compile.CompileSource("learn_net.fg", []byte(c.src), compile.Options{})
			if err != nil {
				b.Fatal(err)
			}
			var evals int
			b.ResetTimer()
			cpu0 := testkit.ProcessCPU(b)
			for i := 0; i < b.N; i++ {
				_, _, trace, err := Learn(context.Background(), m, Options{})
				if err != nil {
					b.Fatal(err)
				}
				evals = len(trace)
			}
			b.ReportMetric(float64(testkit.ProcessCPU(b)-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(evals), "evals")
		})
	}
}
