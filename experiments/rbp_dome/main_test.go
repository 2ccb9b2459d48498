package main

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/stdlib"
)

// One repetition end to end: every method gives finite errors in [0, 1],
// and the files are written.
func TestExperimentSmoke(t *testing.T) {
	c := config{reps: 1, seed: 3, reading: "variance", out: t.TempDir(), maxIter: 300, tol: 1e-9, rbpC: []float64{0.1}}
	runs, err := experiment(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2*len(methods(c)) {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		if !(r.err >= 0 && r.err <= 1) {
			t.Errorf("%s %s: error %v", r.cond, r.method, r.err)
		}
	}
	if err := write(c, runs); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"runs.csv", "summary.csv", "errors.png"} {
		if st, err := os.Stat(filepath.Join(c.out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// The model's tables are exp(h x) and exp(−J x_i x_j) in libDAI order.
func TestDomeModelTables(t *testing.T) {
	dome := stdlib.GeodesicDome()
	g := domeModel(dome, rand.New(rand.NewPCG(1, 1)), condition{"strong", 5, 5}, "variance")
	if len(g.Vars) != 60 || g.NumFactors() != 150 {
		t.Fatalf("%d vars, %d factors", len(g.Vars), g.NumFactors())
	}
	for _, f := range g.Factors() {
		switch f.Kind.(type) {
		case factor.Field:
			h := f.Scalar
			if f.ScalarName != "h" || !(math.Abs(f.Table[1]-math.Exp(h)) <= 1e-12) || !(math.Abs(f.Table[0]-math.Exp(-h)) <= 1e-12) {
				t.Fatalf("field table %v for h %v", f.Table, h)
			}
		case factor.Ising:
			J := -f.Scalar // the coupling in the paper's sign: exp(−J x_i x_j), J ≥ 0
			if f.ScalarName != "J" || J < 0 || !(math.Abs(f.Table[0]-math.Exp(-J)) <= 1e-12) || !(math.Abs(f.Table[1]-math.Exp(J)) <= 1e-9*math.Exp(J)) {
				t.Fatalf("ising table %v for J %v", f.Table, J)
			}
		}
	}
}
