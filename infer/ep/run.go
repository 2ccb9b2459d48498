package ep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
)

// Settings are infer.Settings plus EP's own knobs.
//
// Defaults: Divergence nil = KL; Damping 0 = 1 (undamped); Tol 0 = 1e-6;
// MaxIter 0 = 200. Schedule Sequential, Random (seeded by Seed) and Parallel
// are supported.
//
// Convergence is judged on the undamped fixed-point residual: with damping
// δ a sweep moves the sites δ of the way to their proposals, so the change
// of the posterior means μ and marginal standard deviations σ is divided by δ,
//
//	R(iter) = ‖(μ, σ)_iter − (μ, σ)_iter−1‖₂ / δ,
//
// the change an undamped sweep would make to first order (exact at δ = 1).
// Without the division a tiny δ would stop after one sweep at the prior.
// A sweep with skipped updates is never Converged: when R < Tol but updates
// were skipped the status is Stalled.
//
// alpha(A) with A < MinAlpha runs at MinAlpha (see MinAlpha).
type Settings struct {
	infer.Settings
	// Refresh is the number of sequential sweeps between recomputations of
	// Σ and μ from scratch (one Cholesky, a triangular solve and a rank-M
	// update: about 2.3 M³ flops against a sweep's M³), which removes the
	// rounding that rank-1 updates accumulate; 0 means every
	// DefaultRefresh sweeps, 1 every sweep (as GPML's infEP). A negative
	// value never refreshes during the run. The result is always refactored
	// from the final sites.
	Refresh int
	// NonNegativeSites clamps every new site precision at zero,
	// τ̃ ← max(τ̃, 0), keeping ν̃ from the unclamped update. This is GPML
	// infEP's convention ("enforce positivity"); it changes the fixed point
	// only for likelihoods that are not log-concave (e.g. Step with Eps > 0),
	// where plain EP may legitimately produce negative site precisions.
	NonNegativeSites bool
	// KeepCov keeps the running posterior covariance Σ_f of a sequential
	// site-space run (rank-one updated, refreshed every Refresh sweeps) in
	// the result, M² floats, for Result.SiteCov: the final variances then
	// come from it and the final factorisation is only B's Cholesky (as
	// for M ≥ delayMin), no recomputation of Σ. Evidence maximisation
	// (infer/learn) sets it: its gradient needs Σ_f at every evaluation.
	KeepCov bool
	// Incremental keeps the B factorisations out of a sequential run in
	// site space whose sites observe the coordinates (a GP) and whose
	// result serves log Z_EP, the marginals and Σ_f only — evidence
	// maximisation, which runs EP at every evaluation and predicts
	// nothing. It implies KeepCov, and
	//   - warm-start sites (Problem.Init) enter the prior Σ = Kf one at a
	//     time by the sweeps' rank-one update (insertSites: a sweep's M³
	//     flops, against the 2⅓ M³ of a recomputation);
	//   - log det(I + T Kf) is carried through every rank-one update: a
	//     site change Δτ_i multiplies det(Kf⁻¹ + T) by 1 + Δτ_i Σ_ii (the
	//     matrix determinant lemma), the update's own denominator;
	//   - the result is the running state: μ_f and diag Σ_f as the last
	//     sweep left them, α = ν̃ − T μ_f and log Z_EP with the carried
	//     log det — no final factorisation (its M³/3 flops).
	// The result then has no factorisation (Predict, Cov and LogZGrad
	// return an error). A run with a tight site (tight.go), whose marginals
	// need B's factorisation, or whose warm sites cannot be inserted one at
	// a time (1 + Δτ_i Σ_ii ≤ 0 on the way), factorises as without it.
	Incremental bool

	// space forces the site-space or weight-space path (tests only).
	space pathMode
}

// DefaultRefresh is the number of sequential sweeps between refreshes when
// Settings.Refresh is 0: rare enough that a run costs little more than its
// rank-1 sweeps, frequent enough to bound their rounding.
const DefaultRefresh = 10

