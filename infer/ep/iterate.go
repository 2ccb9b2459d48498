package ep

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/fg-infer/fg/infer"
)

// iterate runs the sweeps of both Gaussian engines (dense and FITC) under
// infer.Iterate, which decides the status: sweep(it) is one sweep, and its
// change is ‖μ_it − μ_it−1‖₂ over the vector mu() of the posterior means
// and marginal standard deviations (momentVector), which the driver divides
// by the damping.
// The updates and skips of a sweep are read from stats, which the sweeps
// count; sites is the number of site updates per sweep. damping is the
// rule's step, which each sweep sets to the step the driver gives it.
func iterate(ctx context.Context, s Settings, damping *float64, mu func() []float64, sweep func(it int) error, stats *infer.Stats, trace *[]float64) (infer.Status, string) {
	prev := append([]float64(nil), mu()...)
	o := infer.Iterate(ctx, infer.Loop{Tol: s.Tol, Damping: *damping, MaxIter: s.MaxIter, FixedDamping: s.FixedDamping, Unit: "site", Progress: s.Progress},
		func(ctx context.Context, it int, step float64) (infer.Sweep, error) {
			*damping = step
			u, k := stats.Updates, stats.Skipped
			err := sweep(it)
			stats.Iterations = it
			sw := infer.Sweep{Updates: stats.Updates - u, Skipped: stats.Skipped - k, Why: "improper cavity or tilted distribution"}
			var rej *infer.Rejected
			if errors.As(err, &rej) {
				stats.Updates, stats.Skipped = u, k // the sweep was undone
			}
			if err != nil {
				return sw, fmt.Errorf("%w%s", err, improperHint(err, s, step))
			}
			sw.Change = dist(mu(), prev)
			copy(prev, mu())
			if !finite(sw.Change) {
				return sw, errors.New("non-finite posterior mean")
			}
			return sw, nil
		})
	*trace = append(*trace, o.Trace...)
	stats.Adapted = append(stats.Adapted, o.Adapted...)
	return o.Status, o.Message
}

// improperHint explains an improper posterior after an undamped parallel
// sweep: every site is updated from the same posterior, so the negative
// site precisions of a likelihood that is not log-concave add up at once
// (examples/robust_regression.fg: the precision after sweep 2 has an
// eigenvalue −1.7, TestParallelUndampedDiverges). That is a divergence of
// the iteration, not of EP's fixed point, which damping or the sequential
// schedule reach.
func improperHint(err error, s Settings, damping float64) string {
	if !errors.Is(err, errImproper) || s.Schedule != infer.Parallel {
		return ""
	}
	if damping == 1 {
		return " (parallel EP changes every site at once and the negative site precisions of a likelihood that is not log-concave can overshoot: use damping < 1 or schedule = sequential)"
	}
	return " (parallel EP changes every site at once: use a smaller damping or schedule = sequential)"
}

// rejectImproper marks the error of a parallel sweep whose new sites give
// no proper posterior — the sweep changed nothing — as *infer.Rejected, so
// that infer.Iterate repeats it at a smaller step; other errors pass.
func rejectImproper(err error) error {
	if errors.Is(err, errImproper) || errors.Is(err, errImproperFITC) {
		return &infer.Rejected{Err: err}
	}
	return err
}

// visitOrder is the order of one sequential sweep over m sites: 0..m−1,
// or a fresh permutation when rng is set (schedule random).
func visitOrder(rng *rand.Rand, m int) []int {
	if rng != nil {
		return rng.Perm(m)
	}
	o := make([]int, m)
	for i := range o {
		o[i] = i
	}
	return o
}

// settingsRule checks the settings both engines share and resolves the
// divergence, damping and τ̃ ≥ 0 clamp into a rule.
func settingsRule(s Settings) (rule, error) {
	if s.Damping != 0 {
		if err := infer.CheckDamping(s.Damping); err != nil {
			return rule{}, fmt.Errorf("ep: %w", err)
		}
	}
	r, ok := newRule(s.Divergence, s.Damping)
	r.Clamp = s.NonNegativeSites
	if !ok {
		return r, fmt.Errorf("ep: unsupported divergence %v (want kl, alpha(a > 0), relaxed_kl(c ≥ 0))", s.Divergence)
	}
	if err := infer.CheckSchedule(string(infer.MethodEP), s.Schedule, infer.EPSchedules); err != nil {
		return r, fmt.Errorf("ep: %w", err)
	}
	return r, nil
}

// withDefaults fills a zero Tol or MaxIter with ep's defaults
// (infer.Settings.WithDefaults).
func (s Settings) withDefaults() Settings {
	s.Settings = s.Settings.WithDefaults(infer.MethodEP)
	return s
}
