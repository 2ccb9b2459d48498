package mcmc

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"
)

// sameBits reports whether a and b hold the same float64 bit patterns.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// withProcs runs f with GOMAXPROCS set to p.
func withProcs(p int, f func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
	f()
}

// TestDiagnosticsParallelBitIdentical: the per-element summaries, computed
// on GOMAXPROCS goroutines (forEach), are bit-identical on 1 and 3 procs,
// for the elliptical slice sampler and for Gibbs.
func TestDiagnosticsParallelBitIdentical(t *testing.T) {
	g := newGP(t, 12)
	var ess [2]*Result
	var gib [2]*GibbsResult
	for i, p := range []int{1, 3} {
		withProcs(p, func() {
			var err error
			if ess[i], err = RunESS(context.Background(), g.problem(), Settings{Samples: 300, Seed: 4}); err != nil {
				t.Fatal(err)
			}
			if gib[i], err = RunGibbs(context.Background(), smallGraph(), GibbsSettings{Samples: 300, Seed: 4}); err != nil {
				t.Fatal(err)
			}
		})
	}
	for name, pair := range map[string][2][]float64{
		"Mean": {ess[0].Mean, ess[1].Mean}, "Var": {ess[0].Var, ess[1].Var},
		"MeanSE": {ess[0].MeanSE, ess[1].MeanSE}, "VarSE": {ess[0].VarSE, ess[1].VarSE},
		"ESS": {ess[0].ESS, ess[1].ESS}, "RHat": {ess[0].RHat, ess[1].RHat},
	} {
		if !sameBits(pair[0], pair[1]) {
			t.Errorf("ESS sampler %s differs between 1 and 3 procs", name)
		}
	}
	for v := range gib[0].Probs {
		if !sameBits(gib[0].Probs[v], gib[1].Probs[v]) || !sameBits(gib[0].ProbsSE[v], gib[1].ProbsSE[v]) ||
			!sameBits(gib[0].ESS[v], gib[1].ESS[v]) || !sameBits(gib[0].RHat[v], gib[1].RHat[v]) {
			t.Errorf("Gibbs summaries of variable %d differ between 1 and 3 procs", v)
		}
	}
}