// Result is the outcome of one EP run.
type Result struct {
	Status  infer.Status
	Message string // reason for a non-converged status
	infer.Stats
	// Mean and Var are the posterior marginals of w; FMean and FVar those of
	// the site projections f_i = a_iᵀw (identical to Mean/Var for a GP).
	Mean, Var   []float64
	FMean, FVar []float64
	Sites       []families.Gaussian // final site messages (natural parameters)
	// B is the relaxation weight b_i of each site's last update (relaxed
	// KL; zero otherwise).
	B []float64
	// LogZ is log Z_EP (rodrigues eqs 23–28, GPML's −nlZ) for KL, and power
	// EP's evidence approximation for Alpha (equal to log Z_EP at A = 1).
	// HasLogZ is false for RelaxedKL, whose energy is not an evidence
	// approximation, and when the run did not converge.
	LogZ    float64
	HasLogZ bool
	// Trace holds R(iter) = ‖μ_iter − μ_iter−1‖₂ / δ over the projections'
	// posterior means after every sweep (qi-guo §6.1; δ the damping, see
	// Settings).
	Trace []float64

	pr    *projection
	bf    *bform
	ws    *wpost        // weight-space posterior (bf is then nil)
	sigma *mat.SymDense // running Σ_f of a sequential run (Settings.KeepCov)
	alpha []float64     // ν̃ − T μ_f = Kf⁻¹(μ_f − f0) without Kf⁻¹
}

// Run performs EP on p. Invalid problems and settings return an error; numerical
// trouble is reported in Result.Status (Diverged, Failed) and Stats.Skipped.
// When ctx is canceled, Run returns the partial result with Status Canceled
// together with ctx.Err().
func Run(ctx context.Context, p *Problem, s Settings) (*Result, error) {
	return runEP(ctx, p.validate, s, func(r rule) (*Result, error) {
		e, err := newEngineDone(p, s, r, ctx.Done())
		if err != nil {
			return nil, err
		}
		return e.loop(ctx), nil
	}, &Result{Status: infer.Canceled, Message: "canceled"})
}

// outcome is what runEP reads and sets of an EP result (Result, FITCResult).
type outcome interface {
	status() infer.Status
	stats() *infer.Stats
}

func (r *Result) status() infer.Status     { return r.Status }
func (r *Result) stats() *infer.Stats      { return &r.Stats }
func (r *FITCResult) status() infer.Status { return r.Status }
func (r *FITCResult) stats() *infer.Stats  { return &r.Stats }

// runEP is the protocol of an EP run, shared by Run and RunFITC: a panic
// becomes an internal error; an invalid problem (validate) or settings is
// returned as the error with no result; start builds the engine under ctx
// and runs it, and a build that fails while ctx is canceled returns
// canceled (the result of a run canceled before its first sweep); the
// result carries its run time, and a canceled run returns its partial
// result together with ctx.Err().
func runEP[R outcome](ctx context.Context, validate func() error, s Settings, start func(rule) (R, error), canceled R) (res R, err error) {
	var none R
	defer func() {
		if r := recover(); r != nil {
			res, err = none, fmt.Errorf("ep: internal error: %v", r)
		}
	}()
	t0 := time.Now()
	if err := validate(); err != nil {
		return none, err
	}
	r, err := settingsRule(s)
	if err != nil {
		return none, err
	}
	res, err = start(r)
	if err != nil && ctx.Err() == nil {
		return none, err
	}
	if err != nil {
		res = canceled
	}
	res.stats().Runtime = time.Since(t0)
	if res.status() == infer.Canceled {
		return res, ctx.Err()
	}
	return res, nil
}

type engine struct {
	p     *Problem
	pr    *projection
	s     Settings
	mom   []float64 // moments() buffer
	r     rule
	sites []families.Gaussian
	b     []float64
	st    *state
	// fresh reports that st was computed from scratch from the current
	// sites (by a refresh or a parallel sweep), so that finish can use its
	// factorisation instead of refactoring.
	fresh bool
	rng   *rand.Rand
	stats infer.Stats
	done  <-chan struct{} // the run's ctx.Done(): sweeps stop between sites
	// spare is M×M storage for the next factorisation of B: the factor of
	// a state that no longer needs it (see release), so that refreshes and
	// parallel sweeps reuse two buffers instead of allocating one each.
	spare []float64
	upd   sigmaUpdates // the sequential sweeps' update buffers
}

