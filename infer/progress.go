package infer

import (
	"math"
	"time"
)

// Progress is one report of a running method, for a progress display: how
// much of its work is done in the method's own unit, its convergence
// measure and the time since it started.
type Progress struct {
	Label string // the result label, or "learn"
	Unit  string // what Done counts: "sweep", "draw", "evaluation"
	Done  int
	// Total is the fixed amount of work (an MCMC run's draws over all
	// chains), 0 when the work ends at convergence and is not known ahead.
	Total int
	// Measure names R: "R" (the change of a sweep, Result.Trace), "error"
	// (exact's current error estimate against its tolerance), "-log Z"
	// (learn's objective); R is NaN when the method reports none.
	Measure string
	R       float64
	Elapsed time.Duration
}

// Remaining estimates the time left from the rate so far,
//
//	Elapsed · (Total − Done) / Done,
//
// and reports false when the amount of work is not known (Total = 0) or
// nothing is done yet.
func (p Progress) Remaining() (time.Duration, bool) {
	if p.Total <= 0 || p.Done <= 0 || p.Done > p.Total {
		return 0, false
	}
	left := float64(p.Elapsed) * float64(p.Total-p.Done) / float64(p.Done)
	return time.Duration(math.Round(left)), true
}
