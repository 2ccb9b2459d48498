package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Expect returns posterior expectations E[g_k(w) | D] of functions of the
// block with error estimates (of the same kind as Result's: quadrature error
// bounds for "quad", standard errors for "is"). It is how exact predictive
// probabilities are computed, e.g. g(w) = Φ(x*ᵀw) for a probit model.
//
// For "quad" it makes one more pass over the final partition of stage 2,
// evaluating the log-likelihood again at every node (the partition is kept
// in the Result for this):
//
//	E[g] = Σ_cells I_hi(f g) / I0,  δE[g] = (Σ_cells |I_hi(f g) − I_lo(f g)| + |E[g]| E0) / I0.
//
// For "is" it regenerates the samples and returns Σ W g / S with standard
// error √(Σ W² (g − E[g])²) / S. The functions must be finite everywhere.
func (r *Result) Expect(ctx context.Context, gs []func(w []float64) float64) (vals, errs []float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			vals, errs, err = nil, nil, fmt.Errorf("exact: Expect: panic: %v", p)
		}
	}()
	switch {
	case r.Method == "gaussian" && r.Cov != nil:
		return r.gaussianExpect(ctx, gs)
	case r.quad != nil:
		return r.quad.expect(ctx, gs)
	case r.is != nil:
		return r.is.expect(ctx, gs)
	}
	return nil, nil, errors.New("exact: Expect needs a successful Run result")
}

// expect integrates f·g_k over the final cells with both rules.
func (it *integrator) expect(ctx context.Context, gs []func([]float64) float64) ([]float64, []float64, error) {
	k := len(gs)
	hiSum, errSum := make([]float64, k), make([]float64, k)
	hi, lo := make([]float64, k), make([]float64, k)
	gmin, gmax := make([]float64, k), make([]float64, k)
	for ci, c := range it.cells {
		if ci%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			if it.progress != nil { // the pass re-evaluates ℓ: the run's count goes on
				it.progress(it.evals, math.NaN())
			}
		}
		clear(hi)
		clear(lo)
		for j := range gmin {
			gmin[j], gmax[j] = math.Inf(1), math.Inf(-1)
		}
		vol := 1.0
		for i := 0; i < it.d; i++ {
			vol *= c.h[i]
		}
		for n, x := range it.r.nodes {
			for i := 0; i < it.d; i++ {
				it.u[i] = c.c[i] + c.h[i]*x[i]
			}
			lf, err := it.logIntegrand()
			if err != nil {
				return nil, nil, err
			}
			f := 0.0
			if !math.IsInf(lf, -1) {
				f = math.Exp(lf - it.shift)
			}
			for j, g := range gs {
				v := g(it.w)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, nil, fmt.Errorf("exact: Expect: function %d is %v at w = %v", j, v, it.w)
				}
				hi[j] += it.r.hi[n] * f * v
				lo[j] += it.r.lo[n] * f * v
				gmin[j], gmax[j] = math.Min(gmin[j], f*v), math.Max(gmax[j], f*v)
			}
		}
		for j := range gs {
			hiSum[j] += vol * hi[j]
			e := vol * math.Abs(hi[j]-lo[j])
			if c.jump {
				e = math.Max(e, jumpErr(it.d, vol, gmin[j], gmax[j]))
			}
			errSum[j] += e
		}
	}
	it.resum()
	i0, e0 := it.total[0], it.totalErr[0]
	vals, errs := make([]float64, k), make([]float64, k)
	for j := range gs {
		vals[j] = hiSum[j] / i0
		errs[j] = (errSum[j] + math.Abs(vals[j])*e0) / i0
	}
	return vals, errs, nil
}

// isState is what Expect needs to regenerate an "is" run.
type isState struct {
	p         Problem
	q         *proposal
	n         int
	seed      uint64
	workers   int
	shift, s0 float64 // global log-weight shift and Σ W relative to it
}

// expect regenerates the samples block by block and accumulates, per
// function, Σ W g, Σ W² g and Σ W² g², plus Σ W².
func (st *isState) expect(ctx context.Context, gs []func([]float64) float64) ([]float64, []float64, error) {
	k := len(gs)
	nb := (st.n + isBlock - 1) / isBlock
	part := make([][]float64, nb) // per block: [Σ W g | Σ W² g | Σ W² g² | Σ W²]
	err := forBlocks(ctx, nb, st.workers, func(b int) error {
		m := min(isBlock, st.n-b*isBlock)
		part[b] = make([]float64, 3*k+1)
		return st.block(blockRand(st.seed, b), m, gs, part[b])
	})
	if err != nil {
		return nil, nil, err
	}
	tot := make([]float64, 3*k+1)
	for _, p := range part {
		for i, v := range p {
			tot[i] += v
		}
	}
	vals, errs := make([]float64, k), make([]float64, k)
	for j := range gs {
		e := tot[j] / st.s0
		vals[j] = e
		v := tot[2*k+j] - 2*e*tot[k+j] + e*e*tot[3*k]
		errs[j] = math.Sqrt(math.Max(v, 0)) / st.s0
	}
	return vals, errs, nil
}

func (st *isState) block(rng *rand.Rand, m int, gs []func([]float64) float64, acc []float64) error {
	d, k := st.q.prior.d, len(gs)
	eps, u, w := make([]float64, d), make([]float64, d), make([]float64, d)
	for i := 0; i < m; i++ {
		corr := st.q.draw(rng, w, eps, u)
		v := st.p.LogLik(w)
		if err := checkLogLik(v, w); err != nil {
			return err
		}
		wt := math.Exp(v + corr - st.shift)
		if wt == 0 {
			continue
		}
		acc[3*k] += wt * wt
		for j, g := range gs {
			x := g(w)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("exact: Expect: function %d is %v at w = %v", j, x, w)
			}
			acc[j] += wt * x
			acc[k+j] += wt * wt * x
			acc[2*k+j] += wt * wt * x * x
		}
	}
	return nil
}
