// Command fg-beam runs expectation propagation over data shards (package
// github.com/fg-infer/fg/infer/shard) on Apache Beam: one Beam job per EP
// iteration, the global posterior's natural parameters as a side input, a
// ParDo per csv shard running local EP against its cavity, and a global
// combine summing the shard sites. See docs/beam.md.
//
//	fg-beam run model.fg --shards 'data/part-*.csv' --shard_items X,y [--runner prism] [beam flags]
//
// The runner flags are Beam's own (--runner, --endpoint, --environment_type,
// --environment_config, --job_name, and Dataflow's --project, --region,
// --temp_location, ...).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/fg-infer/fg/beam/pipeline"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/safefile"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/diag"
)

var (
	shards  = flag.String("shards", "", "glob of the shards' csv files, one shard per file (required)")
	items   = flag.String("shard_items", "", "comma-separated csv() data items of the model that read each shard (required)")
	label   = flag.String("infer", "", "label of the model's ep infer line (default: the first ep line)")
	outDir  = flag.String("output_dir", "", "folder (any Beam file system) for each iteration's outputs; default: a temporary folder, removed at exit")
	retries = flag.Int("retries", 2, "resubmissions of a failed iteration job (same side input; site updates are replacements)")
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := realMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func usage(w io.Writer) int {
	fmt.Fprintln(w, "usage: fg-beam run model.fg --shards 'data/part-*.csv' --shard_items X,y [--runner prism|direct|flink|spark|dataflow|universal] [beam flags]")
	return 2
}

// parseArgs reads `run MODEL` with flags before or after the model.
func parseArgs(args []string) (string, error) {
	if len(args) == 0 || args[0] != "run" {
		return "", fmt.Errorf("the only command is run")
	}
	if err := flag.CommandLine.Parse(args[1:]); err != nil {
		return "", err
	}
	rest := flag.Args()
	if len(rest) == 0 {
		return "", fmt.Errorf("no model file")
	}
	model := rest[0]
	if err := flag.CommandLine.Parse(rest[1:]); err != nil {
		return "", err
	}
	if flag.NArg() > 0 || *shards == "" || *items == "" {
		return "", fmt.Errorf("want one model file, --shards and --shard_items")
	}
	return model, nil
}

func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flag.CommandLine.SetOutput(stderr)
	if len(args) > 0 && args[0] != "run" {
		// A portable runner starts this binary as its worker with Beam's
		// flags (--worker, --id, ...) and no command: beam.Init runs the
		// worker harness and exits.
		if err := flag.CommandLine.Parse(args); err == nil {
			beam.Init()
		}
	}
	model, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "fg-beam:", err)
		return usage(stderr)
	}
	beam.Init() // a worker started by a portable runner takes over here
	src, err := safefile.ReadFile(nil, model, safefile.MaxModel)
	if err != nil {
		fmt.Fprintln(stderr, "fg-beam:", err)
		return 1
	}
	out := *outDir
	if out == "" {
		if out, err = os.MkdirTemp("", "fg-beam-"); err != nil {
			fmt.Fprintln(stderr, "fg-beam:", err)
			return 1
		}
		defer os.RemoveAll(out)
	}
	cfg := pipeline.Config{
		Model:  pipeline.Model{Src: string(src), Path: model, Items: strings.Split(*items, ","), Label: *label},
		Shards: *shards, Out: out, Retries: *retries, Execute: beamx.Run, Log: stderr,
	}
	res, sb, paths, err := pipeline.Run(ctx, cfg)
	var de *pipeline.DataError
	if res == nil || errors.As(err, &de) {
		report(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "model %s: %d shards, %s\n", model, len(paths), res.Status)
	fmt.Fprintf(stdout, "iterations %d, time %.3gs", res.Iterations, res.Runtime.Seconds())
	if res.HasLogZ {
		fmt.Fprintf(stdout, ", log evidence %.6g", res.LogZ)
	}
	fmt.Fprintln(stdout)
	if res.Message != "" {
		fmt.Fprintln(stdout, res.Message)
	}
	for i, m := range res.Mean {
		fmt.Fprintf(stdout, "%s[%d]  %.6g ± %.4g\n", sb.Name, i, m, math.Sqrt(res.Cov.At(i, i)))
	}
	switch {
	case res.Status == infer.Canceled:
		return 1
	case !res.Status.Succeeded():
		return 3
	}
	return 0
}

// report prints an error, with source snippets for the model's errors.
func report(w io.Writer, err error) {
	var list ast.ErrorList
	var de *pipeline.DataError
	if errors.As(err, &de) {
		fmt.Fprintln(w, de.Msg)
		return
	}
	if errors.As(err, &list) {
		diag.Render(w, list, func(name string) ([]byte, bool) {
			b, err := os.ReadFile(name)
			return b, err == nil
		})
		return
	}
	fmt.Fprintln(w, "fg-beam:", strings.TrimPrefix(err.Error(), "fg-beam: "))
}
