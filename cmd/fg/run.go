package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/fg-infer/fg/cmd/fg/internal/present"
	"github.com/fg-infer/fg/expect"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/session"
)

const runUsage = "fg run FILE [--set NAME=VALUE]... [--data NAME=PATH]... [--method SPEC]... [--only LABEL]... [--json | --csv] [--all] [--weights FILE] [--plot OUT.png] [--test PATH] [--check]"

// runFlags are the options of fg run.
type runFlags struct {
	set, data, methods, only multi
	json, csv, all, check    bool
	plot, test, weights      string
}

// newRunFlagSet declares fg run's flags into f.
func newRunFlagSet(f *runFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.Var(&f.set, "set", "set param `NAME=VALUE`, VALUE an fg expression such as 0.1 or [1, 2] (repeatable)")
	fs.Var(&f.data, "data", "read data `NAME=PATH`: its csv(...) from PATH instead of the file it names (repeatable)")
	fs.Var(&f.methods, "method", "add an infer line `SPEC` written as after the keyword infer, e.g. 'ep { divergence = alpha(0.8) }' (repeatable)")
	fs.Var(&f.only, "only", "run only the infer line labelled `LABEL`, --method lines included (repeatable)")
	fs.BoolVar(&f.json, "json", false, "print JSON on stdout (docs/json.md)")
	fs.BoolVar(&f.csv, "csv", false, "print CSV on stdout")
	fs.BoolVar(&f.all, "all", false, "show every element of long vectors in the table, and of libsvm weights in JSON")
	fs.BoolVar(&f.check, "check", false, "also check the expect statements; exit 1 if one fails")
	fs.StringVar(&f.test, "test", "", "read the predict statements' new inputs from the csv file `PATH`; a label column is scored")
	fs.StringVar(&f.weights, "weights", "", "also write the weights of libsvm plates (every element's mean and var) as CSV to `FILE`")
	fs.StringVar(&f.plot, "plot", "", "also write convergence traces, marginals and decision boundaries to the PNG file `OUT.png`")
	return fs
}

func (e *env) run(args []string) int {
	var f runFlags
	fs := newRunFlagSet(&f)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return e.usageError(runUsage, "%v", err)
	}
	if len(pos) != 1 {
		return e.usageError(runUsage, "run takes one model file, got %d", len(pos))
	}
	if f.json && f.csv {
		return e.usageError(runUsage, "--json and --csv exclude each other")
	}
	// Ctrl-C and SIGTERM are wired to cancellation before the model is
	// compiled: a signal during compilation cancels the run that follows
	// (its results print as canceled) instead of killing fg unannounced.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, code := e.loadForRun(pos[0], &f)
	if m == nil {
		return code
	}
	return e.runModel(ctx, m, &f)
}

// loadForRun compiles the model with the overrides of the flags.
func (e *env) loadForRun(path string, f *runFlags) (*session.Model, int) {
	set, err := keyValues("set", f.set)
	if err != nil {
		return nil, e.usageError(runUsage, "%v", err)
	}
	data, err := keyValues("data", f.data)
	if err != nil {
		return nil, e.usageError(runUsage, "%v", err)
	}
	m, err := session.LoadWith(path, session.Overrides{Set: set, Data: data, Methods: f.methods, Only: f.only})
	if err == nil && f.test != "" {
		err = useTestFile(m, f.test)
	}
	if err != nil {
		e.printErrors(err)
		return nil, exitError
	}
	e.printWarnings(m.Compiled().Warnings)
	return m, exitOK
}

