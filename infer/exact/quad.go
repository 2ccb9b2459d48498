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

// runQuad runs the two stages described in the package documentation.
func runQuad(ctx context.Context, p Problem, prior *frame, s Settings) (*Result, error) {
	res := &Result{Method: "quad", Status: infer.Done}
	it1 := newIntegrator(prior, prior, p.LogLik)
	ok1, err := it1.integrate(ctx, s.HalfWidth, math.Max(s.Tol, stage1Tol), s.MaxEval)
	res.Iterations = 1
	if err != nil {
		return failQuad(res, it1.evals, err)
	}
	m1 := it1.moments()
	it1.toResult(res, m1)
	post, err := newFrame(res.Mean, res.Cov)
	if err != nil {
		res.Status = infer.Failed
		res.Message = "stage-1 posterior covariance is not positive definite; stage-1 result kept"
		return res, fmt.Errorf("exact: %s", res.Message)
	}
	it2 := newIntegrator(post, prior, p.LogLik)
	it2.cells = make(cellHeap, 0, 1024)
	ok2, err := it2.integrate(ctx, s.HalfWidth, s.Tol, s.MaxEval)
	res.Iterations = 2
	if err != nil {
		return failQuad(res, it2.evals, err)
	}
	it2.toResult(res, it2.moments())
	res.quad = it2
	res.Updates = res.Evaluations
	if !ok2 {
		res.Status = infer.IterationLimit
		res.Message = fmt.Sprintf("evaluation budget %d reached with error estimate %.3g > tol %.3g", s.MaxEval, res.ErrEstimate, s.Tol)
	}
	if !ok1 && ok2 {
		res.Message = "stage 1 (prior whitening) reached its evaluation budget; stage 2 converged"
	}
	return res, nil
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
