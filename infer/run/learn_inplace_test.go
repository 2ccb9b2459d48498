package run

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/compile"
)

// TestLearnFactorGraphCompilesOnce: learning on a factor graph compiles
// the model once for its first evaluation and once more for the learned
// model it returns; every other evaluation of the evidence — and the
// re-evaluations at x ± h that differentiate the factors' numbers — sets
// the learned values in place in that graph (compile.LearnFunc), so the
// compilations do not grow with the evaluations. (Not parallel: the
// counter is the process's.)
func TestLearnFactorGraphCompilesOnce(t *testing.T) {
	for _, c := range learnFGCases {
		if c.name == "walk_long" && testing.Short() {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			m := compileFGCase(t, c.file, c.src, c.replace)
			before := compile.Compiles()
			_, _, trace, err := Learn(context.Background(), m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := compile.Compiles() - before
			if len(trace) < 3 || n != 2 {
				t.Errorf("%d evaluations compiled the model %d times; want 2 (the first evaluation and the learned model)", len(trace), n)
			}
		})
	}
}
