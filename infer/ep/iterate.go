package ep

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/fg-infer/fg/infer"
)

// iterate is the sweep loop both Gaussian engines (dense and FITC) share:
// it calls sweep(it) for it = 1, 2, ... and after each sweep measures the
// undamped residual R(it) = ‖μ_it − μ_it−1‖₂ / δ on the posterior means
// mu() (qi-guo §6.1; in the dense parallel schedule mu() appends the
// marginal standard deviations, see engine.moments; δ the damping, see
// Settings; sites is the number of site updates per sweep), appends it to *trace,
// counts the sweep in stats.Iterations and reports it to s.Progress. It
// returns Converged once R < s.Tol — Stalled instead when the last sweep
// skipped updates (stats.Skipped grew) —, IterationLimit after s.MaxIter
// sweeps, Diverged when a sweep fails or R is not finite, and Canceled when
// ctx is done (checked before and after every sweep; sweeps may stop early).
func iterate(ctx context.Context, s Settings, damping float64, sites int, mu func() []float64, sweep func(it int) error, stats *infer.Stats, trace *[]float64) (infer.Status, string) {
	prev := append([]float64(nil), mu()...)
	for it := 1; it <= s.MaxIter; it++ {
		if ctx.Err() != nil {
			return infer.Canceled, "canceled"
		}
		skipped := stats.Skipped
		err := sweep(it)
		stats.Iterations = it
		if ctx.Err() != nil {
			return infer.Canceled, fmt.Sprintf("canceled during sweep %d", it)
		}
		if err != nil {
			return infer.Diverged, fmt.Sprintf("sweep %d: %v%s", it, err, improperHint(err, s, damping))
		}
		rr := dist(mu(), prev) / damping
		*trace = append(*trace, rr)
		copy(prev, mu())
		if s.Progress != nil {
			s.Progress(it, rr)
		}
		if !finite(rr) {
			return infer.Diverged, fmt.Sprintf("sweep %d: non-finite posterior mean", it)
		}
		if rr < s.Tol {
			if n := stats.Skipped - skipped; n > 0 {
				return infer.Stalled, stalledMsg(it, n, sites)
			}
			return infer.Converged, ""
		}
	}
	return infer.IterationLimit, fmt.Sprintf("R = %.3g ≥ tol %g after %d sweeps", (*trace)[len(*trace)-1], s.Tol, s.MaxIter)
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
	r, ok := newRule(s.Divergence, s.Damping)
	r.clamp = s.NonNegativeSites
	if !ok {
		return r, fmt.Errorf("ep: unsupported divergence %v or damping %g (want kl, alpha(a > 0), relaxed_kl(c ≥ 0); 0 < damping ≤ 1)", s.Divergence, s.Damping)
	}
	if err := infer.CheckSchedule(string(infer.MethodEP), s.Schedule, infer.EPSchedules); err != nil {
		return r, fmt.Errorf("ep: %w", err)
	}
	return r, nil
}

// withDefaults fills Tol (1e-6) and MaxIter (200) when zero.
func (s Settings) withDefaults() Settings {
	if s.Tol == 0 {
		s.Tol = 1e-6
	}
	if s.MaxIter == 0 {
		s.MaxIter = 200
	}
	return s
}
