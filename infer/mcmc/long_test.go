package mcmc

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/internal/datadir"
)

// TestGibbsLibDAILong: the larger libDAI reference models (fully connected
// 10-spin Ising model, 10×10 grid) against JTREE marginals within 4
// standard errors. Skipped with -short.
func TestGibbsLibDAILong(t *testing.T) {
	if testing.Short() {
		t.Skip("long Gibbs runs; run without -short")
	}
	for _, name := range []string{"ising_full10_seed4", "ising_grid10x10_w1_seed2"} {
		g, err := graph.ReadLibDAI(datadir.Path("reference", "libdai", name+".fg"), factor.Table{})
		if err != nil {
			t.Fatal(err)
		}
		exact := readJTree(t, datadir.Path("reference", "libdai", name+".jtree.tsv"))
		res, err := RunGibbs(context.Background(), g, GibbsSettings{Samples: 20000, Seed: 21})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d sweeps in %v", name, res.Iterations, res.Runtime)
		checkMarginals(t, name, res, exact)
	}
}
