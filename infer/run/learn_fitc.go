package run

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/learn"
)

// fitcLearnBlock is block bi of the model at x (mx) for infer/learn when its
// gp prior has inducing inputs: the FITC problem (K_uu, K_fu, diag K and
// the jitter, nothing n×n) and, for every learned param x_k, the
// derivatives of those inputs by the chain rule
//
//	∂K_uu/∂x_k = Σ_j (∂K_uu/∂θ_j)(∂θ_j/∂x_k)   (likewise K_fu, diag K, snu2),
//
// where ∂θ/∂x_k (d[k].hyper[bi]) comes from Learn's differenced
// re-evaluations as for dense gp priors, and the directional derivative of
// the kernel inputs along ∂θ/∂x_k is a central difference of kernel
// evaluations at θ ± ε ∂θ/∂x_k (ε moves no hyperparameter by more than
// 1e-6 of its value), which keeps the O(n m) memory of FITC. GPML's
// default jitter 1e-6·tr(K_uu)/m is re-evaluated on each side, so its
// derivative is included. The inducing inputs and an explicit jitter stay
// fixed; sites whose likelihood parameters are learned are refused.
func (lb *learnBuilder) fitcLearnBlock(cb *graph.Block, bi int, d []snapshot) (*learn.FITCBlock, error) {
	if err := sameFITC(lb.m.Blocks()[bi], cb); err != nil {
		return nil, err
	}
	p, err := fitcProblem(cb)
	if err != nil {
		return nil, err
	}
	for _, s := range cb.Sites {
		lik, err := siteLik(s)
		if err != nil {
			return nil, err
		}
		p.Sites = append(p.Sites, ep.Site{Lik: lik, Y: s.Y, Index: s.Index})
	}
	out := &learn.FITCBlock{Problem: p, D: make([]*ep.FITCDeriv, len(d))}
	for k, dk := range d {
		if nonzero(dk.lik[bi]) {
			return nil, fmt.Errorf("learn: param %s changes likelihood parameters of %s, whose gp prior is sparse (inducing = ...); learn on a FITC block changes kernel hyperparameters only", lb.params[k].Name, cb.Name)
		}
		if nonzero(dk.hyper[bi]) {
			if out.D[k], err = fitcDeriv(cb, dk.hyper[bi]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// sameFITC refuses a learned param that reaches the inducing inputs or the
// explicit jitter of a FITC prior.
func sameFITC(a, b *graph.Block) error {
	fa, fb := a.Prior.FITC, b.Prior.FITC
	if fa == nil || fb == nil || !mat.Equal(fa.Z, fb.Z) || fa.JitterSet != fb.JitterSet || fa.Jitter != fb.Jitter {
		return fmt.Errorf("learn: a learned param changes the inducing inputs or the jitter of %s; learn keeps them fixed and changes kernel hyperparameters only", a.Name)
	}
	return nil
}

// fitcDeriv is the derivative of block b's FITC inputs along dth, the
// derivative of its flattened kernel hyperparameters, by a central
// difference of kernel evaluations.
func fitcDeriv(b *graph.Block, dth []float64) (*ep.FITCDeriv, error) {
	k := kernelOf(b.Prior.Kernel)
	th := k.Flat()
	eps := math.Inf(1)
	for j, d := range dth {
		if d != 0 {
			eps = math.Min(eps, 1e-6*math.Max(math.Abs(th[j]), 1e-300)/math.Abs(d))
		}
	}
	at := func(s float64) (*ep.FITCProblem, error) {
		h := make([]float64, len(th))
		for j := range th {
			h[j] = th[j] + s*dth[j]
		}
		kk, err := withFlat(k, h).Stdlib()
		if err != nil {
			return nil, err
		}
		return fitcInputs(kk, b.Prior.X, b.Prior.FITC), nil
	}
	p, err := at(eps)
	if err != nil {
		return nil, err
	}
	m, err := at(-eps)
	if err != nil {
		return nil, err
	}
	c := 1 / (2 * eps)
	n := len(p.Kdiag)
	d := &ep.FITCDeriv{Kuu: mat.NewSymDense(p.Kuu.SymmetricDim(), nil), Kfu: &mat.Dense{}, Kdiag: make([]float64, n), Jitter: c * (p.Jitter - m.Jitter)}
	addScaledSym(d.Kuu, c, p.Kuu)
	addScaledSym(d.Kuu, -c, m.Kuu)
	d.Kfu.Sub(p.Kfu, m.Kfu)
	d.Kfu.Scale(c, d.Kfu)
	for i := range d.Kdiag {
		d.Kdiag[i] = c * (p.Kdiag[i] - m.Kdiag[i])
	}
	return d, nil
}

// withFlat is k with the flattened hyperparameters h (learn.Kernel.Flat's order).
func withFlat(k learn.Kernel, h []float64) learn.Kernel {
	var walk func(k learn.Kernel) learn.Kernel
	walk = func(k learn.Kernel) learn.Kernel {
		out := learn.Kernel{Kind: k.Kind}
		if k.Kind.Composite() {
			for _, a := range k.Args {
				out.Args = append(out.Args, walk(a))
			}
			return out
		}
		out.Hyper, h = append([]float64(nil), h[:len(k.Hyper)]...), h[len(k.Hyper):]
		return out
	}
	return walk(k)
}
