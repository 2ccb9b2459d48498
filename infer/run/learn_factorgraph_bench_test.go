package run

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/testkit"
)

// BenchmarkLearnFactorGraph times whole learning runs on factor graphs and
// reports the process CPU time per run (cpu-ms/op) and the evaluations of
// the evidence: the three examples (a GP classifier with a latent bias and
// a GP with a hierarchy, learned on the joint block; a probit random walk
// of 40 steps, learned on the chain's messages) and the 5000-step walk
// with Gaussian observations of TestLearnFactorGraphOptimum (messages);
// an AR(1) coefficient and drift (examples/learn_ar.fg, messages) and the
// same with a random walk added (arLoop, the joint block).
//
//	go test -run '^$' -bench LearnFactorGraph -benchtime 3x ./infer/run/
func BenchmarkLearnFactorGraph(b *testing.B) {
	cases := []struct{ name, file, src string }{
		{"gp_bias", "../../examples/learn_gp_bias.fg", ""},
		{"gp_hierarchy", "../../examples/learn_gp_hierarchy.fg", ""},
		{"walk_probit", "../../examples/learn_random_walk.fg", ""},
		{"walk_long", "", walkLong},
		{"ar", "../../examples/learn_ar.fg", ""},
		{"ar_loop", "", arLoop},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var m *compile.Model
			var err error
			if c.file != "" {
				m, err = compile.CompileFile(c.file, compile.Options{})
			} else {
				m, err = compile.CompileSource(c.name+".fg", []byte(c.src), compile.Options{})
			}
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
