// Package stream runs assumed-density filtering (ADF) and fully factorised
// expectation propagation over examples read from a stream, for a linear
// model with a factorised Gaussian prior on the weights w ∈ R^d and one
// likelihood site per example on a sparse projection xₖᵀw:
//
//	p(w | D) ∝ Π_j N(w_j; m0_j, v0_j) Π_k p(y_k | xₖᵀw).
//
// The approximation is q(w) = N(w; m, diag v), kept as natural parameters
// (λ_j = 1/v_j, η_j = m_j/v_j). Visiting example k with non-zeros J_k, the
// cavity is q divided by the example's site (λ\k = λ − λ_k, η\k = η − η_k
// on J_k); under it t = xₖᵀw is Gaussian with
//
//	m_t = Σ_{j∈J_k} x_j μ_j,   v_t = Σ_{j∈J_k} x_j² σ_j²,
//
// and since (w_j, t) are jointly Gaussian with Cov(w_j, t) = σ_j² x_j, the
// marginals of the tilted distribution p(y_k | t) × cavity are exact
// (Minka 2001, §3.2.1; the AdPredictor update of Graepel et al. 2010):
//
//	E w_j = μ_j + σ_j² x_j d1,   Var w_j = σ_j² + σ_j⁴ x_j² d2,
//
// with d1, d2 the first two derivatives of log Z(m_t, v_t) =
// log ∫ p(y | t) N(t; m_t, v_t) dt in m_t (infer/ep's closed forms). The new
// site on J_k is the moment-matched marginal divided by the cavity, damped
// in natural parameters as in infer/ffep's FF-EP. An update costs O(|J_k|):
// coordinates outside J_k do not change.
//
// Passes = 1 is ADF: no site is stored and memory is O(d + buffer). More
// passes are EP: the example's previous site must be divided out, so the
// sites (2 numbers per stored non-zero) live in a scratch file read and
// rewritten sequentially in step with the data (sites.go) — memory stays
// O(d + buffer), disk O(total non-zeros). This is exactly infer/ffep's
// FF-EP (roche-numerical-ep.txt §1–2) with closed-form moments: the tests
// check equality with it to 1e-12. Engines do not import compile: the
// problem is plain values (package doc of infer).
package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// Problem is a streamed sparse linear model.
type Problem struct {
	PriorMean, PriorVar []float64 // length d, or 1 when D is set; variances finite and positive
	// D, if positive, is the number of weights, all with the one prior
	// N(PriorMean[0], PriorVar[0]): the prior is then held as two numbers,
	// not 2d, and the engine's O(d) state is its only per-weight memory.
	D     int
	Lik   ep.Likelihood
	Train Source
}

// Settings of Run.
type Settings struct {
	// Passes over the data (0 or 1: ADF; more: EP with sites on disk).
	Passes int
	// Damping δ ∈ [infer.MinDamping, 1] on site natural parameters (0 means 1).
	Damping float64
	// FixedDamping keeps δ for the whole run; otherwise it adapts while
	// the residual stops decreasing (infer.Loop.FixedDamping).
	FixedDamping bool
	// Tol > 0 stops EP (Passes > 1) after a pass whose mean change
	// ‖m − m_prev‖₂ / δ is below Tol, as infer/ffep's FF-EP does.
	Tol float64
	// SiteDir is where EP's site file goes ("" = os.TempDir()).
	SiteDir string
	// Progress, if non-nil, is called every ProgressEvery examples (0 means
	// 10⁶) and at the end of each pass (EndOfPass).
	Progress      func(Progress)
	ProgressEvery int
}

// Progress is a snapshot of a running stream. EndOfPass marks the call
// after a pass, which carries the pass's residual ‖m − m_prev‖₂ / δ.
type Progress struct {
	Pass, Examples int
	PerSecond      float64 // examples per second since the start of the run
	EndOfPass      bool
	Residual       float64
}

// Result of Run.
type Result struct {
	Mean, Var []float64
	Status    infer.Status
	infer.Stats
	Message string
	// Examples per pass and their stored non-zeros.
	Examples, NonZeros int
	// PerSecond is the number of examples processed per second of wall time.
	PerSecond float64
	// Trace is the undamped residual ‖m − m_prev‖₂ / δ after each pass.
	Trace []float64
	// Errors counts skipped updates by reason ("cavity", "improper",
	// "non-finite").
	Errors map[string]int
}

