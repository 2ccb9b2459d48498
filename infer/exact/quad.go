package exact

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fg-infer/fg/infer"
)

// stage1Tol is the loosest tolerance of stage 1, which only has to find the
// posterior's location and scale for the stage-2 whitening.
const stage1Tol = 1e-2

// maxStages bounds the posterior-whitened stages (see runQuad).
const maxStages = 3

// runQuad runs stage 1 (prior frame, seeded at the mode, a quarter of the
// evaluation budget: it only has to find the posterior's location and scale)
// and then posterior-whitened stages: normally one; another when the last stage found
// its frame poor (a mean more than one posterior sd from the frame's centre
// or a variance off by more than e in whitened coordinates, i.e. stage 1 was
// inaccurate), at most maxStages.
func runQuad(ctx context.Context, p Problem, prior *frame, s Settings) (*Result, error) {
	res := &Result{Method: "quad", Status: infer.Done}
	sd, evals, err := findSeed(p, prior)
	res.Evaluations += evals
	if err != nil {
		return failQuad(res, 0, err)
	}
	it := newIntegrator(prior, prior, p.LogLik)
	it.seed = sd
	it.progress = stageProgress(s.Progress, res)
	ok1, err := it.integrate(ctx, s.HalfWidth, math.Max(s.Tol, stage1Tol), s.MaxEval/4)
	res.Iterations = 1
	if err != nil {
		return failQuad(res, it.evals, err)
	}
	m := it.moments()
	it.toResult(res, m)
	covered := it.massCorners(coverFrac * s.Tol)
	ok := ok1
	for stage := 0; stage < maxStages; stage++ {
		post, err := newFrame(res.Mean, res.Cov)
		if err != nil {
			res.Status = infer.Failed
			res.Message = "posterior covariance of the previous stage is not positive definite; its result is kept"
			return res, fmt.Errorf("exact: %s", res.Message)
		}
		it = newIntegrator(post, prior, p.LogLik)
		it.covered = covered
		it.progress = stageProgress(s.Progress, res)
		ok, err = it.integrate(ctx, s.HalfWidth, s.Tol, s.MaxEval)
		res.Iterations++
		if err != nil {
			return failQuad(res, it.evals, err)
		}
		m = it.moments()
		it.toResult(res, m)
		if framePoorness(m) <= 1 {
			break
		}
	}
	res.quad = it
	res.Updates = res.Evaluations
	if !ok {
		res.Status = infer.IterationLimit
		res.Message = fmt.Sprintf("evaluation budget %d reached with error estimate %.3g > tol %.3g", s.MaxEval, res.ErrEstimate, s.Tol)
	}
	return res, nil
}

// framePoorness is max_i max(|μ_i|, |log C_ii|) of the moments in the
// whitened coordinates of a posterior frame (0 for a perfect frame).
func framePoorness(m uMoments) float64 {
	q := 0.0
	for i, mu := range m.mean {
		q = math.Max(q, math.Max(math.Abs(mu), math.Abs(math.Log(m.cov[i][i]))))
	}
	return q
}

// failQuad records an error from an integration stage.
func failQuad(res *Result, evals int, err error) (*Result, error) {
	res.Evaluations += evals
	res.Updates = res.Evaluations
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		res.Status = infer.Canceled
		res.Message = err.Error()
		return res, err
	}
	res.Status = infer.Failed
	res.Message = err.Error()
	return res, err
}

// stageProgress reports a stage's evaluations on top of those of the
// stages before it (res.Evaluations when the stage starts).
func stageProgress(report func(int, int, float64), res *Result) func(int, float64) {
	if report == nil {
		return nil
	}
	base := res.Evaluations
	return func(evals int, errEst float64) { report(base+evals, 0, errEst) }
}
