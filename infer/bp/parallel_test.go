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
	run := func(procs int) *Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := p.Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one, four := run(1), run(4)
	if one.LogZ != four.LogZ || len(one.Trace) != len(four.Trace) {
		t.Fatalf("log Z %v vs %v, %d vs %d passes", one.LogZ, four.LogZ, len(one.Trace), len(four.Trace))
	}
	for i := range one.Trace {
		if one.Trace[i] != four.Trace[i] {
			t.Fatalf("pass %d: measure %v vs %v", i, one.Trace[i], four.Trace[i])
		}
	}
	for i := range one.Marginals {
		for k := range one.Marginals[i] {
			if one.Marginals[i][k] != four.Marginals[i][k] {
				t.Fatalf("marginal %d(%d): %v vs %v", i, k, one.Marginals[i][k], four.Marginals[i][k])
			}
		}
	}
}

// TestSpinParallelSplitIdentical: undamped parallel BP on the spin state
// gives bit-identical results on one goroutine and on four.
func TestSpinParallelSplitIdentical(t *testing.T) {
	p := isingGrid(100, 100, 5)
	s := Settings{infer.Settings{Schedule: infer.Parallel, MaxIter: 30}}
	if en, _ := newEngine(p, &s, true); en.sp == nil {
		t.Fatal("the spin state was not used")
	}
	run := func(procs int) *Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := p.Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	compareResults(t, infer.Parallel, run(4), run(1), 0)
}
