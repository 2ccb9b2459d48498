package mcmc

import (
	"context"
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
