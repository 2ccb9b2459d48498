package bp

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/refdata"
)

func readReference(t *testing.T, path string) *refdata.LibDAI {
	t.Helper()
	r, err := refdata.ReadLibDAI(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func libdaiModels(t *testing.T) []string {
	dir := datadir.Dir()
	models, _ := filepath.Glob(filepath.Join(dir, "reference", "libdai", "*.fg"))
	if len(models) == 0 {
		t.Fatal("no libDAI models in data/reference/libdai")
	}
	for k := range models {
		models[k] = strings.TrimSuffix(models[k], ".fg")
	}
	return models
}

// compareToLibDAI runs one configuration on every model and compares with
// libDAI's output where libDAI converged (iters < maxiter): marginals and
// log Z to 1e-6 absolute.
func compareToLibDAI(t *testing.T, suffix string, s Settings) {
	for _, base := range libdaiModels(t) {
		t.Run(filepath.Base(base), func(t *testing.T) {
			ref := readReference(t, base+"."+suffix+".tsv")
			if ref.Iters >= 10000 {
				t.Skipf("libDAI did not converge (%d passes)", ref.Iters)
			}
			g, err := graph.ReadLibDAI(base+".fg", factor.Table{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), g, s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != infer.Converged {
				t.Fatalf("status %v after %d passes (libDAI: %d): %s", res.Status, res.Iterations, ref.Iters, res.Message)
			}
			t.Logf("passes %d (libDAI %d), logZ %.12g (libDAI %.12g)", res.Iterations, ref.Iters, res.LogZ, ref.LogZ)
			if d := math.Abs(res.LogZ - ref.LogZ); !(d <= 1e-6) {
				t.Errorf("logZ %.12g, libDAI %.12g (diff %.2g)", res.LogZ, ref.LogZ, d)
			}
			worst := 0.0
			for v := range g.Vars {
				want := ref.Marginals[g.VarName(v)]
				for k, p := range res.Marginals[v] {
					worst = math.Max(worst, math.Abs(p-want[k]))
				}
			}
			if !(worst <= 1e-6) {
				t.Errorf("largest marginal difference %.3g > 1e-6", worst)
			}
		})
	}
}

// Reference: libDAI BP SEQFIX, tol 1e-9.
func TestLibDAISequential(t *testing.T) {
	compareToLibDAI(t, "bp_seqfix", Settings{infer.Settings{Schedule: infer.Sequential}})
}

// Reference: libDAI BP PARALL with damping 0.5 (step s = 1 − 0.5).
func TestLibDAIParallelDamped(t *testing.T) {
	compareToLibDAI(t, "bp_parall_damp05", Settings{infer.Settings{Schedule: infer.Parallel, Damping: 0.5}})
}

// Reference: libDAI FBP with every factor weight c = 1.25 (α = 0.8), SEQFIX.
func TestLibDAIFractional(t *testing.T) {
	compareToLibDAI(t, "fbp_alpha08", Settings{infer.Settings{Divergence: infer.Alpha{A: 0.8}}})
}

// The residual and random schedules reach libDAI's SEQFIX fixed point.
func TestLibDAIOtherSchedules(t *testing.T) {
	compareToLibDAI(t, "bp_seqfix", Settings{infer.Settings{Schedule: infer.Residual}})
	compareToLibDAI(t, "bp_seqfix", Settings{infer.Settings{Schedule: infer.Random, Seed: 3}})
	compareToLibDAI(t, "bp_seqfix", Settings{infer.Settings{Schedule: infer.Sequential, Damping: 0.7}})
}
