// Package bp is fg's loopy belief propagation engine for discrete factor
// graphs of any arity: sum-product BP (divergence infer.KL), fractional BP
// (infer.Alpha{A}: every factor weight c = 1/A, as libDAI's FBP) and relaxed
// BP (infer.RelaxedKL{C}, qi-guo-relaxed-ep-rbp.md §4.2), with the schedules
// sequential (libDAI SEQFIX), random (libDAI SEQRND, seeded), parallel
// (PARALL) and residual (SEQMAX), geometric damping, and the Bethe (or
// fractional Bethe) log Z.
//
// The unit of work is libDAI's: one update recomputes the message of one
// edge (factor a → variable i); a pass (sweep) updates every edge once, in
// the order "for each variable i, for each factor a ∋ i by index". After
// every pass the convergence measure is libDAI's, the largest change of any
// single-variable belief probability max_i ‖b_i − b_i^old‖_∞, divided by
// the damping step s: a damped pass moves the messages s of the way, so
// this is the undamped fixed-point residual to first order (libDAI's own
// measure at s = 1; without the division a tiny step would stop after one
// pass at the initial beliefs). infer.Iterate decides the status: the run
// converges when the measure is < Tol.
//
// Messages are kept in the log domain, normalised (natural parameters of the
// categorical family); single-variable factors are absorbed into priors.
// Plain undamped BP on binary pairwise models keeps instead one ratio per
// message in the linear domain (spin.go), with the same numbers to rounding.
package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// Settings are infer.Settings with BP's reading of them:
//
//   - Divergence: nil or infer.KL (BP), infer.Alpha{A} with A > 0 (fractional
//     BP, c = 1/A), infer.RelaxedKL{C} with C ≥ 0 (relaxed BP).
//   - Damping: the step s ∈ [infer.MinDamping, 1] in log-message space, 0 meaning 1
//     (undamped); libDAI's damping d corresponds to s = 1 − d.
//   - Tol: default infer.DefaultBeliefTol (1e-9); MaxIter: default
//     infer.DefaultBPMaxIter (10000) passes.
type Settings struct {
	infer.Settings
}

// Result is the outcome of a run.
type Result struct {
	Marginals [][]float64 // per variable, belief probabilities
	// LogZ is the Bethe approximation −F_Bethe(b) at the final beliefs
	// (libDAI BP::logZ); for fractional BP the fractional Bethe free energy
	// with weights c (libDAI FBP::logZ); for relaxed BP the Bethe formula at
	// the relaxed beliefs.
	LogZ    float64
	MaxDiff float64   // last convergence measure
	Trace   []float64 // convergence measure after every pass
	// B is the relaxation weight of each factor of the source graph (relaxed
	// BP only; 0 for single-variable factors).
	B       []float64
	Status  infer.Status
	Message string // reason for a non-converged status
	infer.Stats
}

// Run converts g with NewProblem and runs it.
func Run(ctx context.Context, g *graph.Graph, s Settings) (*Result, error) {
	p, err := NewProblem(g)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, s)
}

// newEngine sets up the message state; spinOK lets plain BP on binary
// pairwise models use the spin state (tests turn it off to compare).
func newEngine(p *Problem, s *Settings, spinOK bool) (*engine, error) {
	en := &engine{p: p, invc: 1, c: 1, step: s.Damping}
	if en.step == 0 {
		en.step = 1
	}
	if err := infer.CheckDamping(en.step); err != nil {
		return nil, fmt.Errorf("bp: %w", err)
	}
	switch d := s.Divergence.(type) {
	case nil, infer.KL:
	case infer.Alpha:
		if !(d.A > 0) || math.IsInf(d.A, 0) {
			return nil, fmt.Errorf("bp: %v needs a power A > 0", d)
		}
		en.c, en.invc = 1/d.A, d.A
	case infer.RelaxedKL:
		if !(d.C >= 0) {
			return nil, fmt.Errorf("bp: %v needs a penalty C ≥ 0", d)
		}
		en.relax, en.pen = true, d.C
	default:
		return nil, fmt.Errorf("bp: divergence %v is not available for discrete BP (kl, alpha, relaxed_kl)", d)
	}
	if en.relax {
		en.selfW = make([]float64, p.NumFactors())
	} else {
		en.w0 = 1 - 1/en.c
	}
	if kind := scheduleClass(s.Schedule); spinOK && en.useSpin(kind) {
		if sp, ok := newSpin(en, kind == schedParallel); ok {
			en.sp = sp
			return en, nil
		}
	}
	if !en.relax {
		en.initLinear()
	}
	en.msg = make([]float64, p.numMsg())
	for e := 0; e < p.NumEdges(); e++ {
		u := -math.Log(float64(p.card.at(p.evar[e])))
		m := p.msgOf(en.msg, int32(e))
		for k := range m {
			m[k] = u
		}
	}
	if s.Schedule != infer.Sequential && s.Schedule != infer.Random || en.step != 1 {
		en.nmsg = append([]float64(nil), en.msg...)
	}
	return en, nil
}

// scheduleClass groups schedules for useSpin.
func scheduleClass(s infer.Schedule) int {
	switch s {
	case infer.Sequential, infer.Random:
		return schedSequential
	case infer.Parallel:
		return schedParallel
	}
	return schedOther
}

// Run performs message passing until convergence, the pass limit, numerical
// failure or cancellation. On cancellation it returns the partial result
// (Status Canceled) together with ctx.Err(). Memory: one array of
// normalised log messages (8 bytes per state per edge), and a second one for
// the parallel and residual schedules and for damping.
func (p *Problem) Run(ctx context.Context, s Settings) (*Result, error) {
	return p.run(ctx, s, true)
}

