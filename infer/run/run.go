// Package run is the one adapter between compiled models and the inference
// engines: it turns each infer line of a compile.Model into the problem of
// the engine that serves it (infer/ep, infer/tep, infer/fgraph, infer/mp,
// infer/ffep, infer/stream, infer/shard, infer/bp, infer/jtree, infer/exact,
// infer/mcmc), runs it under a context, and maps the engine's result back to
// an engine-neutral infer.Result with the model's names. The engine is the
// method registry's (compile.Model.Engine); each engine is a type in
// engines.go (compile.Engine: its options, its check of an infer line, its
// runner), and each engine's adapter has its own file here. When the model
// has a gold standard (exact or mcmc) every other result gets its
// approximation error.
package run

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// Options choose what Run does.
type Options struct {
	// Labels restricts the run to the infer lines with these labels; nil runs all.
	Labels []string
	// Extra are further infer lines (from `fg run --method SPEC`), run after
	// the selected lines of the model.
	Extra []*compile.InferSpec
	// Progress, when non-nil, is called as the methods run: after every
	// sweep of an iterative engine, every few hundred draws of MCMC, every
	// 256 cell refinements of exact quadrature and every evaluation of
	// learn, with the work done in that unit (infer.Progress). Samplers
	// call it from several goroutines.
	Progress func(infer.Progress)
}

// Run runs the chosen infer lines of m in order. An engine failure is
// reported in that result's Status and Message, not as an error; Run
// returns an error for unknown labels, and ctx's error (with the partial
// results) when ctx is canceled.
func Run(ctx context.Context, m *compile.Model, opt Options) ([]*infer.Result, error) {
	specs, err := selectSpecs(m, opt)
	if err != nil {
		return nil, err
	}
	var out []*infer.Result
	for _, s := range specs {
		out = append(out, runOne(ctx, m, s, opt.Progress))
		if err := ctx.Err(); err != nil {
			return out, err
		}
	}
	FillErrors(out)
	pos := make([]string, len(out))
	for i, s := range specs[:len(out)] {
		if s.Pos.IsValid() {
			pos[i] = m.Fset.Position(s.Pos).String()
		}
	}
	FlagApart(out, pos)
	return out, nil
}

// Canceled returns, for every infer line Run would run, a result with
// status canceled, the message and no numbers: the run was canceled before
// it reached them (e.g. while learning hyperparameters).
func Canceled(m *compile.Model, opt Options, msg string) []*infer.Result {
	specs, err := selectSpecs(m, opt)
	if err != nil {
		return nil
	}
	out := make([]*infer.Result, len(specs))
	for i, s := range specs {
		out[i] = newResult(s)
		out[i].Status, out[i].Message = infer.Canceled, msg
	}
	return out
}

// selectSpecs returns the infer lines named by opt.Labels, in that order,
// among the model's and opt.Extra (all of them when Labels is nil).
func selectSpecs(m *compile.Model, opt Options) ([]*compile.InferSpec, error) {
	all := append(append([]*compile.InferSpec(nil), m.Infers...), opt.Extra...)
	if opt.Labels == nil {
		return all, nil
	}
	var out []*compile.InferSpec
	for _, l := range opt.Labels {
		s := findSpec(all, l)
		if s == nil {
			return nil, fmt.Errorf("no infer line labelled %q; labels are %s", l, labelList(append(m.AllInfers(), opt.Extra...)))
		}
		out = append(out, s)
	}
	return out, nil
}

func findSpec(specs []*compile.InferSpec, label string) *compile.InferSpec {
	for _, s := range specs {
		if s.Label == label {
			return s
		}
	}
	return nil
}

func labelList(specs []*compile.InferSpec) string {
	if len(specs) == 0 {
		return "(none: the model has no infer line)"
	}
	var ls []string
	for _, s := range specs {
		ls = append(ls, s.Label)
	}
	return strings.Join(ls, ", ")
}

// runOne runs one infer line on the engine registered for its method and
// the model's structure (compile.Model.Engine), and never returns nil.
func runOne(ctx context.Context, m *compile.Model, s *compile.InferSpec, progress func(infer.Progress)) *infer.Result {
	eng, err := m.Engine(s)
	if err != nil {
		r, _ := runJob(ctx, m, s, progress, func(*job) error { return err })
		return r
	}
	r, _ := eng.Run(ctx, m, s, progress)
	return r
}

// runJob is every engine's Run: it runs f, the engine's runner, as the job
// of infer line s of m and completes the result: an error of f is its
// status failed and message, a canceled ctx its status canceled; a failed
// or canceled result loses its numbers; then the warnings every result can
// carry and the run time. It returns f's error, or ctx's when canceled.
func runJob(ctx context.Context, m *compile.Model, s *compile.InferSpec, progress func(infer.Progress), f func(*job) error) (*infer.Result, error) {
	start := time.Now()
	r := newResult(s)
	st := s.Settings
	j := &job{ctx: ctx, m: m, spec: s, st: st, res: r}
	if progress != nil {
		j.report = func(unit string, done, total int, measure string, x float64) {
			progress(infer.Progress{Label: s.Label, Unit: unit, Done: done, Total: total,
				Measure: measure, R: x, Elapsed: time.Since(start)})
		}
		j.st.Progress = func(iter int, x float64) { j.report("sweep", iter, 0, "R", x) }
	}
	err := f(j)
	if err != nil {
		r.Status, r.Message = infer.Failed, err.Error()
	}
	if cerr := ctx.Err(); cerr != nil {
		// An engine error while the context is canceled is the cancellation
		// (e.g. exact's quadrature returns ctx.Err()), not a failure.
		// The message is the context's error alone: presenters print
		// "label: canceled: context canceled".
		r.Status, r.Message = infer.Canceled, cerr.Error()
		err = cerr
	}
	r.ClearNumbers()
	j.probEvents()
	j.warn()
	r.Runtime = time.Since(start)
	return r, err
}

