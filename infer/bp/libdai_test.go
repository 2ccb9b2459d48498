package bp

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/shared"
)

// reference is one libDAI output file (shared/reference/README.md).
type reference struct {
	logZ  float64
	iters int
	marg  map[string][]float64
}

func readReference(t *testing.T, path string) reference {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := reference{marg: map[string][]float64{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		switch fs[0] {
		case "logZ":
			r.logZ, _ = strconv.ParseFloat(fs[1], 64)
		case "iters":
			r.iters, _ = strconv.Atoi(fs[1])
		case "var":
			p := make([]float64, len(fs)-2)
			for k := range p {
				p[k], _ = strconv.ParseFloat(fs[k+2], 64)
			}
			r.marg[fs[1]] = p
		}
	}
	return r
}

func libdaiModels(t *testing.T) []string {
	dir, err := shared.Dir()
	if err != nil {
		t.Skip(err)
	}
	models, _ := filepath.Glob(filepath.Join(dir, "reference", "libdai", "*.fg"))
	if len(models) == 0 {
		t.Skip("no libDAI models")
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
			if ref.iters >= 10000 {
				t.Skipf("libDAI did not converge (%d passes)", ref.iters)
			}
			g, err := graph.ReadLibDAI(base + ".fg")
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), g, s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != infer.Converged {
				t.Fatalf("status %v after %d passes (libDAI: %d): %s", res.Status, res.Iterations, ref.iters, res.Message)
			}
			t.Logf("passes %d (libDAI %d), logZ %.12g (libDAI %.12g)", res.Iterations, ref.iters, res.LogZ, ref.logZ)
			if d := math.Abs(res.LogZ - ref.logZ); d > 1e-6 {
				t.Errorf("logZ %.12g, libDAI %.12g (diff %.2g)", res.LogZ, ref.logZ, d)
			}
			worst := 0.0
			for v := range g.Vars {
				want := ref.marg[g.VarName(v)]
				for k, p := range res.Marginals[v] {
					worst = math.Max(worst, math.Abs(p-want[k]))
				}
			}
			if worst > 1e-6 {
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
