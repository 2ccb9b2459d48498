// Command beforeafter measures a change to fg end to end: it builds the fg
// binary at a base revision and at the head (the working tree by default),
// runs each benchmark case with both binaries alternately, as separate
// processes, and prints a markdown table of their CPU time (user + system)
// and peak resident set size, read from the operating system's rusage of
// each process (wait4), with the ratios of the medians and whether the two
// binaries gave the same output.
//
//	go run ./experiments/beforeafter -base REV [-head REV] [-n 5] [-cases bp,ep,...]
//
// The base is checked out in a temporary detached git worktree, built with
// `go build ./cmd/fg` and the worktree removed. A case is an example of the
// repository (the working tree's copy, for both binaries) or a model
// written into a temporary folder (cases.go): the binary's start-up, BP on
// a 300×300 Ising grid, EP on a GPML dataset and on a generated GP of 1000
// sites, FITC EP on a GPML dataset and on 10⁴ sites, a random walk of 10⁶
// steps, `fg check` on the walk and on a 1000×1000 grid, and learning a
// GP's hyperparameters.
// Every case runs on ef3dc6c, the commit before the one-core redesign.
//
// Runs alternate base, head, head, base, … (n of each), so that a load that
// drifts during the measurement weighs on both sides alike. CPU time is the
// measure to read on a shared machine: wall time grows with the load, CPU
// time much less; the table gives the 1-minute load average of the runs.
// Before the timed runs each side runs the case once more, with `--json`
// for `fg run` cases, and the two outputs are compared: numbers to -tol
// (absolute up to magnitude 1, relative above), everything else exactly,
// except the fields that differ between any two runs (`seconds`,
// `examples/s`) and the format's `version`.
//
// Peak RSS is ru_maxrss, which on Linux includes the high-water mark of
// this process at the start of the child: the header prints it, a floor
// under the small cases' peaks. Unix only (rusage_unix.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/fg-infer/fg/internal/benchdata"
)

type config struct {
	base, head string
	n          int
	cases      string
	tol        float64
	timeout    time.Duration
	keep       bool
}

func main() {
	var c config
	flag.StringVar(&c.base, "base", "", "the revision to compare against (required), e.g. ef3dc6c or main")
	flag.StringVar(&c.head, "head", "", "the revision to measure (default: the working tree, uncommitted changes included)")
	flag.IntVar(&c.n, "n", 5, "timed runs of each side per case")
	flag.StringVar(&c.cases, "cases", "all", "cases to run, comma-separated: "+caseNames())
	flag.Float64Var(&c.tol, "tol", 1e-9, "largest difference of two numbers in the outputs counted as the same (absolute up to magnitude 1, relative above)")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Minute, "a run is killed after this long")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary folder (binaries, inputs, outputs) and print its path")
	flag.Parse()
	if c.base == "" || c.n < 1 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./experiments/beforeafter -base REV [-head REV] [-n 5] [-cases LIST]")
		flag.PrintDefaults()
		os.Exit(2)
	}
	if !rusageSupported {
		fmt.Fprintf(os.Stderr, "beforeafter: needs a unix system (peak RSS from wait4's rusage), not %s\n", runtime.GOOS)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := measureAll(ctx, c, os.Stdout); err != nil {
		stop()
		fmt.Fprintln(os.Stderr, "beforeafter:", err)
		os.Exit(1)
	}
}

func caseNames() string {
	var names []string
	for _, c := range cases() {
		names = append(names, c.name)
	}
	return strings.Join(names, ",")
}

