package ep

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// TestSiteCovKept: with KeepCov a sequential run keeps its running Σ_f,
// which equals Σ_f recomputed from scratch from the final sites (Cov: one
// factorisation of B) to 1e-10, and gives the same marginals and log Z_EP
// (to 1e-10) as a run without it; the parallel schedule and runs without
// KeepCov keep nothing. Probit GP classification with M = 60 and 300 sites
// (below and above delayMin, where the sweeps delay their updates).
func TestSiteCovKept(t *testing.T) {
	for _, m := range []int{60, 300} {
		p, _, _ := probitProblem(m, 5)
		s := settings(infer.Sequential, infer.KL{})
		plain := run(t, p, s)
		if _, ok := plain.SiteCov(); ok {
			t.Errorf("M = %d: covariance kept without KeepCov", m)
		}
		s.KeepCov = true
		kept := run(t, p, s)
		got, ok := kept.SiteCov()
		if !ok {
			t.Fatalf("M = %d: KeepCov kept no covariance", m)
		}
		want, err := kept.Cov()
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := 0; i < m; i++ {
			for j := i; j < m; j++ {
				worst = math.Max(worst, math.Abs(got.At(i, j)-want.At(i, j)))
			}
		}
		if worst > 1e-10 {
			t.Errorf("M = %d: max |Σ_running − Σ_recomputed| = %g", m, worst)
		}
		close(t, "mean", kept.FMean, plain.FMean, 1e-10)
		close(t, "var", kept.FVar, plain.FVar, 1e-10)
		close(t, "log Z", []float64{kept.LogZ}, []float64{plain.LogZ}, 1e-10)

		s.Schedule = infer.Parallel
		if _, ok := run(t, p, s).SiteCov(); ok {
			t.Errorf("M = %d: the parallel schedule kept a covariance", m)
		}
	}
}
