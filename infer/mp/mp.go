// Package mp is message passing on the typed factor graph (graph.Net):
// expectation propagation (divergence kl), power EP (alpha(a), 0 < a < 1)
// and its a → 0 limit, variational message passing (alpha(0); Minka 2005,
// "Divergence measures and message passing"; Winn & Bishop 2005), on
// variables of every family of package families, with belief propagation
// (sum-product) on the discrete ones.
//
// State. Every (factor, variable) pair holds a message in the variable's
// family, in natural parameters; a variable's belief is the sum of its
// messages (the product of the densities). Priors are factors like any
// other.
//
// Update of one factor f (factor.go). For every joint state s of the
// discrete variables f touches (selectors of mu[z[i]] and A[z[t−1]], the
// discrete variable of a categorical), the kind's rule sees f's branch in
// s with every edge resolved (factor.EP, factor.VMP):
//
//   - EP (power u = a): the cavity of each variable is its belief divided
//     by u times f's message; the rule returns log Z_s = log ∫ f_s^u Π
//     cavities and the tilted moments of each continuous variable. The
//     states are weighted by w_s ∝ Z_s Π cav(s); a discrete variable's new
//     marginal is Σ_s w_s [s_d = k] (sum-product), a continuous variable's
//     tilted distribution the w-mixture of its tilted moments (the cavity
//     where the branch does not touch it: a gated factor, Minka & Winn
//     2008), projected onto its family (families.Space.Project; exact
//     natural parameters where the rule is conjugate and there is one
//     state). The new message is (projection / cavity)^{1/u}, damped.
//   - VMP: the rule returns E_q[log f_s] and its messages to the
//     continuous edges given the other edges' beliefs. The states take
//     the weights of the factor's belief ∝ exp(E log f_s) Π cav(s), the
//     discrete messages are sum-product on the table exp(E log f_s)
//     (structured mean field: the discrete subgraph keeps its joint
//     through BP, exact on chains — forward–backward), and a continuous
//     message is the weighted sum of the branches' messages.
//
// An affine edge Σ c_j x_j + c₀ over Gaussian variables reaches the rule as
// one Gaussian (the expression's distribution under the cavities or
// beliefs); the rule's tilted moments of the expression map to each member
// by x_j = m_j + c_j v_j (e − m_e)/v_e + independent noise, which is exact
// for Gaussian members, and a VMP message (η₁, η₂) on the expression maps to
// (c_j(η₁ + 2η₂ E r_j), c_j² η₂), r_j = e − c_j x_j.
//
// Schedule. One sweep updates the factors in order and then in reverse
// order: on a chain that is forward–backward, and on a tree of conjugate
// factors one sweep is exact (the second changes nothing). The iteration
// is infer.Iterate's (status, damping rule, trace, context checks).
//
// Evidence. EP reports log Z_EP = Σ_f (1/u)[log Z_f − Σ_{v∈f} (A(η_v) −
// A(η_v − u m_fv))] + Σ_v A(η_v), A the log normaliser of the variable's
// family; VMP reports the evidence lower bound, ELBO = Σ_f E log f (the
// discrete subgraph's Bethe log partition function of the tables
// exp(E log f), exact on trees) + Σ_v H[q_v] over continuous v — a bound
// on log Z, flagged as such.
package mp

