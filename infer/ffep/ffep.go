package ffep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/fg-infer/fg/infer"
)

// Problem is a block w ∈ R^d with the factorised Gaussian prior
// N(PriorMean, diag PriorVar) and mini-batch factors f_k(w) (roche eq. 2:
// f_k = exp(−β u_k)).
type Problem struct {
	PriorMean, PriorVar []float64
	Factors             []Potential
	// Cost, if non-nil, is the training cost reported after each update at
	// the posterior mean; nil means −Σ_k log f_k(mean) (= β Σ_k u_k).
	Cost func(w []float64) float64
}

// Settings of RunFF.
type Settings struct {
	Scheme Scheme
	// Passes over all factors (default 1). Passes = 1 is assumed density
	// filtering (ADF): no site is stored, memory O(d) (roche §3.4).
	Passes int
	// Damping δ ∈ [infer.MinDamping, 1] on site natural parameters (0 means 1 = undamped):
	// new = (1 − δ)·old + δ·proposed.
	Damping float64
	// FixedDamping keeps δ for the whole run; otherwise it adapts while
	// the residual stops decreasing (infer.Loop.FixedDamping).
	FixedDamping bool
	// Tol > 0 stops after a pass whose mean change ‖m − m_prev‖₂ < Tol.
	Tol float64
	// Schedule: infer.Sequential (factor order) or infer.Random (a fresh
	// permutation each pass, seeded by Seed).
	Schedule infer.Schedule
	Seed     uint64
	// TrackCost records the cost after every update in Result.Cost.
	TrackCost bool
	// Progress, if non-nil, is called after every pass with the pass number
	// and the mean change.
	Progress func(pass int, r float64)
}

// Result of RunFF.
type Result struct {
	Mean, Var []float64
	// Cost after each factor visit (TrackCost), starting with the prior
	// mean's; a skipped update repeats the previous value.
	Cost []float64
	// Trace is the undamped residual ‖m − m_prev‖₂ / δ after each pass.
	Trace []float64
	// SiteTime is the mean wall time of one site computation (one mini-batch
	// update of the chosen scheme).
	SiteTime time.Duration
	// NewtonIters is the mean number of Newton iterations per site (LA, VQ).
	NewtonIters float64
	Status      infer.Status
	infer.Stats
	Message string
	// Errors counts skipped updates by reason ("cavity", "improper",
	// "non-finite", "no-convergence").
	Errors map[string]int
	// NonLogConcave counts LA/QLA site computations whose expansion point
	// had ∂²log f > 0 in some coordinate. A factor that is not log-concave
	// can make the posterior multimodal, and Laplace sites then follow
	// whichever mode the first pass reached: a fixed point at a local mode
	// (e.g. Minka's clutter problem) passes every convergence test.
	NonLogConcave int
	// ModeRestarts counts the times a converged LA/QLA run was found in the
	// basin of a lower posterior mode and restarted from the best mode a
	// multi-start Newton search found (globalmode.go).
	ModeRestarts int
}

// RunFF runs fully factorised EP (roche §1–2; Minka 2005 "fully factorial
// EP") over the factors of p. The approximation is
//
//	q(w) = N(w; m, diag v) ∝ prior(w) Π_k g_k(w),
//
// with sites g_k kept as natural parameters (λ_k, η_k) per coordinate
// (log g_k = −½ λ_k w² + η_k w), initialised to 1 (λ = η = 0). Visiting
// factor k: cavity λ\k = λ_q − λ_k, η\k = η_q − η_k (skipped and counted
// if any λ\k ≤ 0); site from the scheme (package comment); damped
// λ_k ← (1 − δ) λ_k + δ λ_new (likewise η); q ← cavity × site, skipped
// if any resulting precision is not positive. Passes = 1 keeps no site
// (ADF). The context is checked before every update. The convergence
// measure is the undamped residual ‖m − m_prev‖₂ / δ of a pass; infer.Iterate
// decides the status (a pass with skipped updates is never Converged).
func RunFF(ctx context.Context, p *Problem, s *Settings) (*Result, error) {
	start := time.Now()
	if err := validate(p, s); err != nil {
		return nil, err
	}
	e := newEngine(p, s)
	res := e.run(ctx)
	res.Runtime = time.Since(start)
	return res, nil
}

func validate(p *Problem, s *Settings) error {
	if p == nil || s == nil {
		return errors.New("ffep: nil problem or settings")
	}
	d := len(p.PriorMean)
	switch {
	case d == 0 || len(p.PriorVar) != d:
		return fmt.Errorf("ffep: prior mean has length %d, prior variance %d", d, len(p.PriorVar))
	case s.Damping != 0 && infer.CheckDamping(s.Damping) != nil:
		return fmt.Errorf("ffep: %w", infer.CheckDamping(s.Damping))
	case s.Scheme.Kind == GH && d != 1:
		return ErrMultivariateGH
	}
	if err := infer.CheckSchedule("fully factorised EP", s.Schedule, infer.FactorizedSchedules); err != nil {
		return fmt.Errorf("ffep: %w", err)
	}
	if err := s.Scheme.check(); err != nil {
		return err
	}
	for i, v := range p.PriorVar {
		if !(v > 0) || !finite(v) || !finite(p.PriorMean[i]) {
			return fmt.Errorf("ffep: prior %d: mean %g, variance %g (need a finite positive variance)", i, p.PriorMean[i], v)
		}
	}
	for k, f := range p.Factors {
		if f == nil {
			return fmt.Errorf("ffep: factor %d is nil", k)
		}
		if _, ok := f.(Projected); s.Scheme.Kind == Exact && !ok {
			return fmt.Errorf("ffep: factor %d is not on one projection aᵀw: %w", k, ErrNotProjected)
		}
	}
	return nil
}

