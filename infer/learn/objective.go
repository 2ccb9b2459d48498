package learn

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer/ep"
)

// objective evaluates −log Z_EP and its gradient at optimiser points u,
// caching the last point (gonum asks for the value and the gradient
// separately) and keeping the warm-start sites.
type objective struct {
	ctx    context.Context
	build  Builder
	params []Param
	s      *Settings

	trace     []Eval
	lastU     []float64
	last      Eval
	lastDx    []float64 // dx/du at lastU
	warm      warmStart
	bestIdx   int
	bestSites [][]families.Gaussian
	lastErr   string
	// gradNorm is ‖∂(−log Z)/∂u‖∞ at the last successful evaluation
	// (+Inf before the first), which sets EP's tolerance (epTol).
	gradNorm float64
	// gradTol is the optimiser's gradient threshold (0 until minimize);
	// resolved: an evaluation passed it within FuncTol of the best log Z
	// (see at).
	gradTol  float64
	resolved bool
}

// epTolGrad and epTolMax set EP's convergence tolerance at an evaluation:
// min(epTolMax, max(Settings.EP.Tol, epTolGrad·‖∂(−log Z)/∂u‖∞)) with the
// gradient of the last successful evaluation. Far from the optimum, where
// the gradient is large, only its direction matters and EP stops after
// fewer sweeps; near it, where the optimiser's gradient test (GradTol)
// decides, the tolerance falls to Settings.EP.Tol. The error of log Z_EP is
// second order in the sites' error (log Z_EP is stationary in the sites at
// the fixed point: about 10⁻¹¹ at tolerance 10⁻³, 5·10⁻¹⁰ at 10⁻² and
// 2·10⁻⁷ at 3·10⁻² from flat sites on pima_ripley), that of the gradient
// first order (about 4·10⁻² of the tolerance there), so a tolerance of
// 3·10⁻² of the gradient leaves the gradient within about 0.1% of itself,
// far below what changes a quasi-Newton step, and the line search's
// function differences (of order ‖g‖²/curvature) far above log Z's error.
// On pima_ripley from GPML's start 3·10⁻² for both takes 18 EP sweeps
// where 10⁻³ and 10⁻² took 25, with the same evaluations and the optimum
// within 10⁻⁷ (BenchmarkLearnPima, TestOptimizeWarmMatchesCold).
const (
	epTolGrad = 3e-2
	epTolMax  = 3e-2
)

// epTol is EP's tolerance at the next evaluation (see epTolGrad).
func (o *objective) epTol() float64 {
	if o.s.cold {
		return o.s.EP.Tol
	}
	return max(o.s.EP.Tol, min(epTolMax, epTolGrad*o.gradNorm))
}

// at returns the evaluation at u, computing it when u is new.
func (o *objective) at(u []float64) Eval {
	if o.lastU != nil && slices.Equal(u, o.lastU) {
		return o.last
	}
	x := make([]float64, len(u))
	dx := make([]float64, len(u))
	for i, p := range o.params {
		x[i], dx[i] = p.Transform.ToX(u[i])
	}
	e, sites, err := o.evaluate(x)
	e.N = len(o.trace) + 1
	if err != nil {
		o.lastErr = err.Error()
		e.OK, e.LogZ, e.Grad = false, math.Inf(-1), make([]float64, len(x))
	} else {
		o.warm.add(x, sites)
		o.gradNorm = 0
		for i, g := range e.Grad {
			o.gradNorm = math.Max(o.gradNorm, math.Abs(g*dx[i]))
		}
		newBest := len(o.trace) == 0 || e.LogZ > o.trace[o.bestIdx].LogZ
		// The gradient test on every evaluation, not only the line
		// search's accepted points: a point within FuncTol of the best log
		// Z whose gradient passes it is the optimum to the tolerances
		// asked. Near the optimum log Z changes by less than its rounding
		// from one trial point to the next, so the line search may reject
		// such a point by rounding and step on forever at x equal to 16
		// digits (a line-search failure after dozens of evaluations).
		if o.gradTol > 0 && o.gradNorm <= o.gradTol && (newBest || e.LogZ >= o.trace[o.bestIdx].LogZ-o.s.FuncTol) {
			o.resolved = true
		}
		if newBest {
			o.bestIdx, o.bestSites = len(o.trace), sites
		}
	}
	o.trace = append(o.trace, e)
	o.lastU, o.last, o.lastDx = append([]float64(nil), u...), e, dx
	if o.s.Progress != nil {
		o.s.Progress(e)
	}
	return e
}