import (
	"context"
	"fmt"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// Options of a run. Alpha is the power of power EP: 1 is EP (kl), 0 < a <
// 1 power EP, 0 the VMP limit.
type Options struct {
	Alpha   float64
	Damping float64 // 0 means 1
	// FixedDamping keeps the step at Damping; otherwise it adapts while
	// the residual stops decreasing (infer.Loop.FixedDamping).
	FixedDamping bool
	Tol          float64 // 0 means infer.DefaultMomentTol
	MaxIter      int     // 0 means infer.DefaultMaxIter
	Progress     func(iter int, r float64)
}

// VMP reports whether the options ask for the alpha → 0 limit.
func (o Options) VMP() bool { return o.Alpha == 0 }

// Result is the outcome of a run.
type Result struct {
	infer.Outcome
	// Beliefs are the variables' beliefs in natural parameters of their
	// families (nil when the status carries no numbers).
	Beliefs [][]float64
	// LogEvidence is log Z_EP (EP) or the ELBO (VMP, ELBO true).
	LogEvidence float64
	ELBO        bool
}

// Space returns the family of variable v of net as a Space.
func Space(net *graph.Net, v int) families.Space {
	return families.For(net.Vars[v].Family, net.Vars[v].Dim)
}

// Run runs EP, power EP or VMP on net. It returns an error only for a
// net that Supports refuses; a run that fails to converge is a Result
// with its status.
func Run(ctx context.Context, net *graph.Net, opt Options) (*Result, error) {
	res, _, err := runEngine(ctx, net, opt)
	return res, err
}

// runEngine is Run, returning also the engine at the end of the run (for the
// evidence gradient, learngrad.go).
func runEngine(ctx context.Context, net *graph.Net, opt Options) (*Result, *engine, error) {
	if diags := Supports(net, opt); len(diags) > 0 {
		return nil, nil, diags[0]
	}
	if opt.Damping == 0 {
		opt.Damping = 1
	}
	loop := infer.Settings{Tol: opt.Tol, MaxIter: opt.MaxIter}.WithDefaults(infer.MethodEP)
	opt.Tol, opt.MaxIter = loop.Tol, loop.MaxIter
	e := newEngine(net, opt)
	out := infer.Iterate(ctx, infer.Loop{Tol: opt.Tol, Damping: opt.Damping, MaxIter: opt.MaxIter, FixedDamping: opt.FixedDamping, Unit: "factor", Progress: opt.Progress},
		func(ctx context.Context, iter int, damping float64) (infer.Sweep, error) {
			e.opt.Damping = damping
			return e.sweep(ctx)
		})
	res := &Result{Outcome: out, ELBO: opt.VMP()}
	if !out.Status.HasNumbers() || out.Status == infer.Canceled {
		return res, e, nil
	}
	res.Beliefs = e.belief
	ev, err := e.evidence()
	if err != nil {
		res.Status, res.Message = infer.Failed, "evidence: "+err.Error()
		res.Beliefs = nil
		return res, e, nil
	}
	res.LogEvidence = ev
	return res, e, nil
}

// engine is the state of a run.
type engine struct {
	net    *graph.Net
	opt    Options
	fs     []*fstate
	belief [][]float64
	spaces []families.Space
	// scratch of one factor update
	arena    arena
	view     view
	res      []branchResult
	next, nb [][]float64
}

func newEngine(net *graph.Net, opt Options) *engine {
	e := &engine{net: net, opt: opt}
	e.belief = make([][]float64, len(net.Vars))
	e.spaces = make([]families.Space, len(net.Vars))
	for v := range net.Vars {
		e.spaces[v] = Space(net, v)
		e.belief[v] = make([]float64, e.spaces[v].Len())
	}
	e.fs = make([]*fstate, len(net.Factors))
	for i := range net.Factors {
		e.fs[i] = newFstate(net, i, e.spaces)
	}
	return e
}

// sweep updates every factor forward, then backward, and measures the
// largest change of a belief (change). A factor counts as skipped when its
// last update of the sweep, on the backward pass, failed: on the first
// forward pass a factor may meet a cavity that is still flat (a
// conditional gamma(3, beta0) before any observation of its child has sent
// a message) and is then updated on the backward pass, once the cavity is
// proper.
func (e *engine) sweep(ctx context.Context) (infer.Sweep, error) {
	before := e.snapshot()
	var s infer.Sweep
	n := len(e.fs)
	for k := 0; k < 2*n; k++ {
		if k%64 == 0 && ctx.Err() != nil { // a factor update may integrate numerically: check often
			return s, ctx.Err()
		}
		i := k
		if k >= n {
			i = 2*n - 1 - k
		}
		if err := e.update(e.fs[i]); err != nil {
			if k >= n {
				s.Skipped++
				s.Why = fmt.Sprintf(": %s at %s: %v", e.net.Factors[i].Label, e.net.Fset.Position(e.net.Factors[i].Pos), err)
			}
			continue
		}
		s.Updates++
	}
	s.Change = e.change(before)
	return s, nil
}

// state is what the convergence measure compares of a belief: mean and
// standard deviation of a Gaussian, the probabilities of a discrete
// variable, the usual parameters of the other families (shape and rate,
// a and b, α); nil while improper.
func (e *engine) state(v int) []float64 {
	b := e.belief[v]
	sp := e.spaces[v]
	if !sp.Proper(b) {
		return nil
	}
	if e.net.Vars[v].Family == graph.Gaussian {
		g := families.GaussianOf(b)
		return []float64{g.Mean(), math.Sqrt(g.Var())}
	}
	return append([]float64(nil), sp.Params(b)...)
}

func (e *engine) snapshot() [][]float64 {
	out := make([][]float64, len(e.belief))
	for v := range e.belief {
		out[v] = e.state(v)
	}
	return out
}

// change is the largest change of a belief since before: of a
// probability (discrete), of the mean and of the standard deviation, both
// relative to the standard deviation (Gaussian), of a parameter relative
// to its value (the other families); +Inf while a belief is improper, NaN
// when one is not finite.
func (e *engine) change(before [][]float64) float64 {
	var r float64
	for v := range e.belief {
		now := e.state(v)
		if now == nil || before[v] == nil {
			return math.Inf(1)
		}
		var d float64
		switch e.net.Vars[v].Family {
		case graph.Discrete:
			for k := range now {
				d = max(d, math.Abs(now[k]-before[v][k]))
			}
		case graph.Gaussian:
			d = (math.Abs(now[0]-before[v][0]) + math.Abs(now[1]-before[v][1])) / now[1]
		default:
			for k := range now {
				d = max(d, math.Abs(now[k]-before[v][k])/math.Abs(now[k]))
			}
		}
		if math.IsNaN(d) {
			return d
		}
		r = max(r, d)
	}
	return r
}
