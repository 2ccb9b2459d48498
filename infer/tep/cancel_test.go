package tep

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// countdown is a context whose Err turns to Canceled after n calls, so that
// a test can cancel at a chosen check without timing.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestCancelMidSweep: the context is checked per site, not once per sweep
// (a sweep at n = k = 1500 takes seconds), in the sequential sweep, the
// parallel proposals and the rebuild; a run canceled there is Canceled with
// a finite partial posterior (that after the last site update, or the
// previous sweep's), and its marginals are those of the state's factor.
// Canceled before any update the posterior is the prior, reported in O(k²)
// (finish's atPrior path): it equals the general O(k³) computation, which
// the parallel run canceled in its first rebuild takes with the prior's
// factor, and the prior scale matrix itself.
func TestCancelMidSweep(t *testing.T) {
	p := tpProblem(60, 5)
	results := map[string]*Result{}
	// Checks in the first sweep: 1 before it, 1 per site (60), 1 every
	// refreshCheck sites of the rebuild; after nil answers the next is Canceled.
	for _, c := range []struct {
		name           string
		sched          infer.Schedule
		after, updates int
	}{
		{"sequential, mid sweep", infer.Sequential, 31, 30},
		{"sequential, in the rebuild", infer.Sequential, 62, 60},

		{"parallel, in the proposals", infer.Parallel, 31, 0},
		{"parallel, in the rebuild", infer.Parallel, 62, 60},
	} {
		res, err := Run(&countdown{Context: context.Background(), n: c.after}, p, infer.Settings{Schedule: c.sched}, nil)
		if err != context.Canceled || res == nil || res.Status != infer.Canceled {
			t.Fatalf("%s: %v, %+v", c.name, err, res)
		}
		if res.Iterations != 0 || res.Updates != c.updates {
			t.Errorf("%s: stopped after %d sweeps and %d updates, want 0 and %d", c.name, res.Iterations, res.Updates, c.updates)
		}
		for i, v := range res.Var() {
			if !(v > 0) || math.IsInf(v, 0) || math.IsNaN(res.Mean[i]) {
				t.Fatalf("%s: element %d: %g ± %g", c.name, i, res.Mean[i], math.Sqrt(v))
			}
		}
		t.Logf("%s: %d sweeps, %d updates, mean[0] %.4f", c.name, res.Iterations, res.Updates, res.Mean[0])
		results[c.name] = res
	}
	fast, slow := results["parallel, in the proposals"], results["parallel, in the rebuild"]
	for i := range fast.Mean {
		for j := range fast.Mean {
			if d := fast.Scale.At(i, j) - slow.Scale.At(i, j); !(math.Abs(d) <= 1e-12) || !(math.Abs(fast.Scale.At(i, j)-p.Scale.At(i, j)) <= 1e-12) {
				t.Fatalf("prior scale (%d, %d): fast %g, general %g, problem %g", i, j, fast.Scale.At(i, j), slow.Scale.At(i, j), p.Scale.At(i, j))
			}
		}
		if fast.Mean[i] != 0 || !(math.Abs(slow.Mean[i]) <= 1e-12) {
			t.Fatalf("prior mean %d: fast %g, general %g", i, fast.Mean[i], slow.Mean[i])
		}
	}
}
