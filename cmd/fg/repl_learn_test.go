package main

import (
	"path/filepath"
	"testing"
)

// TestREPLLearn: models learn in the REPL as in fg run, and the session
// then holds the learned values: compiled to factor graphs (a GP with a
// latent bias, a random walk's variance from probit labels, a GP with a
// hierarchy, an AR(1) coefficient and drift) and to typed factor graphs
// (a Beta prior's pseudo-counts, an instrument's gain and offset in an
// affine mean).
func TestREPLLearn(t *testing.T) {
	for _, c := range []struct{ file, learned, check string }{
		{"learn_gp_bias.fg", "ell  1 → 1.004", "abs(sf2 / 7.420235 - 1) < 1e-4"},
		{"learn_random_walk.fg", "q  0.3 → 0.04764", "abs(q - 0.0476394) < 1e-5"},
		{"learn_gp_hierarchy.fg", "tau2  1 → 0.5115", "abs(ell / 0.9554617 - 1) < 1e-4"},
		{"learn_ar.fg", "a  0.5 → 0.6885", "abs(d - 0.428995545) < 1e-6"},
		{"families/learn_pseudocounts.fg", "a  1 → 1.624", "abs(b / 2.96039003495 - 1) < 1e-6"},
		{"families/learn_calibration.fg", "gain    1 → 1.139", "abs(offset / -1.22311318 - 1) < 1e-6"},
	} {
		t.Run(c.file, func(t *testing.T) {
			r := startREPL(t, filepath.Join("..", "..", "examples", filepath.FromSlash(c.file)))
			r.expect("fg> ")
			r.typeLine(":run")
			r.expect(c.learned)
			r.expect("fg> ")
			r.typeLine(c.check)
			r.expect("true")
			r.typeLine(":quit")
		})
	}
}
