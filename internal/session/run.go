// Package session holds a loaded fg model with its overrides, compiles it
// whenever an override changes and runs its infer lines. It is the engine
// room of the public fg package (which wraps it in stable types) and of
// cmd/fg (which needs the compiled model and the engines' results: the
// factor graph for `fg graph`, the predict statements for --test, the
// results for the tables and plots).
package session

import (
	"context"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/expect"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/run"
	"github.com/fg-infer/fg/lang/ast"
)

// Results are the outcomes of a model's infer lines, in file order, with
// the compiled model they came from (for expects and predictions).
type Results struct {
	Model *compile.Model
	List  []*infer.Result
}

// Get returns the result labelled label, or nil.
func (r *Results) Get(label string) *infer.Result {
	if r == nil {
		return nil
	}
	for _, x := range r.List {
		if x.Label == label {
			return x
		}
	}
	return nil
}

// Labels lists the result labels in order.
func (r *Results) Labels() []string {
	var out []string
	for _, x := range r.List {
		out = append(out, x.Label)
	}
	return out
}

// Succeeded reports whether every method succeeded (infer.Status.Succeeded:
// converged, done or iteration_limit); fg run exits 3 when it is false.
func (r *Results) Succeeded() bool {
	for _, x := range r.List {
		if !x.Status.Succeeded() {
			return false
		}
	}
	return true
}

// Expects evaluates the model's expect statements against the results.
func (r *Results) Expects() []expect.Result { return expect.Eval(r.Model, r.List) }

// Eval evaluates an expression of the expect language against the results
// (the REPL's expressions); fset holds x's positions.
func (r *Results) Eval(fset *ast.FileSet, x ast.Expr) []expect.Value {
	return expect.EvalExpr(r.Model, r.List, fset, x)
}

// RunOption configures Run.
type RunOption func(*run.Options)

// Only restricts Run to the infer lines with these labels.
func Only(labels ...string) RunOption {
	return func(o *run.Options) { o.Labels = append(o.Labels, labels...) }
}

// Progress makes Run report its methods' progress (run.Options.Progress):
// sweeps of EP and BP with their change R, draws of MCMC out of their
// total, evaluations of exact with its error estimate and of learn with
// −log Z.
func Progress(f func(infer.Progress)) RunOption {
	return func(o *run.Options) { o.Progress = f }
}

// Run runs the model's infer lines (all, or those chosen with Only). When
// the model has a `learn` statement, its params are first set by evidence
// maximisation (run.Learn), the infer lines run on the model recompiled
// with the learned values, and every result lists them in Learned. When
// ctx is canceled the engines stop at the end of their current sweep and
// the partial results carry Status infer.Canceled; Run then returns them
// together with ctx's error.
func (m *Model) Run(ctx context.Context, opts ...RunOption) (*Results, error) {
	o := run.Options{Extra: m.extra}
	for _, f := range opts {
		f(&o)
	}
	cm, learned, err := m.learn(ctx, o)
	if err != nil && ctx.Err() != nil {
		return &Results{Model: m.compiled, List: run.Canceled(m.compiled, o, "canceled while learning hyperparameters")}, err
	}
	if err != nil {
		return nil, err
	}
	if cm != m.compiled && len(m.methods) > 0 {
		// The added infer lines again, on the model with the learned
		// values: their positions are then in its file set.
		if o.Extra, err = compileMethods(cm, false, m.methods); err != nil {
			return nil, err
		}
	}
	rs, err := run.Run(ctx, cm, o)
	for _, r := range rs {
		if r.Learned == nil && r.Status.HasNumbers() {
			r.Learned = learned
			for _, l := range learned {
				if l.Warning != "" {
					r.Warn(l.Pos, "%s", l.Warning)
				}
			}
		}
	}
	return &Results{Model: cm, List: rs}, err
}

// learn runs the model's learn statement, if any, and returns the model to
// run with the learned values.
func (m *Model) learn(ctx context.Context, o run.Options) (*compile.Model, []infer.Learned, error) {
	if m.compiled.Learn == nil {
		return m.compiled, nil, nil
	}
	cm, learned, _, err := run.Learn(ctx, m.compiled, o)
	if err != nil {
		return nil, nil, err
	}
	return cm, learned, nil
}