// runModel runs under ctx (Ctrl-C wired to its cancellation) and presents the results.
func (e *env) runModel(ctx context.Context, m *session.Model, f *runFlags) int {
	var boundary *present.Boundary
	if f.plot != "" {
		boundary = addBoundaryGrid(m.Compiled())
	}
	opts := []session.RunOption{session.Only(f.only...)}
	if e.stderrTTY {
		opts = append(opts, session.Progress(newProgress(e.stderr).update))
	}
	res, err := m.Run(ctx, opts...)
	if e.stderrTTY {
		clearProgress(e.stderr)
	}
	canceled := errors.Is(err, context.Canceled) || ctx.Err() != nil
	if err != nil && !canceled {
		e.printErrors(err)
		return exitError
	}
	if f.test != "" {
		if err := scoreTest(f.test, res); err != nil {
			e.printErrors(err)
			return exitError
		}
	}
	code := e.present(m, res, f, boundary)
	if canceled {
		fmt.Fprintln(e.stderr, "fg: interrupted: results are partial (status canceled)")
		return exitError
	}
	if code == exitOK && !res.Succeeded() {
		code = exitMethod // a method failed, diverged, stalled or was canceled
	}
	return code
}

// present writes the results in the chosen format, the plot and the
// expect checks, and returns the exit code.
func (e *env) present(m *session.Model, res *session.Results, f *runFlags, b *present.Boundary) int {
	code := exitOK
	if f.plot != "" {
		if err := present.WritePlot(f.plot, m.Name(), res.List, b); err != nil {
			fmt.Fprintf(e.stderr, "fg: %v\n", err)
			code = exitError
		}
	}
	if f.weights != "" {
		if err := writeWeights(f.weights, res.List); err != nil {
			fmt.Fprintf(e.stderr, "fg: %v\n", err)
			code = exitError
		}
	}
	rs := withoutPrediction(res.List, boundaryPred)
	// The latents summed over: for JSON, and for the table's note on a log
	// evidence (a list of 10⁶ names on a libDAI file, made when it is read).
	var summed []string
	var logStates float64
	if f.json || slices.ContainsFunc(rs, func(r *infer.Result) bool { return r.HasEvidence }) {
		summed, logStates = res.Model.SummedStates()
	}
	var err error
	switch {
	case f.json:
		d := present.NewDocument(m.Name(), rs)
		if f.all {
			d.ShowAll()
		}
		if len(summed) > 0 {
			d.SummedStates = present.NewSummedStates(summed, logStates)
		}
		err = present.WriteDocument(e.stdout, d)
	case f.csv:
		err = present.WriteCSV(e.stdout, rs)
	default:
		err = present.WriteTable(e.stdout, m.Name(), rs, present.TableOptions{All: f.all, Summed: summed, LogStates: logStates})
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "fg: %v\n", err)
		return exitError
	}
	if f.check && e.reportExpects(res.Expects(), !f.json && !f.csv) {
		code = exitError
	}
	return code
}

// reportExpects prints expect results (to stdout for the table, to stderr
// when stdout carries JSON or CSV) and reports whether any failed.
func (e *env) reportExpects(es []expect.Result, toStdout bool) bool {
	w := e.stderr
	if toStdout {
		w = e.stdout
		fmt.Fprintln(w)
	}
	for _, x := range es {
		fmt.Fprintln(w, x)
	}
	return expect.Failed(es)
}

// withoutPrediction returns shallow copies of the results without the
// named prediction (the internal decision-boundary grid).
func withoutPrediction(rs []*infer.Result, name string) []*infer.Result {
	out := make([]*infer.Result, len(rs))
	for i, r := range rs {
		c := *r
		c.Predictions = nil
		for _, p := range r.Predictions {
			if p.Name != name {
				c.Predictions = append(c.Predictions, p)
			}
		}
		out[i] = &c
	}
	return out
}

// writeWeights writes the results' libsvm weights to path (--weights),
// through a temporary file renamed at the end, so that path is never left
// half written; a model without libsvm weights is an error.
func writeWeights(path string, rs []*infer.Result) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("--weights: %v", err)
	}
	n, err := present.WriteWeights(tmp, rs)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644) // CreateTemp's 0600 is for the half-written file
	}
	if err == nil && n == 0 {
		err = errors.New("no result has the weights of a libsvm plate (a latent read by `dot(X[i], w)` with X = libsvm(...))")
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("--weights %s: %v", path, err)
	}
	return nil
}