// canceled reports whether the run's context is done (a non-blocking
// receive, cheap enough to ask between two site updates).
func (e *engine) canceled() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

func newEngine(p *Problem, s Settings, r rule) (*engine, error) {
	return newEngineDone(p, s, r, nil)
}

// newEngineDone is newEngine whose set-up (the projection products) stops
// with errCanceled when done closes.
func newEngineDone(p *Problem, s Settings, r rule, done <-chan struct{}) (*engine, error) {
	s = s.withDefaults()
	s.KeepCov = s.KeepCov || s.Incremental
	if s.Refresh == 0 {
		s.Refresh = DefaultRefresh
	}
	m := len(p.Sites)
	pr, err := newProjectionDone(p, s.space, done)
	if err != nil {
		return nil, err
	}
	e := &engine{p: p, pr: pr, s: s, r: r, sites: make([]families.Gaussian, m), b: make([]float64, m)}
	if p.Init != nil {
		copy(e.sites, p.Init)
	}
	if s.Schedule == infer.Random {
		e.rng = rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	}
	return e, nil
}

func (e *engine) sequential() bool { return e.s.Schedule != infer.Parallel }

// recompute rebuilds the posterior from sites on the engine's path; full
// (site space only) asks for the whole M×M Σ_f, written over the current
// state's running Σ_f when there is one (see refactor).
func (e *engine) recompute(sites []families.Gaussian, full bool) (*state, error) {
	if e.pr.weight {
		return recomputeW(e.pr, sites)
	}
	sc := scratch{done: e.done, b: e.spare}
	e.spare = nil
	if full && e.st != nil {
		sc.sigma = e.st.sigma
	}
	st, err := recompute(e.pr, sites, full, sc)
	if err != nil {
		e.spare = sc.b
		if sc.sigma != nil {
			// Σ's storage now holds a partial result: keep only the means.
			e.st = &state{mu: e.st.mu}
			e.fresh = false
		}
		return nil, err
	}
	e.release()
	return st, nil
}

// release hands the factor storage of the current state to the next
// factorisation: the state's sites changed (or it is being replaced), so its
// factorisation is no longer the final one.
func (e *engine) release() {
	if e.st != nil && e.st.bf != nil && e.spare == nil {
		e.spare = e.st.bf.storage()
		e.st.bf = nil
	}
}

// start is the posterior before the first sweep: the prior itself (μ = f0,
// Σ = Kf, no factorisation) when every site is flat on the site-space path,
// else a recomputation from the warm-start sites.
func (e *engine) start() (*state, error) {
	if e.pr.weight || !flat(e.sites) {
		if e.incremental() && !anyTight(e.pr, e.sites) {
			st, err := e.insertSites()
			if err == nil || errors.Is(err, errCanceled) {
				return st, err
			}
		}
		st, err := e.refactor(e.sites, e.sequential())
		if err == nil {
			e.fresh = true
			e.track(st)
		}
		return st, err
	}
	st, err := priorState(e.pr, e.sequential())
	if err == nil && e.incremental() {
		st.tracking = true // log det(I + 0·Kf) = 0
	}
	return st, err
}

// incremental reports whether the run carries its posterior by rank-one
// updates alone (Settings.Incremental): sequential, in site space, with
// sites on the coordinates.
func (e *engine) incremental() bool {
	return e.s.Incremental && e.sequential() && !e.pr.weight && e.pr.identity
}

// track starts carrying log det(I + T Kf) through the rank-one updates of
// st, a state just factorised, from its factorisation's value.
func (e *engine) track(st *state) {
	if e.incremental() && st.bf != nil {
		st.tracking, st.runLogDet = true, st.bf.logDet
	}
}

