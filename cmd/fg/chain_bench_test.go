package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// randomWalkFG is a random walk observed with noise at every step, written
// as users write it: a conditional per step, a reading per step; T is a
// param set from the command line.
const randomWalkFG = `model random_walk
param T = 1000
data y = random_normal(1, T, 0, 3)
latent x: real[T]
x[0] ~ normal(0, 10)
for t in 1..T { x[t] ~ normal(x[t-1], 1) }
for t in 0..T { y[t] ~ normal(x[t], 9) }
infer ep
`

// BenchmarkRunRandomWalk is `fg run rw.fg --set T=…` on the whole path:
// parse, compile, infer/run, infer/fgraph's forward–backward pass and the
// table. The cost per step must not grow with T (T = 10⁶ without -short):
//
//	go test -run '^$' -bench RunRandomWalk -benchmem -benchtime 2x ./cmd/fg
func BenchmarkRunRandomWalk(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rw.fg")
	if err := os.WriteFile(path, []byte(randomWalkFG), 0o644); err != nil {
		b.Fatal(err)
	}
	steps := []int{10_000, 100_000}
	if !testing.Short() {
		steps = append(steps, 1_000_000)
	}
	for _, T := range steps {
		b.Run(fmt.Sprint("T=", T), func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				if _, stderr, code := runFG("run", path, "--set", fmt.Sprint("T=", T)); code != exitOK {
					b.Fatalf("exit %d: %s", code, stderr)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(T), "ns/step")
		})
	}
}
