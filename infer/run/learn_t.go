package run

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/learn"
	"github.com/fg-infer/fg/infer/tep"
)

// tBlocks reports whether every block has a Student-t prior (student_t or
// tp), the models whose evidence is t-EP's.
func tBlocks(m *compile.Model) bool {
	for _, b := range m.Blocks() {
		if b.Prior.Kind.Family() != graph.StudentT {
			return false
		}
	}
	return len(m.Blocks()) > 0
}

// learnT maximises the approximate marginal likelihood of EP for the
// t-exponential family (futami-t-exponential-ep.txt §4.3, Theorem 2; infer/tep
// evaluates it) over the learned params, for models whose blocks have
// student_t or tp priors. No verified gradient of that evidence exists, so
// the optimiser is gonum's derivative-free Nelder–Mead on transformed params:
// `NAME in [LO, HI]` on the logit scale of (LO, HI), a param that starts
// positive on the log scale, any other as it is. A point where the model
// does not compile or t-EP does not converge counts as −log Z = +∞.
// Options: max_iter (function evaluations, default 200), tol (change of
// −log Z over 20 iterations, default 1e-6).
func learnT(ctx context.Context, m *compile.Model, opt Options) (*compile.Model, []infer.Learned, []float64, error) {
	for _, b := range m.Blocks() {
		if len(b.Batches) > 0 {
			return nil, nil, nil, fmt.Errorf("learn: %s has mini-batch factors, which t-EP does not handle", b.Name)
		}
		for _, s := range b.Sites {
			if _, err := tepSite(s); err != nil {
				return nil, nil, nil, fmt.Errorf("learn: %s: %w", s.Label, err)
			}
		}
	}
	params, err := learnParams(m)
	if err != nil {
		return nil, nil, nil, err
	}
	maxEval, tol, err := learnTSettings(m.Learn.Settings)
	if err != nil {
		return nil, nil, nil, err
	}
	lf, err := m.LearnFunc()
	if err != nil {
		return nil, nil, nil, err
	}
	tr := make([]learn.Transform, len(params))
	u0 := make([]float64, len(params))
	for i, p := range params {
		tr[i] = p.Transform
		if tr[i].Kind == learn.Identity && p.Init > 0 {
			tr[i] = learn.Transform{Kind: learn.Log}
		}
		if u0[i], err = tr[i].ToU(p.Init); err != nil {
			return nil, nil, nil, fmt.Errorf("learn: %s: %w", p.Name, err)
		}
	}
	toX := func(u []float64) []float64 {
		x := make([]float64, len(u))
		for i := range params {
			x[i], _ = tr[i].ToX(u[i])
		}
		return x
	}
	start := time.Now()
	var trace []float64
	f := func(u []float64) float64 {
		if ctx.Err() != nil {
			return math.Inf(1)
		}
		mm, err := lf.At(toX(u), true)
		if err != nil {
			return math.Inf(1)
		}
		nlz, ok := tNegLogZAt(ctx, mm)
		if !ok {
			return math.Inf(1)
		}
		trace = append(trace, nlz)
		if opt.Progress != nil {
			opt.Progress(learnProgress(len(trace), nlz, start))
		}
		return nlz
	}
	if math.IsInf(f(u0), 1) {
		return nil, nil, trace, fmt.Errorf("learn: t-EP has no evidence at the starting values (it did not converge)")
	}
	res, err := optimize.Minimize(optimize.Problem{Func: f}, u0, &optimize.Settings{FuncEvaluations: maxEval,
		Converger: &optimize.FunctionConverge{Absolute: tol, Iterations: 20}}, &optimize.NelderMead{})
	if err != nil && res == nil {
		return nil, nil, trace, fmt.Errorf("learn: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, trace, err
	}
	x := toX(res.X)
	out, err := lf.Model(x)
	if err != nil {
		return nil, nil, trace, fmt.Errorf("learn: recompiling at the learned values: %w", err)
	}
	var learned []infer.Learned
	for i, p := range params {
		learned = append(learned, infer.Learned{Name: p.Name, Initial: p.Init, Value: x[i]})
	}
	return out, learned, trace, nil
}

// tNegLogZAt returns −Σ_blocks log Z of t-EP on model mm, with each
// block's prior degrees of freedom as the divergence's nu.
func tNegLogZAt(ctx context.Context, mm *compile.Model) (float64, bool) {
	total := 0.0
	for _, b := range mm.Blocks() {
		p := &tep.Problem{Nu: b.Prior.Nu, Mean: b.Prior.Mean, Scale: b.Prior.Cov}
		for _, s := range b.Sites {
			ts, err := tepSite(s)
			if err != nil {
				return 0, false
			}
			p.Sites = append(p.Sites, ts)
		}
		res, err := tep.Run(ctx, p, infer.Settings{Divergence: infer.T{Nu: b.Prior.Nu}, Damping: 0.5, MaxIter: infer.DefaultTLearnEPMaxIter}, nil)
		if err != nil || res == nil || !res.HasLogZ {
			return 0, false
		}
		total -= res.LogZ
	}
	return total, true
}

// learnTSettings reads max_iter and tol for the derivative-free optimiser.
func learnTSettings(s infer.LearnOptions) (maxEval int, tol float64, err error) {
	if err := s.Check(); err != nil {
		return 0, 0, fmt.Errorf("learn: %w", err)
	}
	if s.Method != "" {
		return 0, 0, fmt.Errorf("learn: method = %s: t-EP evidence is optimised by Nelder–Mead (no gradient)", s.Method)
	}
	maxEval, tol = infer.DefaultTLearnEval, infer.DefaultTLearnTol
	if s.MaxIter > 0 {
		maxEval = s.MaxIter
	}
	if s.Tol > 0 {
		tol = s.Tol
	}
	return maxEval, tol, nil
}