// measureAll builds both binaries, runs the chosen cases and writes the
// report to w.
func measureAll(ctx context.Context, c config, w io.Writer) error {
	chosen, err := selectCases(c.cases)
	if err != nil {
		return err
	}
	repo, err := git(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "fg-beforeafter-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintln(os.Stderr, "beforeafter: files in", work)
	} else {
		defer os.RemoveAll(work)
	}
	base, head, err := buildBoth(ctx, c, repo, work)
	if err != nil {
		return err
	}
	start, loadStart := time.Now(), benchdata.LoadAvg()
	var results []caseResult
	for _, bc := range chosen {
		r, err := measureCase(ctx, c, bc, repo, filepath.Join(work, bc.name), base, head)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	floor := selfPeak()
	for i, bc := range chosen { // after every timed run: decoding the outputs raises this process's peak RSS
		results[i].agree = compareOutputs(bc, filepath.Join(work, bc.name), c.tol)
	}
	writeHeader(w, c, base, head, start, loadStart, floor, chosen)
	writeTable(w, results)
	return nil
}

// buildBoth builds the base and head binaries into work.
func buildBoth(ctx context.Context, c config, repo, work string) (base, head binary, err error) {
	base = binary{side: "base", path: filepath.Join(work, "fg-base")}
	head = binary{side: "head", path: filepath.Join(work, "fg-head")}
	fmt.Fprintf(os.Stderr, "beforeafter: building base %s\n", c.base)
	if base.label, err = build(ctx, repo, c.base, base.path); err != nil {
		return base, head, err
	}
	fmt.Fprintf(os.Stderr, "beforeafter: building head %s\n", orElse(c.head, "(working tree)"))
	head.label, err = build(ctx, repo, c.head, head.path)
	return base, head, err
}

func orElse(s, ifEmpty string) string {
	if s == "" {
		return ifEmpty
	}
	return s
}

// measureCase sets a case up in dir, runs each side once for the output
// comparison and then n timed times, alternating base, head, head, base.
// A side that fails stops being run; the error is the result's, not the
// command's, so the other cases still run (only an interrupt stops them).
func measureCase(ctx context.Context, c config, bc benchCase, repo, dir string, base, head binary) (caseResult, error) {
	r := caseResult{name: bc.name}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	if bc.setup != nil {
		if err := bc.setup(dir); err != nil {
			return r, fmt.Errorf("%s: %v", bc.name, err)
		}
	}
	args := bc.args(repo, dir)
	compared := args
	if bc.json {
		compared = append(compared[:len(compared):len(compared)], "--json")
	}
	fmt.Fprintf(os.Stderr, "beforeafter: %s: fg %s\n", bc.name, strings.Join(args, " "))
	for _, b := range []binary{base, head} {
		if _, err := run(ctx, b.path, compared, dir, outputPath(dir, b.side), c.timeout); err != nil {
			r.setErr(b.side, err)
		}
	}
	for i := range c.n {
		order := []binary{base, head}
		if i%2 == 1 {
			order = []binary{head, base}
		}
		for _, b := range order {
			if r.err(b.side) != nil {
				continue
			}
			s, err := run(ctx, b.path, args, dir, "", c.timeout)
			if err != nil {
				r.setErr(b.side, err)
				continue
			}
			r.add(b.side, s)
			fmt.Fprintf(os.Stderr, "  %s %d: CPU %.3f s, peak %.0f MiB, wall %.3f s, load %.1f\n",
				b.side, i+1, s.cpu.Seconds(), peakMiB(s), s.wall.Seconds(), s.load)
		}
	}
	return r, ctx.Err()
}

func outputPath(dir, side string) string { return filepath.Join(dir, side+".out") }

func (r *caseResult) err(side string) error {
	if side == "base" {
		return r.baseErr
	}
	return r.headErr
}

func (r *caseResult) setErr(side string, err error) {
	if side == "base" {
		r.baseErr = err
	} else {
		r.headErr = err
	}
}

func (r *caseResult) add(side string, s sample) {
	if side == "base" {
		r.base = append(r.base, s)
	} else {
		r.head = append(r.head, s)
	}
}

// compareOutputs compares the outputs of the untimed runs of a case.
func compareOutputs(bc benchCase, dir string, tol float64) agreement {
	a, b := outputPath(dir, "base"), outputPath(dir, "head")
	if bc.json {
		return compareJSON(a, b, tol)
	}
	return compareText(a, b)
}

// writeHeader says what was compared, where and under what load.
func writeHeader(w io.Writer, c config, base, head binary, start time.Time, loadStart float64, floor int64, chosen []benchCase) {
	host, _ := os.Hostname()
	fmt.Fprintf(w, "fg before/after: base %s (%s), head %s\n\n", c.base, base.label, head.label)
	fmt.Fprintf(w, "%s, %s on %s/%s, %d CPUs, GOMAXPROCS=%s; %d timed runs of each side per case, alternated; "+
		"1-minute load average %.1f at the start, %.1f at the end (%s).\n", start.UTC().Format("2006-01-02 15:04 MST"),
		host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), orElse(os.Getenv("GOMAXPROCS"), "unset"), c.n,
		loadStart, benchdata.LoadAvg(), time.Since(start).Round(time.Second))
	fmt.Fprintf(w, "CPU = user + system time of the fg process; peak = its ru_maxrss (not below this process's own %.0f MiB); "+
		"ratios are of the medians; output: the `--json` (fg run) or text (fg check) of the two binaries, numbers to %g.\n\n",
		float64(floor)/(1<<20), c.tol)
	for _, bc := range chosen {
		fmt.Fprintf(w, "- %s: %s\n", bc.name, bc.about)
	}
	fmt.Fprintln(w)
}