func (p *Problem) run(ctx context.Context, s Settings, spinOK bool) (*Result, error) {
	start := time.Now()
	s.Settings = s.Settings.WithDefaults(infer.MethodBP)
	en, err := newEngine(p, &s, spinOK)
	if err != nil {
		return nil, err
	}
	sch, err := newScheduler(en, &s)
	if err != nil {
		return nil, err
	}
	res := &Result{MaxDiff: math.Inf(1)}
	old, cur := make([]float64, len(p.prior)), make([]float64, len(p.prior))
	en.beliefs(old)
	o := infer.Iterate(ctx, infer.Loop{Tol: s.Tol, Damping: en.step, MaxIter: s.MaxIter, FixedDamping: s.FixedDamping, Progress: s.Progress},
		func(_ context.Context, _ int, step float64) (infer.Sweep, error) {
			sch.setStep(step)
			n := sch.pass()
			res.Updates += n
			res.Iterations++
			ok := en.beliefs(cur)
			d := maxDiff(cur, old)
			res.MaxDiff = d / en.step
			old, cur = cur, old
			if !ok || math.IsNaN(d) {
				return infer.Sweep{Updates: n}, errors.New("non-finite beliefs")
			}
			return infer.Sweep{Change: d, Updates: n}, nil
		})
	res.Status, res.Message, res.Trace, res.Adapted = o.Status, o.Message, o.Trace, o.Adapted
	en.finish(res, old, cur)
	res.Runtime = time.Since(start)
	if o.Status == infer.Canceled {
		return res, ctx.Err()
	}
	return res, nil
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for k := range a {
		x := math.Abs(a[k] - b[k])
		if x > d || math.IsNaN(x) {
			d = x
		}
	}
	return d
}

// finish fills marginals, log Z and relaxation weights from beliefs bel,
// which it keeps as the marginals' storage; scratch (the previous beliefs,
// one entry per state) serves log Z.
func (en *engine) finish(res *Result, bel, scratch []float64) {
	p := en.p
	res.Marginals = make([][]float64, p.nv)
	for i := range res.Marginals { // views of bel: the run's last use of it
		res.Marginals[i] = bel[p.voff.at(int32(i)):p.voff.at(int32(i+1)):p.voff.at(int32(i+1))]
	}
	res.LogZ = en.logZ(bel, scratch)
	if en.relax {
		res.B = make([]float64, max(p.nfac, 0))
		for a := range int32(p.NumFactors()) {
			if o := p.orig.at(a); o >= 0 && int(o) < len(res.B) {
				res.B[o] = en.selfW[a]
			}
		}
	}
}

// scheduler runs one pass of a schedule and returns the number of updates.
type scheduler struct {
	en   *engine
	kind infer.Schedule
	seq  []int32 // libDAI's update sequence: edges of var 0 by factor, var 1, ...
	rng  *rand.Rand
	heap *residualHeap
}

func newScheduler(en *engine, s *Settings) (*scheduler, error) {
	if err := infer.CheckSchedule(string(infer.MethodBP), s.Schedule, infer.BPSchedules); err != nil {
		return nil, fmt.Errorf("bp: %w", err)
	}
	sc := &scheduler{en: en, kind: s.Schedule}
	switch {
	case en.sp == nil:
		sc.seq = append([]int32(nil), en.p.vedge...)
	case s.Schedule == infer.Random: // slots in vedge order, shuffled as the edges would be
		sc.seq = make([]int32, len(en.p.vedge))
		for k := range sc.seq {
			sc.seq[k] = int32(k)
		}
	}
	switch s.Schedule {
	case infer.Random:
		sc.rng = rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	case infer.Residual:
		sc.heap = newResidualHeap(en)
	}
	return sc, nil
}

// setStep sets the damping step of the next pass. The spin state has no
// damping: the first step below 1 moves it to log messages (spin.export),
// where the passes continue in the same order.
func (sc *scheduler) setStep(step float64) {
	en := sc.en
	if step == en.step {
		return
	}
	en.step = step
	if en.sp != nil {
		en.sp.export(en)
		en.sp = nil
		en.initLinear() // the log-domain engine's linear tables, not made for the spin state
		sc.seq = append(sc.seq[:0], en.p.vedge...)
	}
	if en.nmsg == nil {
		en.nmsg = append([]float64(nil), en.msg...)
	}
}

func (sc *scheduler) pass() int {
	en := sc.en
	if en.sp != nil {
		return sc.spinPass()
	}
	switch sc.kind {
	case infer.Parallel:
		en.calcAll(sc.seq)
		for _, e := range sc.seq {
			en.apply(e)
		}
	case infer.Residual:
		sc.heap.pass()
	default:
		if sc.rng != nil {
			sc.rng.Shuffle(len(sc.seq), func(i, j int) { sc.seq[i], sc.seq[j] = sc.seq[j], sc.seq[i] })
		}
		for _, e := range sc.seq {
			en.update(e)
		}
	}
	return len(sc.seq)
}

// spinPass is pass on the spin state.
func (sc *scheduler) spinPass() int {
	sp := sc.en.sp
	switch {
	case sc.kind == infer.Parallel:
		sp.parallel()
	case sc.rng != nil:
		sc.rng.Shuffle(len(sc.seq), func(i, j int) { sc.seq[i], sc.seq[j] = sc.seq[j], sc.seq[i] })
		sp.sequential(sc.seq)
	default:
		sp.sequential(nil)
	}
	return len(sp.r)
}
