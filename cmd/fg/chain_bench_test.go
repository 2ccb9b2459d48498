package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/benchdata"
)

// randomWalkFG is the random walk of the chain measurements, T a param
// set from the command line.
const randomWalkFG = benchdata.RandomWalkSource

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

// BenchmarkGraphDOT is `fg graph rw.fg --set T=100000` on the whole path:
// parse, compile and the DOT of the 10⁵-step walk's 2·10⁵ nodes, written
// to a discarding stdout as `fg graph … > /dev/null`:
//
//	go test -run '^$' -bench GraphDOT -benchmem ./cmd/fg
func BenchmarkGraphDOT(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rw.fg")
	if err := os.WriteFile(path, []byte(randomWalkFG), 0o644); err != nil {
		b.Fatal(err)
	}
	defer reportCPU(b)()
	for b.Loop() {
		var stderr bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr}
		if code := e.main([]string{"graph", path, "--set", "T=100000"}); code != exitOK {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}
