package mcmc

import (
	"context"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/testkit"
)

// BenchmarkESSGP50: 1000 elliptical slice iterations (4 chains × 250) on
// GP regression with n = 50, including the summaries.
func BenchmarkESSGP50(b *testing.B) {
	g := newGP(b, 50)
	for b.Loop() {
		if _, err := RunESS(context.Background(), g.problem(), Settings{Samples: 200, Burnin: 50, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkESSGP50Long: 4 chains × 5000 elliptical slice iterations on
// the same GP, where sampling, not the summaries, dominates.
func BenchmarkESSGP50Long(b *testing.B) {
	g := newGP(b, 50)
	for b.Loop() {
		if _, err := RunESS(context.Background(), g.problem(), Settings{Samples: 4000, Burnin: 1000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGibbsGrid10x10: 4 chains × 1500 sweeps of the 10×10 libDAI grid.
func BenchmarkGibbsGrid10x10(b *testing.B) {
	g, err := graph.ReadLibDAI(datadir.Path("reference", "libdai", "ising_grid10x10_w1_seed2.fg"), factor.Table{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := RunGibbs(context.Background(), g, GibbsSettings{Samples: 1000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChainProbitWalk500: particle Gibbs (RunChain, default
// particles) on the 500-step probit walk, 4 chains × (200 burn-in + 1000
// kept) sweeps; reports the smallest bulk ESS over the 501 elements and
// that ESS per second of process CPU time.
func BenchmarkChainProbitWalk500(b *testing.B) {
	p := probitWalkProblem(500, 0.1)
	benchWalk(b, func() (*Result, error) {
		return RunChain(context.Background(), p, ChainSettings{Samples: 1000, Burnin: 200, Seed: 1})
	})
}

// BenchmarkChainProbitWalk5000: the same on a 5000-step walk, 4 × (100 +
// 500) sweeps.
func BenchmarkChainProbitWalk5000(b *testing.B) {
	p := probitWalkProblem(5000, 0.1)
	benchWalk(b, func() (*Result, error) {
		return RunChain(context.Background(), p, ChainSettings{Samples: 500, Burnin: 100, Seed: 1})
	})
}

// BenchmarkESSProbitWalk500: elliptical slice sampling on the dense joint
// prior of the 500-step walk (K[i, j] = 1 + q·min(i, j)), the sampler
// mcmc ran on chains before particle Gibbs, 4 chains × (2000 burn-in +
// 10000 kept) iterations (infer mcmc's defaults); the same metrics.
func BenchmarkESSProbitWalk500(b *testing.B) {
	const T, q = 500, 0.1
	cp := probitWalkProblem(T, q)
	k := mat.NewSymDense(T+1, nil)
	for i := 0; i <= T; i++ {
		for j := i; j <= T; j++ {
			k.SetSym(i, j, 1+q*float64(i))
		}
	}
	p := Problem{Mean: make([]float64, T+1), Cov: k, LogLik: func(w []float64) float64 {
		s := 0.0
		for t, site := range cp.Sites {
			s += site.LogLik(w[t])
		}
		return s
	}}
	benchWalk(b, func() (*Result, error) {
		return RunESS(context.Background(), p, Settings{Samples: 10000, Burnin: 2000, Seed: 1})
	})
}

func benchWalk(b *testing.B, run func() (*Result, error)) {
	minESS, cpu := 0.0, 0.0
	for b.Loop() {
		at := testkit.ProcessCPU(b)
		res, err := run()
		if err != nil {
			b.Fatal(err)
		}
		cpu = (testkit.ProcessCPU(b) - at).Seconds()
		minESS = slices.Min(res.ESS)
	}
	b.ReportMetric(minESS, "minESS")
	b.ReportMetric(minESS/cpu, "minESS/cpu-s")
}