// insertSites is the start of an Incremental run from warm sites: the
// prior (μ = f0, Σ = Kf) updated by each site in turn with the sweeps'
// rank-one update (from a flat site to e.sites[i]), carrying log det from
// 0. The updates are always delayed (delayed.go), whatever M: unlike a
// sweep's they have no earlier rounding to reproduce, and at M = 200 the
// blocked form takes about 0.75 of one-by-one updates (BenchmarkWarmStart).
// It fails with errImproper when an intermediate update would make the
// posterior improper (a negative site precision met before the sites that
// compensate it), and the caller refactors instead.
func (e *engine) insertSites() (*state, error) {
	st, err := priorState(e.pr, true)
	if err != nil {
		return nil, err
	}
	st.tracking = true
	d := newDelayed(st)
	for i, sp := range e.sites {
		if e.canceled() {
			return nil, errCanceled
		}
		if sp != (families.Gaussian{}) && !d.update(i, sp.Prec, sp.Shift) {
			return nil, errImproper
		}
	}
	d.flush()
	for i, m := range st.mu {
		if !finite(m) || !(st.sigma.At(i, i) > 0) {
			return nil, errImproper
		}
	}
	return st, nil
}

func flat(sites []families.Gaussian) bool {
	for _, sp := range sites {
		if sp != (families.Gaussian{}) {
			return false
		}
	}
	return true
}

func (e *engine) loop(ctx context.Context) *Result {
	res := &Result{}
	e.done = ctx.Done()
	var err error
	if e.st, err = e.start(); err != nil {
		if errors.Is(err, errCanceled) {
			return e.finish(res, infer.Canceled, "canceled")
		}
		if e.p.Init == nil {
			return e.finish(res, infer.Failed, "prior covariance could not be factorised: "+err.Error())
		}
		return e.finish(res, infer.Failed, "warm-start sites give an improper posterior")
	}
	status, msg := iterate(ctx, e.s, &e.r.Damping, e.moments, func(it int) error {
		if e.sequential() {
			return e.sweepSequential(it)
		}
		return e.sweepParallel()
	}, &e.stats, &res.Trace)
	return e.finish(res, status, msg)
}

// moments is the vector whose change per sweep is the residual: the
// posterior means and the marginal standard deviations (momentVector) — a
// symmetric posterior can keep its mean while its variance still moves, and
// that is not a fixed point. The parallel schedule recomputes diag Σ every
// sweep; the sequential one reads it from the running Σ, exact after the
// sweep's last (flushed) rank-one update, or on the weight-space path from
// the marginals the sites saw (sweepSequentialW).
func (e *engine) moments() []float64 {
	if e.st.sigma == nil && len(e.st.sdiag) != len(e.st.mu) {
		return e.st.mu // a canceled refresh kept only the means
	}
	e.mom = momentVector(e.mom, e.st.mu, e.st.variance)
	return e.mom
}

// momentVector writes (μ_1..μ_n, σ_1..σ_n) into buf, σ_i = √variance(i):
// the standard deviations are in the units of the means, so one tolerance
// asks both to stop moving (the posterior's first two moments, qi-guo §6.1
// judged on the means alone).
func momentVector(buf, mu []float64, variance func(int) float64) []float64 {
	buf = append(buf[:0], mu...)
	for i := range mu {
		buf = append(buf, math.Sqrt(variance(i)))
	}
	return buf
}

func (e *engine) order() []int { return visitOrder(e.rng, len(e.sites)) }