// Run streams the problem's examples through ADF / EP. The context is
// checked every 4096 examples; a canceled run returns its state so far with
// status Canceled and no error. Errors reading the data (a malformed line)
// end the run with an error.
func Run(ctx context.Context, p *Problem, s *Settings) (*Result, error) {
	if err := validate(p, s); err != nil {
		return nil, err
	}
	e := newEngine(p, s)
	res, err := e.run(ctx)
	if res != nil {
		res.Runtime = time.Since(e.start)
		if sec := res.Runtime.Seconds(); sec > 0 {
			res.PerSecond = float64(e.seen) / sec
		}
	}
	return res, err
}

func validate(p *Problem, s *Settings) error {
	switch {
	case p == nil || s == nil || p.Lik == nil || p.Train == nil:
		return errors.New("stream: nil problem, settings, likelihood or source")
	case p.D > 0 && (len(p.PriorMean) != 1 || len(p.PriorVar) != 1):
		return fmt.Errorf("stream: a prior shared by %d weights has %d means and %d variances, want 1", p.D, len(p.PriorMean), len(p.PriorVar))
	case len(p.PriorMean) == 0 || len(p.PriorVar) != len(p.PriorMean):
		return fmt.Errorf("stream: prior mean has length %d, prior variance %d", len(p.PriorMean), len(p.PriorVar))
	case s.Damping != 0 && infer.CheckDamping(s.Damping) != nil:
		return fmt.Errorf("stream: %w", infer.CheckDamping(s.Damping))
	case s.Passes < 0:
		return fmt.Errorf("stream: passes %d", s.Passes)
	}
	for j, v := range p.PriorVar {
		if !(v > 0) || math.IsInf(v, 0) || math.IsNaN(p.PriorMean[j]) || math.IsInf(p.PriorMean[j], 0) {
			return fmt.Errorf("stream: prior %d: mean %g, variance %g (need a finite positive variance)", j, p.PriorMean[j], v)
		}
	}
	return nil
}

func (s *Settings) passes() int { return max(1, s.Passes) }

func (s *Settings) every() int {
	if s.ProgressEvery <= 0 {
		return 1_000_000
	}
	return s.ProgressEvery
}

// engine is the state of one Run.
type engine struct {
	p         *Problem
	s         *Settings
	delta     float64
	q         []float64 // q's natural parameters, interleaved: λ_j = q[2j], η_j = q[2j+1] (one cache line per weight)
	m         []float64 // the means η_j/λ_j after the last completed pass (the residual's reference)
	ex        example   // scratch of one example
	sites     *siteStore
	res       *Result
	start     time.Time
	seen      int
	passSkips int
}

func newEngine(p *Problem, s *Settings) *engine {
	d := p.dim()
	e := &engine{p: p, s: s, delta: s.Damping, q: make([]float64, 2*d),
		res: &Result{Errors: map[string]int{}}, start: time.Now()}
	if e.delta == 0 {
		e.delta = 1
	}
	for j := range d {
		k := j
		if p.D > 0 {
			k = 0 // the shared prior
		}
		e.q[2*j] = 1 / p.PriorVar[k]
		e.q[2*j+1] = p.PriorMean[k] / p.PriorVar[k]
	}
	return e
}

// dim is the number of weights d.
func (p *Problem) dim() int {
	if p.D > 0 {
		return p.D
	}
	return len(p.PriorMean)
}

func (e *engine) run(ctx context.Context) (*Result, error) {
	if e.s.passes() > 1 {
		st, err := newSiteStore(e.s.SiteDir)
		if err != nil {
			return nil, err
		}
		e.sites = st
		defer st.close()
	}
	e.m = make([]float64, len(e.q)/2)
	e.meanChange()
	l := infer.Loop{Tol: e.s.Tol, Damping: e.delta, MaxIter: e.s.passes(), FixedDamping: e.s.FixedDamping, Unit: "example"}
	if e.s.passes() == 1 || !(e.s.Tol > 0) {
		l.Converger = infer.Never{}
	}
	if e.s.passes() == 1 {
		l.Limit = infer.Done
	}
	if e.s.Progress != nil {
		l.Progress = func(pass int, r float64) {
			pr := e.progress(pass, e.res.Examples)
			pr.EndOfPass, pr.Residual = true, r
			e.s.Progress(pr)
		}
	}
	var dataErr error // a data error ends the run with an error, not a status
	o := infer.Iterate(ctx, l, func(ctx context.Context, pass int, damping float64) (infer.Sweep, error) {
		e.delta = damping
		sw, err := e.sweep(ctx, pass)
		if err != nil && ctx.Err() == nil {
			dataErr = err
			return sw, &infer.Halt{Status: infer.Failed, Message: err.Error()}
		}
		return sw, err
	})
	if dataErr != nil {
		return nil, dataErr
	}
	e.res.Trace = append(e.res.Trace, o.Trace...)
	e.res.Adapted = append(e.res.Adapted, o.Adapted...)
	return e.finish(o.Status, o.Message), nil
}

