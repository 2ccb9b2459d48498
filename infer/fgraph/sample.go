package fgraph

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/internal/mathx"
)

// LogLikelihood returns the likelihood of the graph for a sampler whose
// prior is Gaussian() and the discrete variables' priors (Priors): loglik
// is log p(y | x, z), the sum of every site's log p(y | aᵀx + c) and every
// gate's selected branch, and local(x, d, k) the sum over the gates that
// discrete variable d selects of their branch k (the part of loglik that
// depends on z_d). Every likelihood needs a log-density (factor.LogDensity).
func (g *Graph) LogLikelihood() (loglik func(x []float64, z []int) float64, local func(x []float64, d, k int) float64, err error) {
	if err := g.Err(); err != nil {
		return nil, nil, err
	}
	for _, l := range g.liks {
		if _, ok := l.(factor.LogDensity); !ok {
			return nil, nil, fmt.Errorf("fgraph: likelihood %s has no log-density", l.Name())
		}
	}
	for _, gt := range g.gates {
		for _, b := range gt.branches {
			if _, ok := b.Lik.(factor.LogDensity); !ok {
				return nil, nil, fmt.Errorf("fgraph: likelihood %s has no log-density", b.Lik.Name())
			}
		}
	}
	loglik = func(x []float64, z []int) float64 {
		s := g.sitesLogLik(x)
		for _, gt := range g.gates {
			s += gt.branchLogLik(z[gt.z], x)
		}
		return s
	}
	local = func(x []float64, d, k int) float64 {
		s := 0.0
		for _, j := range g.disc[d].gates {
			s += g.gates[j].branchLogLik(k, x)
		}
		return s
	}
	return loglik, local, nil
}

// sitesLogLik is Σ_sites log p(y | aᵀx + c) (not the gates).
func (g *Graph) sitesLogLik(x []float64) float64 {
	s := 0.0
	for k := 0; k < g.NumFactors(); k++ {
		if !g.gaussian(k) {
			fk := g.fac(k)
			s += logDensity(g.liks[fk.site()], fk.y(), &fk, x)
		}
	}
	return s
}

// Priors returns the discrete variables' prior probabilities.
func (g *Graph) Priors() [][]float64 {
	out := make([][]float64, len(g.disc))
	for d, z := range g.disc {
		out[d] = make([]float64, len(z.logPrior))
		for k, lp := range z.logPrior {
			out[d][k] = math.Exp(lp)
		}
	}
	return out
}

// branchLogLik is log f_k(y | a_kᵀx + c_k).
func (gt *gate) branchLogLik(k int, x []float64) float64 {
	b := gt.branches[k]
	f := b.C
	for i, v := range b.Vars {
		f += b.Coefs[i] * x[v]
	}
	v, _, _ := b.Lik.(factor.LogDensity).LogLik(gt.y, f)
	return v
}

// logDensity is log p(y | Σ a_e x[v_e] + c).
func logDensity(l any, y float64, fk *fac, x []float64) float64 {
	f := fk.c()
	for e := fk.lo; e < fk.hi; e++ {
		f += fk.a(e) * x[fk.v(e)]
	}
	lv, _, _ := l.(factor.LogDensity).LogLik(y, f)
	return lv
}

// MarginalLogLikelihood returns log p(y | x) with the discrete variables
// summed out, for quadrature over x (infer/exact) when the branches have
// no closed-form evidence given x's posterior:
//
//	log p(y | x) = Σ_sites log p(y | aᵀx + c) + Σ_d log Σ_k p_d(k) exp(local(x, d, k)),
//
// exact because a discrete variable enters only the gates it selects, so
// the z_d are independent given x. posterior(x, d, out) fills out with
// p(z_d = k | x, y), whose expectation over p(x | y) is p(z_d = k | y).
func (g *Graph) MarginalLogLikelihood() (loglik func(x []float64) float64, posterior func(x []float64, d int, out []float64), err error) {
	_, local, err := g.LogLikelihood()
	if err != nil {
		return nil, nil, err
	}
	lp := g.discreteLogPriors()
	posterior = func(x []float64, d int, out []float64) {
		for k, l := range lp[d] {
			out[k] = l + local(x, d, k)
		}
		normalize(out)
	}
	loglik = func(x []float64) float64 {
		s := g.sitesLogLik(x)
		buf := make([]float64, 0, 8)
		for d, l := range lp {
			buf = buf[:0]
			for k, p := range l {
				buf = append(buf, p+local(x, d, k))
			}
			s += mathx.LogSumExp(buf)
		}
		return s
	}
	return loglik, posterior, nil
}

func (g *Graph) discreteLogPriors() [][]float64 {
	out := make([][]float64, len(g.disc))
	for d, z := range g.disc {
		out[d] = z.logPrior
	}
	return out
}
