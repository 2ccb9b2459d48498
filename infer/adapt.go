package infer

import (
	"fmt"
	"math"
)

// This file holds Iterate's damping schedule. A message-passing iteration
// whose undamped map has a Jacobian eigenvalue below −1 at the fixed point
// (EP on weak, nearly collinear sites; loopy BP on a frustrated graph)
// never reaches it at the full step: it settles on a period-2 cycle, the
// residual R alternating between two values forever. A damped step δ maps
// the eigenvalue λ to 1 − δ(1 − λ), inside (−1, 1) for δ < 2/(1 − λ), so a
// small enough δ converges to the same fixed point (damping changes the
// path, not the fixed points of EP or BP: Heskes & Zoeter 2002, Minka
// 2001). The schedule finds δ by halving, as a step-size control does. It
// reads R in windows of AdaptWindow sweeps at one step and compares the
// largest R of each window with that of the window before — the envelope,
// which a converging iteration lowers however noisy its residual (loopy BP
// on a large grid) and a cycle, a divergence or a stagnation does not:
//
//   - a window whose largest R is not below the previous window's halves
//     δ, down to MinDamping;
//   - two windows in a row that lower it double δ back towards the line's
//     damping — unless that step has already failed twice, which marks it
//     as too large for this model (a step can be tried again after a
//     transient, but the schedule cannot cycle for ever between two steps).
//
// A sweep can also fail outright: parallel EP changes every site from the
// same posterior, and when the negative site precisions of a likelihood
// that is not log-concave add up, the new joint is not positive definite
// (the undamped iteration has left the region where the posterior exists,
// not EP's fixed point). A sweep that finds this leaves its state as it was
// and returns a *Rejected error; the schedule then halves the step at once
// and Iterate repeats the sweep from that state — the step-size control of
// robust EP implementations (GPML's infEP restarts from the last good
// sites; Minka 2001 and Seeger 2008 damp until the update is proper). A
// rejection counts as a failure of its step, so a step rejected twice is
// not tried again; only a rejection at MinDamping ends the run as diverged.
//
// A converging run is never touched. Convergence is still judged on the
// undamped change R = change/δ of the step the sweep made (iterate.go), so
// a step made small never fakes it. Each change is reported
// (Outcome.Adapted, then a warning of the result); Loop.FixedDamping (the
// infer option adapt_damping = false) keeps the line's step, as Infer.NET,
// libDAI and RxInfer always do.

// AdaptWindow is the number of sweeps of a window of the damping schedule.
const AdaptWindow = 20

// Adaptation is one change of the damping step made by Iterate.
type Adaptation struct {
	Sweep    int     // the sweep after which the step changed
	From, To float64 // the steps before and after
	// Rejected marks a sweep that made the state improper at step From:
	// it was undone and repeated at step To.
	Rejected bool
}

func (a Adaptation) String() string {
	if a.Rejected {
		return fmt.Sprintf("%g → %g retrying sweep %d", a.From, a.To, a.Sweep)
	}
	return fmt.Sprintf("%g → %g after sweep %d", a.From, a.To, a.Sweep)
}

// adapter is the state of the damping schedule of one Iterate call.
type adapter struct {
	on      bool
	top     float64 // the line's damping: the largest step
	level   int     // the step is top/2^level, at least MinDamping
	cap     int     // the smallest level allowed (levels that failed twice are above it)
	strikes map[int]int
	n       int     // sweeps in the current window
	win     float64 // the largest R of the current window
	last    float64 // the largest R of the previous window at this step (+Inf: none)
	streak  int     // windows in a row that lowered the envelope
	log     []Adaptation
}

func newAdapter(damping float64, on bool) *adapter {
	a := &adapter{on: on, top: damping, strikes: map[int]int{}}
	a.reset()
	return a
}

// step is the current damping step.
func (a *adapter) step() float64 {
	return max(a.top/math.Pow(2, float64(a.level)), MinDamping)
}

func (a *adapter) reset() {
	a.n, a.win, a.last, a.streak = 0, 0, math.Inf(1), 0
}

// observe takes the undamped change r of sweep it and changes the step
// when a window ends and the schedule says so.
func (a *adapter) observe(it int, r float64) {
	if !a.on || math.IsInf(r, 0) || math.IsNaN(r) {
		return // a belief not yet reached: no evidence either way
	}
	a.win = max(a.win, r)
	if a.n++; a.n < AdaptWindow {
		return
	}
	win, last := a.win, a.last
	a.n, a.win, a.last = 0, 0, win
	switch {
	case math.IsInf(last, 1): // the first window at this step: nothing to compare
	case win >= last*(1-1e-9):
		a.streak = 0
		a.fail(it, false)
	default:
		if a.streak++; a.streak >= 2 && a.level > a.cap {
			a.move(it, a.level-1, false)
		}
	}
}

// reject takes a sweep it that made the state improper and left it as it
// was: it halves the step, counting a failure of the old one, and reports
// whether the sweep may be repeated (false when adaptation is off or the
// step is already MinDamping).
func (a *adapter) reject(it int) bool {
	return a.on && a.fail(it, true)
}

// fail halves the step after a failure of the current one (a window that
// did not lower the envelope, or a rejected sweep); a step that failed
// twice caps the schedule below it. It reports false at MinDamping.
func (a *adapter) fail(it int, rejected bool) bool {
	if a.step() <= MinDamping {
		return false
	}
	if a.strikes[a.level]++; a.strikes[a.level] >= 2 {
		a.cap = max(a.cap, a.level+1)
	}
	a.move(it, a.level+1, rejected)
	return true
}

func (a *adapter) move(it, level int, rejected bool) {
	from := a.step()
	a.level = level
	a.log = append(a.log, Adaptation{Sweep: it, From: from, To: a.step(), Rejected: rejected})
	a.reset()
}

// AdaptationSummary describes the damping changes of a run for a warning,
// or "" when there were none.
func AdaptationSummary(log []Adaptation) string {
	if len(log) == 0 {
		return ""
	}
	first, last := log[0], log[len(log)-1]
	s := fmt.Sprintf("the residual stopped decreasing at damping %g, so the step was adapted (%s", first.From, first)
	if first.Rejected {
		s = fmt.Sprintf("sweep %d at damping %g made the state improper, so it was undone and the step was adapted (%s", first.Sweep, first.From, first)
	}
	switch {
	case len(log) == 2:
		s += ", " + last.String()
	case len(log) > 2:
		s += fmt.Sprintf(", …, %s; %d changes", last, len(log))
	}
	if last.To == first.From {
		return s + "); the run ended at the line's step, after a transient"
	}
	return s + fmt.Sprintf("); write damping = %g to start there, or adapt_damping = false to keep the step", last.To)
}
