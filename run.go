package fg

import (
	"context"
	"time"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/session"
)

// RunOption configures Run.
type RunOption struct{ apply func(*[]session.RunOption) }

// Only restricts Run to the infer lines with these labels (including those
// added with AddMethod).
func Only(labels ...string) RunOption {
	return RunOption{func(o *[]session.RunOption) { *o = append(*o, session.Only(labels...)) }}
}

// ProgressReport is one report of a running method, in the method's own
// unit: sweeps of EP and BP (R is the change of the sweep), draws of MCMC
// over all chains (Total is known, so Remaining estimates the time left),
// log-likelihood evaluations of exact (R is the quadrature's error
// estimate; importance sampling knows its Total) and of learn (R is
// −log Z).
type ProgressReport struct {
	Label string // the result label, or "learn"
	Unit  string // what Done counts: "sweep", "draw", "evaluation"
	Done  int
	Total int // the fixed amount of work, 0 when it ends at convergence
	// Measure names R ("R", "error", "-log Z"); R is NaN when there is none.
	Measure string
	R       float64
	Elapsed time.Duration
}

// Remaining estimates the time left, Elapsed·(Total − Done)/Done, and
// reports false when Total is not known.
func (p ProgressReport) Remaining() (time.Duration, bool) { return infer.Progress(p).Remaining() }

// Progress makes Run report its methods' progress as they run (several
// goroutines may call f at once for samplers).
func Progress(f func(ProgressReport)) RunOption {
	report := func(p infer.Progress) { f(ProgressReport(p)) }
	return RunOption{func(o *[]session.RunOption) { *o = append(*o, session.Progress(report)) }}
}

// Run runs the model's infer lines (all, or those chosen with Only). When
// the model has a `learn` statement, its params are first set by evidence
// maximisation, and the infer lines run with the learned values. When ctx
// is canceled the engines stop at the end of their current sweep and the
// partial results have status StatusCanceled; Run then returns them
// together with ctx's error.
func (m *Model) Run(ctx context.Context, opts ...RunOption) (*Results, error) {
	var so []session.RunOption
	for _, o := range opts {
		o.apply(&so)
	}
	res, err := m.s.Run(ctx, so...)
	if res == nil {
		return nil, err
	}
	return newResults(res), err
}