// probEvents names, on each prediction with class probabilities, the
// event they are the probability of: factor.ProbEvent of the likelihood
// of its predict statement.
func (j *job) probEvents() {
	for i := range j.res.Predictions {
		pr := &j.res.Predictions[i]
		for _, p := range j.m.Predicts {
			switch {
			case pr.Prob == nil || p.Name != pr.Name:
			case p.Net != nil:
				pr.Event = factor.ProbEvent(p.Net.Kind)
			case p.Lik != nil:
				pr.Event = factor.ProbEvent(siteRules(p.Lik))
			}
		}
	}
}

// newResult is the result of infer line s before it runs: its method,
// label, options and divergence.
func newResult(s *compile.InferSpec) *infer.Result {
	r := &infer.Result{Method: string(s.Method), Label: s.Label, Options: s.Options}
	if s.Method.HasDivergence() {
		r.Divergence = s.Settings.Divergence
	}
	return r
}

// job carries one infer line through its engine.
type job struct {
	ctx  context.Context
	m    *compile.Model
	spec *compile.InferSpec
	st   infer.Settings
	res  *infer.Result
	// report, when non-nil, passes progress on to Options.Progress.
	report func(unit string, done, total int, measure string, r float64)
}

// evalProgress is exact quadrature's progress callback, nil without one.
func (j *job) evalProgress() func(evals, total int, errEst float64) {
	if j.report == nil {
		return nil
	}
	return func(evals, total int, errEst float64) { j.report("evaluation", evals, total, "error", errEst) }
}

// drawProgress is mcmc's progress callback for the job, nil without one.
func (j *job) drawProgress() func(done, total int) {
	if j.report == nil {
		return nil
	}
	return func(done, total int) { j.report("draw", done, total, "", math.NaN()) }
}

// runBlocks runs f on every Gaussian block. Blocks share no factor, so they
// are independent: the statuses combine to the worst, iterations to the
// largest, log evidences add.
func (j *job) runBlocks(f func(b *graph.Block) (*blockOut, error)) error {
	if len(j.m.Blocks()) == 0 {
		return fmt.Errorf("the model has no latent variables to infer")
	}
	r := j.res
	r.HasEvidence = true
	for i, b := range j.m.Blocks() {
		o, err := f(b)
		if err != nil {
			// The blocks before it do not make the evidence of the model.
			r.LogEvidence, r.HasEvidence = 0, false
			return fmt.Errorf("%s: %w", b.Name, err)
		}
		j.mergeBlock(i, b, o)
	}
	if r.Status != infer.Converged && r.Status != infer.Done {
		r.HasEvidence = false
	}
	if !r.HasEvidence {
		r.LogEvidence = 0
	}
	return nil
}

// blockOut is what every continuous engine returns for one block.
type blockOut struct {
	status      infer.Status
	message     string
	stats       infer.Stats
	v           infer.Variable
	logZ        float64
	hasLogZ     bool
	trace       []float64
	relax       []infer.Relaxation
	predictions []infer.Prediction
}

// mergeBlock folds block i's outcome into the result.
func (j *job) mergeBlock(i int, b *graph.Block, o *blockOut) {
	r := j.res
	if i == 0 || worse(o.status, r.Status) {
		r.Status = o.status
		if o.message != "" {
			r.Message = b.Name + ": " + o.message
		}
	}
	if o.stats.Iterations > r.Iterations {
		r.Iterations = o.stats.Iterations
	}
	r.Updates += o.stats.Updates
	r.Skipped += o.stats.Skipped
	r.Adapted = append(r.Adapted, o.stats.Adapted...)
	r.HasEvidence = r.HasEvidence && o.hasLogZ
	r.LogEvidence += o.logZ
	if len(o.trace) > len(r.Trace) {
		r.Trace = o.trace
	}
	o.v.Name, o.v.Shape = b.Name, j.m.Graph.Latents[b.Latent].Shape
	if len(o.v.Mean) > 0 { // a failed engine may leave no estimate at all
		r.Variables.Append(o.v)
	}
	r.Relaxation = append(r.Relaxation, o.relax...)
	r.Predictions = append(r.Predictions, o.predictions...)
}

// worse orders statuses by how bad they are for a combined result.
func worse(a, b infer.Status) bool {
	rank := map[infer.Status]int{infer.Converged: 0, infer.Done: 0, infer.IterationLimit: 1,
		infer.Stalled: 2, infer.Diverged: 3, infer.Canceled: 4, infer.Failed: 5}
	return rank[a] > rank[b]
}
