package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"   // gs:// shards and outputs
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local shards and outputs
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer/run"
	"github.com/fg-infer/fg/infer/shard"
)

// Config is one fg-beam run.
type Config struct {
	Model  Model
	Shards string // glob of the shards' csv files (any Beam file system)
	// Out is the folder (any Beam file system) where each iteration's job
	// writes the shard updates and the combined sum for the driver.
	Out string
	// Retries is how many times a failed iteration job is resubmitted with
	// the same side input (prism and the direct runner do not retry a failed
	// bundle; they fail the job).
	Retries int
	// Execute runs a pipeline (beamx.Run with the --runner flag).
	Execute func(context.Context, *beam.Pipeline) error
	Log     io.Writer // progress lines; nil for none
}

// Run runs sharded EP with one Beam job per iteration and returns the
// result, the model's block (name, prior) and the shard paths in the
// order of Result.Sites.
func Run(ctx context.Context, cfg Config) (*shard.Result, *run.ShardBlock, []string, error) {
	start := time.Now()
	cfg.Model.Shards = cfg.Shards
	paths, err := listShards(ctx, cfg.Shards)
	if err != nil {
		return nil, nil, nil, err
	}
	first, err := readFile(ctx, paths[0], true)
	if err != nil {
		return nil, nil, nil, err
	}
	sb, err := cfg.Model.CompileShard(paths[0], first) // the prior and the infer line's settings
	if err != nil {
		return nil, nil, nil, err
	}
	prior, err := shard.Prior(sb.Mean, sb.Cov)
	if err != nil {
		return nil, nil, nil, err
	}
	s := sb.Settings
	s.Progress = progress(cfg.Log, start)
	res := &shard.Result{Sites: make([]families.GaussianDense, len(paths))}
	for k := range res.Sites {
		res.Sites[k] = families.FlatGaussianDense(prior.Dim())
	}
	err = shard.Iterate(ctx, prior, s, stepper(cfg, paths), res)
	res.Runtime = time.Since(start)
	return res, sb, paths, err
}

func progress(w io.Writer, start time.Time) func(int, float64) {
	last := start
	return func(it int, r float64) {
		if w != nil {
			fmt.Fprintf(w, "iteration %d: R = %.3g, %.2fs\n", it, r, time.Since(last).Seconds())
		}
		last = time.Now()
	}
}

// listShards expands the glob through Beam's file systems, sorted.
func listShards(ctx context.Context, glob string) ([]string, error) {
	fsys, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	paths, err := fsys.List(ctx, glob)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("fg-beam: no shard matches %q", glob)
	}
	if len(paths) > shard.MaxShards {
		return nil, fmt.Errorf("fg-beam: %d shards match %q, at most %d", len(paths), glob, shard.MaxShards)
	}
	slices.Sort(paths)
	return paths, nil
}

// stepper is shard.Step on Beam: one job per iteration, resubmitted up to
// cfg.Retries times when it fails — except for a data error (a *DataError,
// see errors.go), which ends the run at once.
func stepper(cfg Config, paths []string) shard.Step {
	iter := 0
	return func(ctx context.Context, global families.GaussianDense, sites []families.GaussianDense, delta float64) ([]*shard.Update, families.GaussianDense, error) {
		iter++
		st := state{Global: toWire(global), Sites: map[string]wireNat{}}
		for k, p := range paths {
			st.Sites[p] = toWire(sites[k])
		}
		side, err := json.Marshal(st)
		if err != nil {
			return nil, families.GaussianDense{}, err
		}
		out := fmt.Sprintf("%s/iter-%04d", cfg.Out, iter)
		var errs []error
		for attempt := 0; attempt <= cfg.Retries; attempt++ {
			p := build(cfg, string(side), out, delta)
			if err = cfg.Execute(ctx, p); err == nil {
				return readOutputs(ctx, out, paths)
			}
			if ctx.Err() != nil {
				return nil, families.GaussianDense{}, ctx.Err()
			}
			if de := findDataError(err); de != nil {
				return nil, families.GaussianDense{}, de // not retried: the data will not change
			}
			errs = append(errs, fmt.Errorf("attempt %d: %w", attempt+1, err))
			if cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "iteration %d: job failed (%v); resubmitting\n", iter, err)
			}
		}
		return nil, families.GaussianDense{}, fmt.Errorf("fg-beam: iteration %d failed: %w", iter, errors.Join(errs...))
	}
}

// build is one iteration's pipeline: the shards through fileio, the state
// as a singleton side input, a ParDo per shard, the global combine, and
// both written for the driver.
func build(cfg Config, side, out string, delta float64) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	files := fileio.ReadMatches(s, fileio.MatchFiles(s, cfg.Shards, fileio.MatchEmptyDisallow()))
	st := beam.Create(s, side)
	ups := beam.ParDo(s, &localFn{Model: cfg.Model, Delta: delta}, files, beam.SideInput{Input: st})
	sum := beam.Combine(s, &sumFn{}, ups)
	textio.Write(s, out+"/updates.jsonl", ups)
	textio.Write(s, out+"/sum.json", sum)
	return p
}

// readOutputs reads one iteration's shard updates (in paths' order) and the
// combined sum of the new sites.
func readOutputs(ctx context.Context, out string, paths []string) ([]*shard.Update, families.GaussianDense, error) {
	byPath := map[string]*shard.Update{}
	if err := readLines(ctx, out+"/updates.jsonl", func(line []byte) error {
		var w update
		if err := json.Unmarshal(line, &w); err != nil {
			return err
		}
		u, err := w.shardUpdate()
		byPath[w.Path] = u
		return err
	}); err != nil {
		return nil, families.GaussianDense{}, err
	}
	ups := make([]*shard.Update, len(paths))
	for k, p := range paths {
		if ups[k] = byPath[p]; ups[k] == nil {
			return nil, families.GaussianDense{}, fmt.Errorf("fg-beam: no update for shard %s", p)
		}
	}
	var sum families.GaussianDense
	err := readLines(ctx, out+"/sum.json", func(line []byte) error {
		var w wireNat
		if err := json.Unmarshal(line, &w); err != nil {
			return err
		}
		var err error
		sum, err = w.natural()
		return err
	})
	if err == nil && sum.Prec == nil {
		err = fmt.Errorf("fg-beam: no combined sum in %s", out)
	}
	return ups, sum, err
}

func readLines(ctx context.Context, p string, f func([]byte) error) error {
	data, err := readFile(ctx, p, false)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := f(sc.Bytes()); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return sc.Err()
}