// engine is the state of one RunFF call.
type engine struct {
	p            *Problem
	s            *Settings
	d            int
	delta        float64
	lamQ, etaQ   []float64
	lamS, etaS   [][]float64 // per-factor sites; nil in ADF mode
	mu, sd, mean []float64
	lc, ec       []float64 // cavity natural parameters
	newL, newE   []float64
	w            *work
	siteTime     time.Duration
	sites        int
	newton       int
	lastSkipped  bool
	res          *Result
}

func newEngine(p *Problem, s *Settings) *engine {
	d := len(p.PriorMean)
	e := &engine{p: p, s: s, d: d, delta: s.Damping, w: newWork(d),
		lamQ: make([]float64, d), etaQ: make([]float64, d),
		mu: make([]float64, d), sd: make([]float64, d), mean: make([]float64, d),
		lc: make([]float64, d), ec: make([]float64, d),
		newL: make([]float64, d), newE: make([]float64, d),
		res: &Result{Errors: map[string]int{}}}
	if e.delta == 0 {
		e.delta = 1
	}
	for i := range d {
		e.lamQ[i] = 1 / p.PriorVar[i]
		e.etaQ[i] = p.PriorMean[i] / p.PriorVar[i]
	}
	if s.passes() > 1 {
		e.lamS = make([][]float64, len(p.Factors))
		e.etaS = make([][]float64, len(p.Factors))
		for k := range p.Factors {
			e.lamS[k] = make([]float64, d)
			e.etaS[k] = make([]float64, d)
		}
	}
	return e
}

func (s *Settings) passes() int { return max(1, s.Passes) }

func (e *engine) run(ctx context.Context) *Result {
	res := e.sweeps(ctx)
	if res.Status != infer.Converged && res.Status != infer.Stalled || !e.checksMode() {
		return res
	}
	return e.globalCheck(ctx)
}

// sweeps runs up to Passes passes after those already done, under
// infer.Iterate: a pass's change is ‖m − m_prev‖₂; without a Tol every
// pass runs, and a single pass (ADF) ends Done.
func (e *engine) sweeps(ctx context.Context) *Result {
	res := e.res
	e.meanInto(e.mean)
	if e.s.TrackCost {
		res.Cost = append(res.Cost, e.cost())
	}
	prev := append([]float64(nil), e.mean...)
	order := make([]int, len(e.p.Factors))
	for k := range order {
		order[k] = k
	}
	rng := rand.New(rand.NewPCG(e.s.Seed, 0x9e3779b97f4a7c15))
	l := infer.Loop{Tol: e.s.Tol, Damping: e.delta, MaxIter: e.s.passes(), FixedDamping: e.s.FixedDamping, Start: res.Iterations, Progress: e.s.Progress}
	if !(e.s.Tol > 0) {
		l.Converger = infer.Never{}
	}
	if e.s.passes() == 1 {
		l.Limit = infer.Done
	}
	o := infer.Iterate(ctx, l, func(ctx context.Context, pass int, damping float64) (infer.Sweep, error) {
		e.delta = damping
		if e.s.Schedule == infer.Random {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		u, k := res.Updates, res.Skipped
		for _, f := range order {
			if ctx.Err() != nil {
				return infer.Sweep{}, ctx.Err()
			}
			e.update(f)
		}
		res.Iterations = pass
		e.meanInto(e.mean)
		sw := infer.Sweep{Change: dist(e.mean, prev), Updates: res.Updates - u, Skipped: res.Skipped - k}
		if sw.Skipped > 0 {
			sw.Why = infer.SkipReasons(res.Errors)
		}
		copy(prev, e.mean)
		if !finite(sw.Change) {
			return sw, errors.New("non-finite posterior mean")
		}
		return sw, nil
	})
	res.Trace = append(res.Trace, o.Trace...)
	res.Adapted = append(res.Adapted, o.Adapted...)
	return e.finish(o.Status, o.Message)
}

func (e *engine) finish(st infer.Status, msg string) *Result {
	res := e.res
	res.Status, res.Message = st, msg
	res.Mean = make([]float64, e.d)
	res.Var = make([]float64, e.d)
	for i := range e.d {
		res.Var[i] = 1 / e.lamQ[i]
		res.Mean[i] = e.etaQ[i] / e.lamQ[i]
	}
	if e.sites > 0 {
		res.SiteTime = e.siteTime / time.Duration(e.sites)
		res.NewtonIters = float64(e.newton) / float64(e.sites)
	}
	return res
}

func (e *engine) meanInto(m []float64) {
	for i := range m {
		m[i] = e.etaQ[i] / e.lamQ[i]
	}
}

func (e *engine) cost() float64 {
	if e.p.Cost != nil {
		return e.p.Cost(e.mean)
	}
	var c float64
	for _, f := range e.p.Factors {
		c -= f.LogF(e.mean)
	}
	return c
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}
