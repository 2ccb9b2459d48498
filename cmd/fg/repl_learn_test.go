package main

import (
	"path/filepath"
	"testing"
)

// TestREPLLearnFactorGraph: a model compiled to a factor graph learns in
// the REPL as in fg run (examples/learn_random_walk.fg: a random walk's
// process variance from probit labels).
func TestREPLLearnFactorGraph(t *testing.T) {
	f := filepath.Join("..", "..", "examples", "learn_random_walk.fg")
	c := startREPL(t, f)
	c.expect("fg> ")
	c.typeLine(":run")
	c.expect("q  0.3 → 0.04764")
	c.expect("fg> ")
	// The session's params are the learned values.
	c.typeLine("abs(q - 0.0476394) < 1e-5")
	c.expect("true")
	c.typeLine(":quit")
}
