package learn

import (
	"fmt"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer/ep"
)

// FITCBlock is a block whose gp prior has fixed inducing inputs (FITC EP,
// infer/ep's RunFITC) at a value x of the learned parameters.
type FITCBlock struct {
	// Problem holds K_uu, K_fu, diag K and the jitter at x, and the sites.
	// Its Init is ignored: Optimize warm-starts EP itself.
	Problem *ep.FITCProblem
	// D[k] holds ∂K_uu/∂x_k, ∂K_fu/∂x_k, ∂diag K/∂x_k and ∂snu2/∂x_k
	// (nil: the prior does not depend on x_k).
	D []*ep.FITCDeriv
}

// fitcGradient returns ∂ log Z_EP/∂x_k of a converged FITC result by
// FITCResult.GradLogZ (O(n m²) per parameter): the sparse analogue of
// Gradient's ½ tr(R ∂K/∂x_k) with ∂Kt/∂x_k from D[k].
func fitcGradient(res *ep.FITCResult, b *FITCBlock) ([]float64, error) {
	var ds []ep.FITCDeriv
	var at []int
	for k, d := range b.D {
		if d != nil {
			ds, at = append(ds, *d), append(at, k)
		}
	}
	grad := make([]float64, len(b.D))
	if len(ds) == 0 {
		return grad, nil
	}
	g, err := res.GradLogZ(ds)
	if err != nil {
		return nil, err
	}
	for i, k := range at {
		grad[k] = g[i]
	}
	return grad, nil
}

// runFITC runs FITC EP on block bi with runEP's warm start and retries.
func (o *objective) runFITC(bi int, b *FITCBlock) (*ep.FITCResult, error) {
	p := *b.Problem
	res, err := withRetries(o, bi, len(p.Sites), func(init []families.Gaussian, s ep.Settings) (*ep.FITCResult, error) {
		p.Init = init
		return ep.RunFITC(o.ctx, &p, s)
	}, func(r *ep.FITCResult) bool { return r != nil && r.HasLogZ })
	if err != nil {
		return nil, err
	}
	if !res.HasLogZ {
		return nil, fmt.Errorf("FITC EP ended %v without an evidence: %s", res.Status, res.Message)
	}
	return res, nil
}

// evalFITC is evaluate's step for a FITC block: log Z_EP, its gradient,
// the sites and the sweeps.
func (o *objective) evalFITC(bi int, b *FITCBlock) (float64, []float64, []families.Gaussian, int, error) {
	res, err := o.runFITC(bi, b)
	if err != nil {
		return 0, nil, nil, 0, err
	}
	g, err := fitcGradient(res, b)
	if err != nil {
		return 0, nil, nil, 0, err
	}
	return res.LogZ, g, res.Sites, res.Iterations, nil
}