// gradU writes ∂(−log Z)/∂u into g.
func (o *objective) gradU(g, u []float64) {
	e := o.at(u)
	for i := range g {
		g[i] = -e.Grad[i] * o.lastDx[i]
	}
}

func (o *objective) best() Eval { return o.trace[o.bestIdx] }

// evaluate builds the blocks at x and runs EP on each, returning the summed
// log Z_EP, its gradient and the final sites.
func (o *objective) evaluate(x []float64) (Eval, [][]families.Gaussian, error) {
	e := Eval{X: x, Grad: make([]float64, len(x))}
	if err := o.ctx.Err(); err != nil {
		return e, nil, err
	}
	blocks, err := o.build(x)
	if err != nil {
		return e, nil, err
	}
	o.warm.at(x)
	sites := make([][]families.Gaussian, len(blocks))
	for bi, b := range blocks {
		if b.Evidence != nil {
			logZ, g, sweeps, err := o.evalEvidence(bi, b.Evidence)
			if err != nil {
				return e, nil, err
			}
			if len(g) != len(e.Grad) {
				return e, nil, fmt.Errorf("block %d: derivatives for %d parameters, %d are learned", bi, len(g), len(e.Grad))
			}
			floats.Add(e.Grad, g)
			e.LogZ, e.Sweeps = e.LogZ+logZ, e.Sweeps+sweeps
			continue
		}
		if b.FITC != nil {
			logZ, g, st, sweeps, err := o.evalFITC(bi, b.FITC)
			if err != nil {
				return e, nil, fmt.Errorf("block %d: %w", bi, err)
			}
			floats.Add(e.Grad, g)
			e.LogZ, e.Sweeps, sites[bi] = e.LogZ+logZ, e.Sweeps+sweeps, st
			continue
		}
		res, err := o.runEP(bi, b)
		if err != nil {
			return e, nil, fmt.Errorf("block %d: %w", bi, err)
		}
		g, err := Gradient(res, b)
		if err != nil {
			return e, nil, fmt.Errorf("block %d: %w", bi, err)
		}
		if len(g) > len(e.Grad) {
			return e, nil, fmt.Errorf("block %d: derivatives for %d parameters, %d are learned", bi, len(g), len(e.Grad))
		}
		for k := range g {
			e.Grad[k] += g[k]
		}
		e.LogZ += res.LogZ
		e.Sweeps += res.Iterations
		sites[bi] = res.Sites
	}
	e.OK = true
	return e, sites, nil
}

// runEP runs KL EP on block bi, warm-started (withRetries).
func (o *objective) runEP(bi int, b *Block) (*ep.Result, error) {
	p := *b.Problem
	res, err := withRetries(o, bi, len(p.Sites), func(init []families.Gaussian, s ep.Settings) (*ep.Result, error) {
		p.Init = init
		return ep.Run(o.ctx, &p, s)
	}, func(r *ep.Result) bool { return r != nil && r.HasLogZ })
	if err != nil {
		return nil, err
	}
	if !res.HasLogZ {
		return nil, fmt.Errorf("EP ended %v without an evidence: %s", res.Status, res.Message)
	}
	return res, nil
}

// withRetries runs EP on block bi (nSites sites) to the tolerance epTol,
// starting from the sites warmStart extrapolates from the last good
// evaluations. When that run does not reach a fixed point with an evidence
// (ok) it retries from the last good sites, then from a cold start, and
// then cold with damping ½ (unless damping is already set), which leaves
// the fixed points unchanged but tames oscillating non-log-concave sites.
func withRetries[R any](o *objective, bi, nSites int, run func([]families.Gaussian, ep.Settings) (R, error), ok func(R) bool) (R, error) {
	s := o.s.EP
	s.Tol = o.epTol()
	var pred, init []families.Gaussian
	if !o.s.cold {
		pred, init = o.warm.predict(bi, nSites), o.warm.last(bi, nSites)
	}
	start := init
	if pred != nil {
		start = pred
	}
	res, err := run(start, s)
	failed := func() bool { return (err != nil || !ok(res)) && o.ctx.Err() == nil }
	if pred != nil && failed() {
		res, err = run(init, s)
	}
	if init != nil && failed() {
		res, err = run(nil, s)
	}
	if (s.Damping == 0 || s.Damping == 1) && failed() {
		s.Damping = 0.5
		res, err = run(nil, s)
	}
	return res, err
}
