package mcmc

import (
	"context"
	"slices"
	"testing"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/internal/datadir"
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
	g, err := graph.ReadLibDAI(datadir.Path("reference", "libdai", "ising_grid10x10_w1_seed2.fg"))
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
// kept) sweeps; reports the smallest bulk ESS per CPU second.
func BenchmarkChainProbitWalk500(b *testing.B) { benchChainWalk(b, 500, 1000) }

// BenchmarkChainProbitWalk5000: the same on a 5000-step walk, 4 × (100 +
// 500) sweeps.
func BenchmarkChainProbitWalk5000(b *testing.B) { benchChainWalk(b, 5000, 500) }

func benchChainWalk(b *testing.B, T, samples int) {
	p := probitWalkProblem(T, 0.1)
	minESS := 0.0
	for b.Loop() {
		res, err := RunChain(context.Background(), p, ChainSettings{Samples: samples, Burnin: samples / 5, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		minESS = slices.Min(res.ESS)
	}
	b.ReportMetric(minESS, "minESS")
}
