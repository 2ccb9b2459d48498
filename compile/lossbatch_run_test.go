package compile_test

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/run"
)

// TestLossBatchRunUnchanged runs examples/hinge_batches.fg (FF-EP with VQ
// and quick Laplace, 5 passes) compiled with the loss.Batch fast path and
// with the generic ad potentials: statuses, iteration counts, traces and
// every posterior mean and variance agree to 1e-10 (relative to max(1, |v|);
// the two potentials differ by rounding only, ~1e-15 per evaluation).
func TestLossBatchRunUnchanged(t *testing.T) {
	runWith := func(fast bool) []*infer.Result {
		old := compile.SetLossFastPath(fast)
		m, err := compile.CompileFile("../examples/hinge_batches.fg", compile.Options{})
		compile.SetLossFastPath(old)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := run.Run(context.Background(), m, run.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	fast, generic := runWith(true), runWith(false)
	if len(fast) != 2 || len(generic) != 2 {
		t.Fatalf("%d and %d results, want 2", len(fast), len(generic))
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-10*math.Max(1, math.Abs(b)) }
	for i, f := range fast {
		g := generic[i]
		if f.Status != g.Status || f.Iterations != g.Iterations || len(f.Trace) != len(g.Trace) {
			t.Fatalf("%s: status %v/%v, iterations %d/%d", f.Label, f.Status, g.Status, f.Iterations, g.Iterations)
		}
		for k := range f.Trace {
			if !close(f.Trace[k], g.Trace[k]) {
				t.Errorf("%s: trace[%d] %v vs %v", f.Label, k, f.Trace[k], g.Trace[k])
			}
		}
		for j, v := range f.Variables.All() {
			for k := range v.Mean {
				if !close(v.Mean[k], g.Variables.At(j).Mean[k]) || !close(v.Var[k], g.Variables.At(j).Var[k]) {
					t.Errorf("%s: %s[%d] %v ± %v vs %v ± %v", f.Label, v.Name, k, v.Mean[k], v.Var[k], g.Variables.At(j).Mean[k], g.Variables.At(j).Var[k])
				}
			}
		}
	}
}
