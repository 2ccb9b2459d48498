package mp

import (
	"context"
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
)

// Evidence gradient. At a fixed point of the messages the evidence is
// stationary in them — log Z_EP in the sites (the stationarity of the EP
// free energy, Minka 2001; power EP's α-energy, Minka 2004), the ELBO in
// q (Winn & Bishop 2005) and the Bethe energy of the discrete subgraph in
// the BP messages (Yedidia, Freeman & Weiss 2005) — so its derivative in a
// number θ that factor f reads (the data of an edge: a beta prior's
// pseudo-counts, a gamma prior's rate, a likelihood's known variance) is
// the explicit derivative of f's own term at the fixed messages:
//
//	∂ log Z_EP/∂θ = (1/u) ∂/∂θ log ∫ f_θ^u Π_v cav_v = E_{p̃_f}[∂ log f/∂θ]
//	∂ ELBO/∂θ    = ∂/∂θ E_q[log f_θ]                = E_q[∂ log f/∂θ]
//
// with p̃_f f's tilted distribution (for a prior in its variable's family
// it is q itself). The derivative is taken of the one-factor integral that
// the kind's own rule computes (factor.EP, factor.VMP: closed form for the
// conjugate and family priors, the kind's quadrature otherwise) by a
// central difference in θ with the messages held fixed — no further
// message passing; the test compares it with central differences of the
// converged evidence.

// Tangent is the derivative of factor Factor's data numbers
// (graph.NetFactor.Data), D, and of the coefficients and constants of its
// edges over variables (graph.NetFactor.Affine: a learned coefficient or
// offset in a mean b * mu + c), A, in one learned parameter; a nil D or A
// is zero.
type Tangent struct {
	Factor int
	D      []float64
	A      []float64
}

// gradStep is the relative step of the central difference of a factor's
// term along a tangent: 10⁻⁵ of the data's scale (the difference's
// truncation error is then about 10⁻¹⁰ relative, its rounding error
// about 10⁻¹¹ of the term).
const gradStep = 1e-5

// RunGrad runs net like Run and, when the run ends with numbers, returns
// also the gradient of its evidence (log Z_EP or, under VMP, the ELBO) in
// every learned parameter k: Σ over tangents[k] of the derivative of the
// factor's term along the tangent (see above). The gradient is exact at
// the fixed point; a run stopped at tolerance tol has an error of order
// tol in it. A tangent whose factor's rule fails at the perturbed data is
// an error.
func RunGrad(ctx context.Context, net *graph.Net, opt Options, tangents [][]Tangent) (*Result, []float64, error) {
	res, e, err := runEngine(ctx, net, opt)
	if err != nil || res.Beliefs == nil {
		return res, nil, err
	}
	grad := make([]float64, len(tangents))
	for k, ts := range tangents {
		for _, t := range ts {
			if err := ctx.Err(); err != nil {
				return res, nil, err
			}
			d, err := e.termDerivative(t)
			if err != nil {
				f := &net.Factors[t.Factor]
				return res, nil, fmt.Errorf("the evidence gradient at %s (%s): %w", f.Label, f.Pos, err)
			}
			grad[k] += d
		}
	}
	return res, grad, nil
}

// termDerivative is the derivative of factor t.Factor's term of the
// evidence along (t.D, t.A), with every message held fixed.
func (e *engine) termDerivative(t Tangent) (float64, error) {
	fs := e.fs[t.Factor]
	orig := fs.f
	defer func() { fs.f = orig }()
	x, a := orig.Data(), orig.Affine()
	if (t.D != nil && len(x) != len(t.D)) || (t.A != nil && len(a) != len(t.A)) {
		return 0, fmt.Errorf("a tangent of %d data and %d affine numbers for %d and %d", len(t.D), len(t.A), len(x), len(a))
	}
	var xs, ts float64
	for i := range t.D {
		xs, ts = max(xs, math.Abs(x[i])), max(ts, math.Abs(t.D[i]))
	}
	for i := range t.A {
		xs, ts = max(xs, math.Abs(a[i])), max(ts, math.Abs(t.A[i]))
	}
	if ts == 0 {
		return 0, nil
	}
	h := gradStep * max(1, xs) / ts
	vmp := e.opt.VMP()
	u := e.opt.Alpha
	if vmp {
		u = 1
	}
	at := func(s float64) (float64, error) {
		f := *orig
		if t.D != nil {
			y := make([]float64, len(x))
			for i := range y {
				y[i] = x[i] + s*t.D[i]
			}
			f = f.WithData(y)
		}
		if t.A != nil {
			b := make([]float64, len(a))
			for i := range b {
				b[i] = a[i] + s*t.A[i]
			}
			f = f.WithAffine(b)
		}
		fs.f = &f
		return e.factorLogZ(fs, u, vmp)
	}
	hi, err := at(h)
	if err != nil {
		return 0, err
	}
	lo, err := at(-h)
	if err != nil {
		return 0, err
	}
	return (hi - lo) / (2 * h) / u, nil
}
