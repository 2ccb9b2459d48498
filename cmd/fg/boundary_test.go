package main

import (
	"path/filepath"
	"testing"

	"github.com/fg-infer/fg/internal/session"
)

// TestBoundaryAxes: the decision-boundary axes are named after the data
// the inputs are rows of — the csv header of a GP's X (x1, x2), the data
// name and column of an inline matrix (X[·, 0]) — and the grid is a
// display prediction that the gold standards may answer from draws.
func TestBoundaryAxes(t *testing.T) {
	gp := filepath.Join("..", "..", "examples", "gpml", "se_probit.fg")
	for _, c := range []struct {
		path         string
		xlab, ylabel string
	}{
		{filepath.Join("..", "..", "examples", "toy5.fg"), "X[·, 0]", "X[·, 1]"},
		{gp, "x1", "x2"},
	} {
		m, err := session.Load(c.path)
		if err != nil {
			t.Fatal(err)
		}
		b := addBoundaryGrid(m.Compiled())
		if b == nil {
			t.Fatalf("%s: no boundary grid", c.path)
		}
		if b.XLabel != c.xlab || b.YLabel != c.ylabel {
			t.Errorf("%s: axes %q, %q; want %q, %q", c.path, b.XLabel, b.YLabel, c.xlab, c.ylabel)
		}
		ps := m.Compiled().Predicts
		if p := ps[len(ps)-1]; p.Name != boundaryPred || !p.Display {
			t.Errorf("%s: the grid prediction %q is not marked Display", c.path, p.Name)
		}
	}
}
