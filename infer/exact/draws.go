package exact

import (
	"errors"
	"math"
	"math/rand/v2"
)

// Draws returns n draws from the posterior of a "quad" result, for
// displays that need many predictive evaluations (a plot's decision
// boundary) at the cost of n of them rather than one quadrature pass each.
// The cells of the final partition are chosen by systematic resampling in
// proportion to their mass m_c = max(I_hi(f; c), 0), and each draw is
// uniform in its cell (mapped to w by the frame), so the draws follow the
// density that is constant on every cell and gives it its integrated mass:
//
//	q(w) = Σ_c m_c 1[w ∈ c] / (vol_c Σ_c' m_c').
//
// The partition is finest where f varies (that is what the refinement
// controls), so q departs from the posterior only inside cells, and the
// average of g over the draws estimates E[g] with a Monte Carlo error of
// order sd(g)/√n. The draws are reproducible for a given seed. An "is"
// result has no partition: Draws is an error there.
func (r *Result) Draws(n int, seed uint64) ([][]float64, error) {
	if r.Method == "gaussian" && r.Cov != nil && n > 0 {
		return r.gaussianDraws(n, seed)
	}
	if r.quad == nil || n <= 0 {
		return nil, errors.New("exact: Draws needs a successful quad result")
	}
	it := r.quad
	mass := make([]float64, len(it.cells))
	total := 0.0
	for i := range it.cells {
		mass[i] = math.Max(it.cells[i].val[0], 0)
		total += mass[i]
	}
	if !(total > 0) {
		return nil, errZeroMass
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	step := total / float64(n)
	next := rng.Float64() * step
	out := make([][]float64, 0, n)
	u := make([]float64, it.d)
	acc := 0.0
	for i := range it.cells {
		c := it.cells[i]
		acc += mass[i]
		for next < acc && len(out) < n {
			for k := 0; k < it.d; k++ {
				u[k] = c.c[k] + c.h[k]*(2*rng.Float64()-1)
			}
			w := make([]float64, it.d)
			it.fr.toW(u, w)
			out = append(out, w)
			next += step
		}
	}
	return out, nil
}
