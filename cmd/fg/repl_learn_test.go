package main

import (
	"path/filepath"
	"testing"
)

// TestREPLLearnFactorGraph: models compiled to factor graphs learn in the
// REPL as in fg run: the learn-on-a-factor-graph examples (a GP with a
// latent bias, a random walk's variance from probit labels, a GP with a
// hierarchy, an AR(1) coefficient and drift), whose session then holds the
// learned values.
func TestREPLLearnFactorGraph(t *testing.T) {
	for _, c := range []struct{ file, learned, check string }{
		{"learn_gp_bias.fg", "ell  1 → 1.004", "abs(sf2 / 7.420235 - 1) < 1e-4"},
		{"learn_random_walk.fg", "q  0.3 → 0.04764", "abs(q - 0.0476394) < 1e-5"},
		{"learn_gp_hierarchy.fg", "tau2  1 → 0.5115", "abs(ell / 0.9554617 - 1) < 1e-4"},
		{"learn_ar.fg", "a  0.5 → 0.6885", "abs(d - 0.428995545) < 1e-7"},
	} {
		t.Run(c.file, func(t *testing.T) {
			r := startREPL(t, filepath.Join("..", "..", "examples", c.file))
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

// TestREPLLearnNet: a model with Beta latents (a typed factor graph)
// learns its prior's pseudo-counts in the REPL as in fg run
// (examples/families/learn_pseudocounts.fg), and the session holds them.
func TestREPLLearnNet(t *testing.T) {
	r := startREPL(t, filepath.Join("..", "..", "examples", "families", "learn_pseudocounts.fg"))
	r.expect("fg> ")
	r.typeLine(":run")
	r.expect("a  1 → 1.624")
	r.expect("fg> ")
	r.typeLine("abs(b / 2.96039003495 - 1) < 1e-6")
	r.expect("true")
	r.typeLine(":quit")
}

// TestREPLLearnNetAffine: a learned gain and offset of an affine mean in a
// typed factor graph (examples/families/learn_calibration.fg) in the REPL,
// whose session then holds them.
func TestREPLLearnNetAffine(t *testing.T) {
	r := startREPL(t, filepath.Join("..", "..", "examples", "families", "learn_calibration.fg"))
	r.expect("fg> ")
	r.typeLine(":run")
	r.expect("gain    1 → 1.139")
	r.expect("fg> ")
	r.typeLine("abs(offset / -1.22311318 - 1) < 1e-6")
	r.expect("true")
	r.typeLine(":quit")
}
