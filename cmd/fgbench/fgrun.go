package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	fg "github.com/fg-infer/fg"
	"github.com/fg-infer/fg/internal/benchdata"
)

// runSweeps is the number of EP sweeps of the whole-run rows.
const runSweeps = 5

// gpModel is a probit GP classification model on the inputs and labels of
// the csv file %[1]q, run for runSweeps sequential sweeps. The schedule is
// named: the rows measure the sequential schedule whatever the default.
const gpModel = `model fgbench_gp
data X = csv(%[1]q, exclude = ["label"])
data y: spin[len(X)] = csv(%[1]q, column = "label")
latent f: real[len(X)] ~ gp(se(0.7, 2), X)
for i in 0..len(X) {
  y[i] ~ probit(f[i])
}
infer ep { schedule = sequential, max_iter = %[2]d, tol = 1e-300 }
`

// writeGPData writes the inputs and labels of benchdata.ProbitGP(n, n) as
// csv into dir and returns the file's path.
func writeGPData(dir string, n int) (string, error) {
	X, y := benchdata.ProbitGPData(n, uint64(n))
	var sb strings.Builder
	sb.WriteString("x1,x2,label\n")
	for i := range y {
		fmt.Fprintf(&sb, "%.17g,%.17g,%g\n", X.At(i, 0), X.At(i, 1), y[i])
	}
	path := filepath.Join(dir, fmt.Sprintf("gp%d.csv", n))
	return path, os.WriteFile(path, []byte(sb.String()), 0o644)
}

// wholeRun prints the rows of fg's whole run at size n: its time against
// algebra (5 sweeps and one Cholesky, from the EP rows), and its peak heap
// above the heap in use before it, in n×n matrices of float64.
func (b *bench) wholeRun(n int, algebra time.Duration) {
	size := fmt.Sprintf("n=%d", n)
	whole, heap := b.fgRun(n)
	b.row("fg run, 5 sequential sweeps", size, whole, "5 sweeps + one Cholesky", algebra)
	nn := 8 * float64(n) * float64(n)
	fmt.Fprintf(b.w, "fg run: peak heap\t%s\t%.0f MB\tone n×n matrix\t%.0f MB\t%.2f\t\n", size, float64(heap)/1e6, nn/1e6, float64(heap)/nn)
}

// fgRun times the whole run of the model through the Go API (what `fg run`
// does before printing: reading the csv, compiling the model with its n×n
// kernel matrix, EP, log Z and the marginals). It returns the minimum time
// over b.repeat runs and the peak heap above the heap before them
// (benchdata.PeakHeap).
func (b *bench) fgRun(n int) (time.Duration, uint64) {
	dir, err := os.MkdirTemp("", "fgbench")
	if err == nil {
		defer os.RemoveAll(dir)
	}
	var path string
	if err == nil {
		path, err = writeGPData(dir, n)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fgbench:", err)
		os.Exit(1)
	}
	src := []byte(fmt.Sprintf(gpModel, path, runSweeps))
	var t time.Duration
	heap := benchdata.PeakHeap(func() {
		t = b.time(func() {
			m, err := fg.LoadSource(filepath.Join(dir, "gp.fg"), src, fg.Overrides{})
			if err == nil {
				var res *fg.Results
				if res, err = m.Run(context.Background()); err == nil && res.All()[0].Iterations() != runSweeps {
					err = fmt.Errorf("EP stopped after %d sweeps: %s", res.All()[0].Iterations(), res.All()[0].Message())
				}
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "fgbench:", err)
				os.Exit(1)
			}
		})
	})
	return t, heap
}
