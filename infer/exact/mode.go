package exact

import (
	"gonum.org/v1/gonum/optimize"
)

// huge stands for −log p = +∞ inside the optimiser.
const huge = 1e300

// nlp is the negative log posterior −ℓ(m0 + L0 u) + |u|²/2 in the prior's
// whitened coordinates u, counting evaluations and keeping the first
// invalid log-likelihood as an error.
type nlp struct {
	p     Problem
	prior *frame
	w     []float64
	evals int
	err   error
}

func (n *nlp) f(u []float64) float64 {
	n.prior.toW(u, n.w)
	n.evals++
	v := n.p.LogLik(n.w)
	if err := checkLogLik(v, n.w); err != nil {
		if n.err == nil {
			n.err = err
		}
		return huge
	}
	q := 0.0
	for _, x := range u {
		q += x * x
	}
	if r := -v + q/2; r < huge {
		return r
	}
	return huge
}

// seed is where stage 1 starts refining before adaptivity takes over: the
// posterior mode u* (prior-whitened) and, per axis, the half-width s_i at
// which −log p rises by 2 from its minimum (≈ 2 sd for a Gaussian).
type seed struct {
	u, s []float64
}

// findSeed locates the posterior mode by Nelder–Mead (derivative-free, so
// step likelihoods are allowed; restarted with simplices of size 1, 1e-2
// and 1e-4) and measures the half-widths. It returns nil if no point of
// positive posterior density was found. The seed only adds refinement around
// u* (integrator.init), so a poor seed (e.g. a mode on a jump of a step
// likelihood, where s_i is tiny) costs evaluations but never coverage: it
// makes posteriors far narrower than the prior, whose mass the nodes of the
// uniform initial cells would miss, safe.
func findSeed(p Problem, prior *frame) (*seed, int, error) {
	d := prior.d
	n := &nlp{p: p, prior: prior, w: make([]float64, d)}
	u, fu := make([]float64, d), n.f(make([]float64, d))
	for _, size := range []float64{1, 1e-2, 1e-4} {
		res, err := optimize.Minimize(optimize.Problem{Func: n.f}, u, &optimize.Settings{
			FuncEvaluations: 2000 * d,
			Converger:       &optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-14, Iterations: 50 * d},
		}, &optimize.NelderMead{SimplexSize: size})
		if n.err != nil {
			return nil, n.evals, n.err
		}
		if err == nil && res != nil && res.F < fu {
			u, fu = res.X, res.F
		}
	}
	if fu >= huge {
		return nil, n.evals, nil
	}
	s := make([]float64, d)
	for i := range s {
		s[i] = n.halfWidth(u, fu, i)
	}
	return &seed{u: u, s: s}, n.evals, nil
}

// halfWidth is the mean over both directions of the distance along axis i
// at which −log p exceeds its minimum fu by 2, found by doubling from 1e-9
// and 40 bisections; capped at 10.
func (n *nlp) halfWidth(u []float64, fu float64, i int) float64 {
	x := append([]float64(nil), u...)
	at := func(t float64) float64 { x[i] = u[i] + t; return n.f(x) - fu }
	total := 0.0
	for _, sign := range []float64{-1, 1} {
		lo, hi := 0.0, 1e-9
		for hi < 10 && at(sign*hi) < 2 {
			lo, hi = hi, 2*hi
		}
		if hi >= 10 {
			total += 10
			continue
		}
		for k := 0; k < 40; k++ {
			if mid := (lo + hi) / 2; at(sign*mid) < 2 {
				lo = mid
			} else {
				hi = mid
			}
		}
		total += hi
	}
	return total / 2
}
