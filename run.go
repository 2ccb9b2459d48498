package fg

import (
	"context"
	"time"

	"github.com/fg-infer/fg/internal/session"
)

// RunOption configures Run.
type RunOption struct{ apply func(*[]session.RunOption) }

// Only restricts Run to the infer lines with these labels (including those
// added with AddMethod).
func Only(labels ...string) RunOption {
	return RunOption{func(o *[]session.RunOption) { *o = append(*o, session.Only(labels...)) }}
}

// Progress makes Run report every sweep: the result label, the sweep
// number, the convergence measure R and the elapsed time.
func Progress(f func(label string, iter int, r float64, elapsed time.Duration)) RunOption {
	return RunOption{func(o *[]session.RunOption) { *o = append(*o, session.Progress(f)) }}
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
