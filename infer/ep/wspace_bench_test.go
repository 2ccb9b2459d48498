package ep

import (
	"fmt"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// wsBenchSizes are linear blocks: spam-sized (M = 3000 sites, N = 58) and
// M = 2000, N = 30.
var wsBenchSizes = [][2]int{{3000, 58}, {2000, 30}}

// wsBenchEngine builds a probit linear model of M sites on w ∈ R^N on the
// given path, warm-started from the sites after one weight-space sequential
// sweep so that both paths start from the same non-trivial sites.
func wsBenchEngine(b *testing.B, m, n int, sched infer.Schedule, mode pathMode) *engine {
	p := linearProblem(m, n, Probit{}, 5)
	r, _ := newRule(nil, 1)
	warm, err := newEngine(p, Settings{Refresh: -1, space: weightPath}, r)
	if err != nil {
		b.Fatal(err)
	}
	if warm.st, err = warm.recompute(warm.sites, true); err != nil {
		b.Fatal(err)
	}
	if err := warm.sweepSequential(1); err != nil {
		b.Fatal(err)
	}
	q := *p
	q.Init = warm.sites
	e, err := newEngine(&q, Settings{Settings: infer.Settings{Schedule: sched}, Refresh: -1, space: mode}, r)
	if err != nil {
		b.Fatal(err)
	}
	if e.pr.weight != (mode == weightPath) {
		b.Fatalf("path %d not taken", mode)
	}
	if e.st, err = e.recompute(e.sites, e.sequential()); err != nil {
		b.Fatal(err)
	}
	return e
}

func pathName(mode pathMode) string {
	if mode == weightPath {
		return "weight"
	}
	return "site"
}

// BenchmarkLinearSweepSequential: one sequential sweep of rank-one updates
// (no refresh) — O(M²) per site in site space, O(N²) in weight space.
func BenchmarkLinearSweepSequential(b *testing.B) {
	for _, sz := range wsBenchSizes {
		for _, mode := range []pathMode{weightPath, sitePath} {
			b.Run(fmt.Sprintf("M=%d,N=%d/%s", sz[0], sz[1], pathName(mode)), func(b *testing.B) {
				e := wsBenchEngine(b, sz[0], sz[1], infer.Sequential, mode)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := e.sweepSequential(1); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLinearSweepParallel: one parallel sweep (all site updates and one
// recomputation; the recomputation is also what a sequential refresh costs)
// — O(M³) in site space, O(M N² + N³) in weight space.
func BenchmarkLinearSweepParallel(b *testing.B) {
	for _, sz := range wsBenchSizes {
		for _, mode := range []pathMode{weightPath, sitePath} {
			b.Run(fmt.Sprintf("M=%d,N=%d/%s", sz[0], sz[1], pathName(mode)), func(b *testing.B) {
				e := wsBenchEngine(b, sz[0], sz[1], infer.Parallel, mode)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := e.sweepParallel(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
