//go:build unix

// Command stream_bench measures streaming ADF (infer/stream) on a sparse
// probit problem too large to hold in memory: it generates n training
// examples with d features and about nnz non-zeros each to a libsvm file
// (stream.Generate), streams one ADF pass (or -passes EP passes) over it with
// a N(0, 1) prior, scores a held-out file of -test examples drawn from the
// same true weights, and prints examples per second and peak memory:
//
//	go run ./experiments/stream_bench [-n 1e7] [-d 1e5] [-nnz 20] [-passes 1] [-dir /tmp] [-keep]
//
// The generated files are deleted at the end unless -keep is given. Peak
// memory is the process's VmHWM (resident high-water mark, /proc/self/status)
// and the Go runtime's Sys; neither grows with n (the engine holds O(d)
// state and one line at a time).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/stream"
	"github.com/fg-infer/fg/stdlib"
)

func main() {
	n := flag.Float64("n", 1e7, "training examples")
	d := flag.Float64("d", 1e5, "features")
	nnz := flag.Int("nnz", 20, "mean non-zeros per example")
	test := flag.Int("test", 100_000, "held-out test examples")
	passes := flag.Int("passes", 1, "passes (1 = ADF, more = EP with sites on disk)")
	dir := flag.String("dir", os.TempDir(), "folder for the generated files and EP's site file")
	keep := flag.Bool("keep", false, "keep the generated files")
	example := flag.String("example", "", "write the small data of examples/sparse_probit.fg into this folder and exit")
	flag.Parse()
	if *example != "" {
		if err := writeExample(*example); err != nil {
			fmt.Fprintln(os.Stderr, "stream_bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(int(*n), int(*d), *nnz, *test, *passes, *dir, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "stream_bench:", err)
		os.Exit(1)
	}
}

func run(n, d, nnz, ntest, passes int, dir string, keep bool) error {
	train := filepath.Join(dir, fmt.Sprintf("stream_bench_%d_%d.svm", n, d))
	testPath := filepath.Join(dir, fmt.Sprintf("stream_bench_%d_%d.test.svm", n, d))
	if !keep {
		defer os.Remove(train)
		defer os.Remove(testPath)
	}
	t0 := time.Now()
	if err := generate(train, n, d, nnz, 1); err != nil {
		return err
	}
	if err := generate(testPath, ntest, d, nnz, 2); err != nil {
		return err
	}
	st, _ := os.Stat(train)
	fmt.Printf("generated %d examples, %d features, ~%d non-zeros: %.2f GB in %.1f s\n", n, d, nnz, float64(st.Size())/1e9, time.Since(t0).Seconds())
	ones := make([]float64, d)
	for j := range ones {
		ones[j] = 1
	}
	p := &stream.Problem{PriorMean: make([]float64, d), PriorVar: ones, Lik: ep.Probit{}, Train: stream.LibSVMFile{Path: train}}
	s := &stream.Settings{Passes: passes, SiteDir: dir, ProgressEvery: 1_000_000, Progress: func(p stream.Progress) {
		if p.EndOfPass {
			fmt.Printf("  pass %d done: mean change %.3g\n", p.Pass, p.Residual)
			return
		}
		fmt.Printf("  pass %d: %d examples, %.3g examples/s\n", p.Pass, p.Examples, p.PerSecond)
	}}
	cpu0 := cpuTime()
	res, err := stream.Run(context.Background(), p, s)
	if err != nil {
		return err
	}
	cpu := cpuTime() - cpu0
	fmt.Printf("%v: %d passes over %d examples (%d non-zeros), %d updates, %d skipped\n",
		res.Status, res.Iterations, res.Examples, res.NonZeros, res.Updates, res.Skipped)
	fmt.Printf("wall %.2f s (%.3g examples/s); CPU %.2f s (%.3g examples per CPU second)\n",
		res.Runtime.Seconds(), res.PerSecond, cpu, float64(res.Examples*res.Iterations)/cpu)
	sc, err := stream.Score(context.Background(), ep.Probit{}, res.Mean, res.Var, stream.LibSVMFile{Path: testPath})
	if err != nil {
		return err
	}
	fmt.Printf("test: %d examples, accuracy %.4f, log loss %.4f\n", sc.N, sc.Accuracy, sc.LogLoss)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("peak memory: VmHWM %s, Go Sys %.1f MB, heap in use %.1f MB\n", vmHWM(), float64(ms.Sys)/1e6, float64(ms.HeapInuse)/1e6)
	return nil
}

func generate(path string, n, d, nnz int, split uint64) error {
	return generateSeed(path, n, d, nnz, 1, split)
}

func generateSeed(path string, n, d, nnz int, seed, split uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := stream.Generate(bw, n, d, nnz, seed, split); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeExample writes the data of examples/sparse_probit.fg: 300 training
// and 200 test examples over 20 features with about 5 non-zeros each
// (seed 7), and the training examples again as a dense csv (columns x1..x20,
// label ±1) for the in-memory comparison.
func writeExample(dir string) error {
	train, test := filepath.Join(dir, "sparse_train.svm"), filepath.Join(dir, "sparse_test.svm")
	if err := generateSeed(train, 300, 20, 5, 7, 1); err != nil {
		return err
	}
	if err := generateSeed(test, 200, 20, 5, 7, 2); err != nil {
		return err
	}
	m, err := stdlib.LoadLibSVM(nil, train)
	if err != nil {
		return err
	}
	y, err := stdlib.LabelSpins(m.Labels, m.Lines, train)
	if err != nil {
		return err
	}
	var b strings.Builder
	for j := range 20 {
		fmt.Fprintf(&b, "x%d,", j+1)
	}
	b.WriteString("label\n")
	for i := range m.Rows {
		row := make([]float64, 20)
		idx, val := m.Row(i)
		for k, j := range idx {
			row[j] = val[k]
		}
		for _, x := range row {
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64) + ",")
		}
		fmt.Fprintf(&b, "%g\n", y[i])
	}
	return os.WriteFile(filepath.Join(dir, "sparse_train.csv"), []byte(b.String()), 0o644)
}

// cpuTime is the process's user + system CPU time in seconds: on a shared
// machine the wall-clock rate understates what one core achieves.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// vmHWM is the resident-set high-water mark from /proc/self/status.
func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unavailable"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unavailable"
}
