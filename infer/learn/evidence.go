package learn

import (
	"context"
	"fmt"
)

// Evidence is a part of the model whose engine computes log Z_EP and its
// gradient itself, at a fixed point of its messages: a factor graph on the
// forward–backward schedule of infer/fgraph (a random walk, a hierarchy),
// whose gradient in the linear-Gaussian factors' variances comes from the
// converged messages in O(size) (fgraph.Result.VarGrad) instead of the
// dense joint block that Problem would need.
type Evidence interface {
	// Evaluate runs the engine to moment tolerance tol with damping
	// (1 = undamped) and returns log Z_EP, ∂ log Z_EP/∂x_k for every
	// learned parameter, and the number of sweeps. A run that ends
	// without a converged evidence is an error.
	Evaluate(ctx context.Context, tol, damping float64) (logZ float64, grad []float64, sweeps int, err error)
}

// evalEvidence evaluates block bi's Evidence to the tolerance epTol,
// retried with damping ½ when the undamped run fails (damping does not
// move the fixed points; see withRetries). The engine keeps no sites
// between evaluations.
func (o *objective) evalEvidence(bi int, ev Evidence) (float64, []float64, int, error) {
	tol := o.epTol()
	lz, g, sweeps, err := ev.Evaluate(o.ctx, tol, 1)
	if err != nil && o.ctx.Err() == nil {
		lz, g, sweeps, err = ev.Evaluate(o.ctx, tol, 0.5)
	}
	if err != nil {
		return 0, nil, 0, fmt.Errorf("block %d: %w", bi, err)
	}
	return lz, g, sweeps, nil
}
