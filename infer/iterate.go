package infer

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// This file holds the iteration driver of every message-passing engine
// (EP on Gaussian blocks, on factor graphs, fully factorised, streamed,
// sharded, t-EP, BP), shaped like gonum/optimize's Minimize: the engine
// supplies one sweep (a pass over its factors) that reports how much the
// state changed; Iterate owns the loop — context checks, the sweep budget,
// the damping rule and its schedule (adapt.go), the trace, progress
// reports — and decides the status in one place:
//
//	canceled         the context ended (checked before and after every sweep)
//	diverged         the sweep failed (a rejected sweep only at MinDamping or
//	                 a fixed step: it is repeated at half the step), or its
//	                 change is NaN (non-finite state)
//	failed           R < tol, but every update of the run was skipped
//	stalled          R < tol, but updates of the last sweep were skipped
//	converged        R < tol (the Converger's test) and nothing was skipped
//	iteration_limit  MaxIter sweeps without convergence (Loop.Limit)
//
// where R = Change / δ is the sweep's change divided by the damping step δ
// that sweep was given (Loop.Damping, or the adapted step). A damped sweep moves every message δ of the way to its proposal,
// so the change it makes is δ times the change the full step would make (to
// first order, exactly at δ = 1): dividing by δ judges convergence on the
// undamped change, and no step size fakes convergence by moving slowly.
// The division cannot see a step that rounding erased (δ·Δθ below the
// float64 resolution of θ: at δ = 1e-200 no message moves and R = 0), so
// damping below MinDamping is refused (CheckDamping, at compile time with
// the option's position). Above it the rounding error of R, about
// ε·|θ|/δ ≤ 2.2e-12·|θ|, stays far below any useful tolerance.

// MinDamping is the smallest damping step an engine accepts. Below it the
// damped step approaches the rounding of the state (see above), and
// convergence would take more than ln(1/tol)/δ ≈ 10⁵ sweeps at the default
// tolerance: a damping that small is a typo, not a schedule.
const MinDamping = 1e-4

// Sweep is what one sweep reports to Iterate.
type Sweep struct {
	// Change is the sweep's convergence measure — the change of the state
	// it made (of means, beliefs or messages, as the engine documents it),
	// before the division by the damping. NaN means the state is not finite
	// (diverged); +Inf means the state cannot be measured yet (a belief no
	// message has reached) and only prevents convergence.
	Change float64
	// Updates and Skipped count the factor updates of this sweep that were
	// made and skipped (improper cavity, non-finite tilted moments, ...).
	Updates, Skipped int
	// Why names the reason of skipped updates for the stalled message
	// (optional).
	Why string
}

// SweepFunc performs sweep iter (1, 2, ...) with damping step δ: every
// message the sweep changes moves δ of the way to its proposal. δ is the
// loop's Damping, or a smaller step while Iterate adapts it (adapt.go). The
// sweep may stop early when ctx ends (Iterate then reports canceled). An
// error ends the run as diverged with the error as the message, unless it
// is a *Halt.
type SweepFunc func(ctx context.Context, iter int, damping float64) (Sweep, error)

// Rejected is the error of a sweep whose step made the state improper (a
// joint that is not positive definite, a non-finite message) and that left
// the state as it was before the sweep. Iterate then repeats the sweep at
// half the step (adapt.go) — the sweep number, the sweep budget and the
// trace are those of the repeated sweep — and ends the run as diverged,
// with Err's message, only when the step is already MinDamping or the
// step is fixed (Loop.FixedDamping).
type Rejected struct{ Err error }

func (r *Rejected) Error() string { return r.Err.Error() }
func (r *Rejected) Unwrap() error { return r.Err }

// Halt is an error a sweep returns to end the run with a status of its
// choosing (for example Failed when a shard's worker fails).
type Halt struct {
	Status  Status
	Message string
}

func (h *Halt) Error() string { return h.Status.String() + ": " + h.Message }

// Converger decides convergence from the undamped change R of each sweep
// (gonum/optimize's Converger). Init is called once before the first sweep.
type Converger interface {
	Init()
	Converged(r float64) bool
}

// Below is the default Converger: converged when R < tol.
type Below float64

func (Below) Init()                        {}
func (tol Below) Converged(r float64) bool { return r < float64(tol) }

// Never is the Converger of a fixed number of passes (single-pass ADF,
// passes without a tolerance): it never reports convergence.
type Never struct{}

func (Never) Init()                  {}
func (Never) Converged(float64) bool { return false }

// Loop configures Iterate. Tol, Damping and MaxIter are the infer line's
// options, with their defaults already filled by the engine.
type Loop struct {
	Tol     float64 // the default Converger's tolerance (Below(Tol))
	Damping float64 // the step δ of the sweeps' messages; 0 means 1
	MaxIter int     // sweeps (at least one sweep runs)
	// FixedDamping keeps the step at Damping (the infer option
	// adapt_damping = false); otherwise Iterate halves it while the
	// residual stops decreasing (adapt.go). Runs with a Converger of their
	// own (fixed passes) always keep it.
	FixedDamping bool
	// Converger replaces Below(Tol) when set.
	Converger Converger
	// Limit is the status when MaxIter sweeps end without convergence:
	// IterationLimit (the zero value is read as IterationLimit), or Done
	// for a fixed number of passes such as single-pass ADF.
	Limit Status
	// Start is the number of sweeps done before (a resumed run): sweeps are
	// numbered from Start+1.
	Start int
	// Unit names a factor update in messages ("site", "factor", "shard").
	Unit string
	// Progress, when set, is called after every sweep with its number and R.
	Progress func(iter int, r float64)
}