// sweep is one pass over the data; its change is ‖m − m_prev‖₂ against the
// means of the previous pass.
func (e *engine) sweep(ctx context.Context, pass int) (infer.Sweep, error) {
	e.passSkips = 0
	u := e.res.Updates
	n, err := e.pass(ctx, pass)
	sw := infer.Sweep{Updates: e.res.Updates - u, Skipped: e.passSkips}
	if err != nil {
		return sw, err
	}
	if pass > 1 && n != e.res.Examples {
		return sw, fmt.Errorf("stream: pass %d read %d examples, pass 1 read %d: the data changed", pass, n, e.res.Examples)
	}
	e.res.Examples, e.res.Iterations = n, pass
	sw.Change = math.Sqrt(e.meanChange())
	if sw.Skipped > 0 {
		sw.Why = infer.SkipReasons(e.res.Errors)
	}
	if math.IsInf(sw.Change, 0) || math.IsNaN(sw.Change) {
		return sw, errors.New("non-finite posterior mean")
	}
	return sw, nil
}

// pass streams every example once and returns how many there were.
func (e *engine) pass(ctx context.Context, pass int) (int, error) {
	rows, err := e.p.Train.Open()
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if e.sites != nil {
		if err := e.sites.begin(pass < e.s.passes()); err != nil {
			return 0, err
		}
	}
	n := 0
	for ; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return n, ctx.Err()
		}
		y, idx, val, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		if err := e.visit(n+1, y, idx, val); err != nil {
			return n, err
		}
		e.seen++
		if e.s.Progress != nil && e.seen%e.s.every() == 0 {
			e.s.Progress(e.progress(pass, n+1))
		}
	}
	if e.sites != nil {
		if err := e.sites.end(); err != nil {
			return n, err
		}
	}
	return n, nil
}

func (e *engine) progress(pass, n int) Progress {
	pr := Progress{Pass: pass, Examples: n}
	if sec := time.Since(e.start).Seconds(); sec > 0 {
		pr.PerSecond = float64(e.seen) / sec
	}
	return pr
}

// visit checks example k (1-based) against d, updates q and stores its site.
func (e *engine) visit(k int, y float64, idx []int32, val []float64) error {
	if d := len(e.q) / 2; len(idx) > 0 && int(idx[len(idx)-1]) >= d {
		return fmt.Errorf("stream: example %d has feature %d but the model has %d", k, idx[len(idx)-1]+1, d)
	}
	if pass1 := e.res.Iterations == 0; pass1 {
		e.res.NonZeros += len(idx)
	}
	e.ex.resize(len(idx))
	if e.sites != nil {
		if err := e.sites.load(e.ex.lamS, e.ex.etaS); err != nil {
			return err
		}
	} else {
		clear(e.ex.lamS) // ADF: no site to divide out
		clear(e.ex.etaS)
	}
	if why := e.update(y, idx, val); why != "" {
		e.res.Skipped++
		e.passSkips++
		e.res.Errors[why]++
	} else {
		e.res.Updates++
	}
	if e.sites != nil {
		return e.sites.store(e.ex.lamS, e.ex.etaS)
	}
	return nil
}

// meanChange sets e.m to q's means η_j/λ_j and returns Σ_j (m_j − m_old_j)²
// against the means it held. Updating in place keeps the engine at three
// numbers per weight (q and m), with no per-pass copy.
func (e *engine) meanChange() float64 {
	s := 0.0
	for j, old := range e.m {
		m := e.q[2*j+1] / e.q[2*j]
		s += (m - old) * (m - old)
		e.m[j] = m
	}
	return s
}

// finish makes the result from q: the means in e.m (recomputed, since a
// canceled or failed pass stops between updates) and the variances 1/λ_j
// written over the front of q in place — weight j's λ is at q[2j] ≥ j, read
// before anything is written there — so the result costs no allocation
// beyond the engine's three numbers per weight.
func (e *engine) finish(st infer.Status, msg string) *Result {
	res := e.res
	res.Status, res.Message = st, msg
	e.meanChange()
	d := len(e.m)
	for j := range d {
		e.q[j] = 1 / e.q[2*j]
	}
	res.Mean, res.Var = e.m, e.q[:d:d]
	e.q = nil
	return res
}