// sweepSequential updates the sites one at a time with rank-1 updates of Σ
// (Σ_f, or Σ_w on the weight-space path), then (every Refresh sweeps)
// recomputes Σ and μ from scratch.
func (e *engine) sweepSequential(it int) error {
	if err := e.freshCavities(); err != nil {
		return err
	}
	n := e.stats.Updates
	if e.pr.weight {
		e.sweepSequentialW()
	} else {
		e.sweepSequentialF()
	}
	if e.stats.Updates != n {
		e.fresh = false
		e.release()
	}
	if e.canceled() {
		return nil // no O(M³) refresh: the run ends with the rank-one state
	}
	// A refresh on the last sweep would only be followed by the final
	// factorisation (finish), which settles the running state for a third
	// of a refresh's flops.
	if e.s.Refresh >= 0 && it%max(1, e.s.Refresh) == 0 && it < e.s.MaxIter {
		st, err := e.refactor(e.sites, true)
		if errors.Is(err, errCanceled) {
			return nil // the loop reports the cancellation
		}
		if err != nil {
			return err
		}
		e.track(st)
		e.st, e.fresh = st, true
	}
	if e.pr.weight {
		if !e.st.w.proper(e.st.mu) {
			return errors.New("posterior became improper or non-finite")
		}
		return nil
	}
	for i := range e.st.mu {
		if !finite(e.st.mu[i]) || !(e.st.sigma.At(i, i) > 0) {
			return errors.New("posterior became improper or non-finite")
		}
	}
	return nil
}

// sweepSequentialF is the site-space sweep: O(M²) per site.
// For M ≥ delayMin the rank-1 updates are delayed and applied in blocks
// (delayed.go); Σ is exact again at the end of the sweep.
func (e *engine) sweepSequentialF() {
	d := newSigmaUpdates(e.st, e.upd)
	e.upd = d
	defer d.flush()
	for _, i := range e.order() {
		if e.canceled() {
			return
		}
		old := e.sites[i]
		np, b, ok := e.proposeAt(i, d.variance(i))
		e.b[i] = b
		if !ok || !d.update(i, np.Prec-old.Prec, np.Shift-old.Shift) {
			e.stats.Skipped++
			continue
		}
		e.sites[i] = np
		e.stats.Updates++
	}
}

// proposeAt is rule.propose for site i of the site-space engine, from its
// marginal N(μ_i, v) or, for a tight site, its stable cavity (tight.go).
func (e *engine) proposeAt(i int, v float64) (families.Gaussian, float64, bool) {
	sp := e.sites[i]
	tc, nc := e.st.cavityAt(i, e.r.Power, sp, e.st.mu[i], v)
	return e.r.proposeCavity(e.p.Sites[i], sp, tc, nc)
}

// freshCavities refactors the state (either path) before a sequential sweep
// when some site is tight and the state was rank-one updated since its last
// factorisation: a tight site's cavity cannot be read from the running Σ,
// whose diagonal has lost the digits that carry it (tight.go), and is taken
// from this factorisation instead — computed before the sweep's earlier
// updates, which moves the path but not the fixed point. Models without
// tight sites skip this.
func (e *engine) freshCavities() error {
	if e.fresh || !anyTight(e.pr, e.sites) {
		return nil
	}
	st, err := e.refactor(e.sites, true)
	if errors.Is(err, errCanceled) {
		return nil
	}
	if err != nil {
		return err
	}
	e.track(st)
	e.st, e.fresh = st, true
	return nil
}

// sweepParallel computes every site's new message from the same posterior,
// then refactors once: one Cholesky of B and one triangular solve per sweep
// (M×M in site space, N×N plus O(M N²) products in weight space).
//
// New sites that give no proper posterior leave the sites, relaxation
// weights and posterior as they were and are reported as *infer.Rejected
// (rejectImproper): infer.Iterate repeats the sweep at a smaller step.
func (e *engine) sweepParallel() error {
	next := append([]families.Gaussian(nil), e.sites...)
	nb := append([]float64(nil), e.b...)
	for i := range e.sites {
		if e.canceled() {
			return nil
		}
		np, b, ok := e.proposeAt(i, e.st.sdiag[i])
		nb[i] = b
		if !ok {
			e.stats.Skipped++
			continue
		}
		next[i] = np
		e.stats.Updates++
	}
	st, err := e.refactor(next, false)
	if errors.Is(err, errCanceled) {
		return nil // the loop reports the cancellation; sites stay as they were
	}
	if err != nil {
		return rejectImproper(err)
	}
	e.sites, e.b, e.st, e.fresh = next, nb, st, true
	return nil
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}
