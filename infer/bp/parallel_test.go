package bp

import (
	"context"
	"runtime"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestParallelPassSplitIdentical: the parallel schedule on a 100×100 Ising
// grid (19 800 factors, several chunks) gives bit-identical marginals, log Z
// and trace on one goroutine (GOMAXPROCS 1) and on four.
func TestParallelPassSplitIdentical(t *testing.T) {
	p := isingGrid(100, 100, 3)
	s := Settings{infer.Settings{Schedule: infer.Parallel, MaxIter: 30, Damping: 0.5}}
	compareResults(t, infer.Parallel, runOn(t, p, s, 4), runOn(t, p, s, 1), 0)
}

// TestSpinParallelSplitIdentical: undamped parallel BP on the spin state
// gives bit-identical results on one goroutine and on four.
func TestSpinParallelSplitIdentical(t *testing.T) {
	p := isingGrid(100, 100, 5)
	s := Settings{infer.Settings{Schedule: infer.Parallel, MaxIter: 30}}
	if en, _ := newEngine(p, &s, true); en.sp == nil {
		t.Fatal("the spin state was not used")
	}
	compareResults(t, infer.Parallel, runOn(t, p, s, 4), runOn(t, p, s, 1), 0)
}

// runOn runs p with GOMAXPROCS procs.
func runOn(t *testing.T, p *Problem, s Settings, procs int) *Result {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	res, err := p.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