// Outcome is how Iterate ended.
type Outcome struct {
	Status  Status
	Message string // the reason of every status but Converged
	// Iterations, Updates and Skipped count the sweeps of this call and the
	// updates they reported.
	Iterations, Updates, Skipped int
	Trace                        []float64 // R after every sweep
	Last                         Sweep     // the last sweep's report
	// Adapted are the changes of the damping step (adapt.go), in order;
	// Damping is the step of the last sweep.
	Adapted []Adaptation
	Damping float64
}

// Iterate runs sweep until the status is decided (see the top of this
// file). It never returns a nil Outcome; the engine fills its result's
// numbers according to Outcome.Status (Status.HasNumbers).
func Iterate(ctx context.Context, l Loop, sweep SweepFunc) Outcome {
	var o Outcome
	damping := l.Damping
	if damping == 0 {
		damping = 1
	}
	if err := CheckDamping(damping); err != nil {
		return o.end(Failed, err.Error())
	}
	conv := l.Converger
	ad := newAdapter(damping, conv == nil && !l.FixedDamping)
	if conv == nil {
		conv = Below(l.Tol)
	}
	conv.Init()
	for i := 1; i <= max(l.MaxIter, 1); i++ {
		it := l.Start + i
		if ctx.Err() != nil {
			return o.end(Canceled, "canceled: "+ctx.Err().Error())
		}
		damping = ad.step()
		o.Damping = damping
		s, err := sweep(ctx, it, damping)
		if rejected(ctx, err) && ad.reject(it) {
			o.Adapted = ad.log
			i-- // the same sweep again, from the same state, at half the step
			continue
		}
		o.Iterations, o.Last = i, s
		o.Updates += s.Updates
		o.Skipped += s.Skipped
		if st, msg, stop := sweepError(ctx, it, err); stop {
			return o.end(st, msg)
		}
		r := s.Change / damping
		o.Trace = append(o.Trace, r)
		if l.Progress != nil {
			l.Progress(it, r)
		}
		if math.IsNaN(r) {
			return o.end(Diverged, fmt.Sprintf("sweep %d: the state is not finite", it))
		}
		if conv.Converged(r) {
			return o.end(o.converged(l, it))
		}
		ad.observe(it, r)
		o.Adapted = ad.log
	}
	return o.end(o.limit(l))
}

// rejected reports whether err is a *Rejected sweep of a live run.
func rejected(ctx context.Context, err error) bool {
	var r *Rejected
	return ctx.Err() == nil && errors.As(err, &r)
}

// sweepError turns a sweep's error into the run's end: canceled when the
// context ended, the Halt's status, else diverged.
func sweepError(ctx context.Context, it int, err error) (Status, string, bool) {
	if ctx.Err() != nil {
		return Canceled, fmt.Sprintf("canceled during sweep %d: %v", it, ctx.Err()), true
	}
	if err == nil {
		return 0, "", false
	}
	var h *Halt
	if errors.As(err, &h) {
		return h.Status, h.Message, true
	}
	return Diverged, fmt.Sprintf("sweep %d: %v", it, err), true
}

// converged decides the status of a sweep whose R passed the test: a sweep
// with skipped updates is not a fixed point (the skipped factors do not
// satisfy their moment-matching condition), and a run whose every update
// was skipped is the initial state.
func (o *Outcome) converged(l Loop, it int) (Status, string) {
	switch {
	case o.Updates == 0 && o.Skipped > 0:
		return Failed, fmt.Sprintf("every update was skipped (%d %s updates%s): the state is the initial one", o.Skipped, l.unit(), why(o.Last))
	case o.Last.Skipped > 0:
		return Stalled, fmt.Sprintf("the state stopped changing at sweep %d but %d of %d %s updates in that sweep were skipped%s, so it is not a fixed point",
			it, o.Last.Skipped, o.Last.Updates+o.Last.Skipped, l.unit(), paren(o.Last.Why))
	}
	return Converged, ""
}

// limit decides the status when the sweep budget ran out.
func (o *Outcome) limit(l Loop) (Status, string) {
	if o.Updates == 0 && o.Skipped > 0 {
		return Failed, fmt.Sprintf("every update was skipped (%d %s updates%s): the state is the initial one", o.Skipped, l.unit(), why(o.Last))
	}
	if l.Limit == Done {
		return Done, ""
	}
	msg := fmt.Sprintf("R = %.3g ≥ tol %g after %d sweeps", o.Trace[len(o.Trace)-1], l.Tol, l.Start+o.Iterations)
	if o.Skipped > 0 {
		msg += fmt.Sprintf(" (%d %s updates skipped)", o.Skipped, l.unit())
	}
	return IterationLimit, msg
}

func (o *Outcome) end(st Status, msg string) Outcome {
	o.Status, o.Message = st, msg
	return *o
}

func (l Loop) unit() string {
	if l.Unit == "" {
		return "factor"
	}
	return l.Unit
}

// paren is " (s)", or "" for an empty s.
func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// why is the reason of a sweep's skipped updates, ", REASON" or "".
func why(s Sweep) string {
	if s.Why == "" {
		return ""
	}
	return ", " + s.Why
}
