package main

import (
	"path/filepath"
	"testing"
)

// BenchmarkRunToy5 measures `fg run examples/toy5.fg` with and without
// --plot (three EP lines and exact; the plot's decision-boundary grid is
// 61×61, answered by exact from 1000 posterior draws). The aim: --plot adds
// under a second.
func BenchmarkRunToy5(b *testing.B) {
	toy5 := filepath.Join("..", "..", "examples", "toy5.fg")
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			if _, stderr, code := runFG("run", toy5); code != exitOK {
				b.Fatalf("exit %d: %s", code, stderr)
			}
		}
	})
	b.Run("plot", func(b *testing.B) {
		out := filepath.Join(b.TempDir(), "toy5.png")
		for b.Loop() {
			if _, stderr, code := runFG("run", toy5, "--plot", out); code != exitOK {
				b.Fatalf("exit %d: %s", code, stderr)
			}
		}
	})
	b.Run("plot_mcmc", func(b *testing.B) {
		out := filepath.Join(b.TempDir(), "toy5.png")
		for b.Loop() {
			if _, stderr, code := runFG("run", toy5, "--method", "mcmc", "--plot", out); code != exitOK {
				b.Fatalf("exit %d: %s", code, stderr)
			}
		}
	})
}
