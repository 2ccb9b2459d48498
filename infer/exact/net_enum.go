package exact

import (
	"context"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// mixture accumulates the posterior as a mixture over configurations:
// weights w_c = Z_c / Z, and per variable Σ_c w_c E[θ | c], Σ_c w_c E[θ² | c],
// Σ_c w_c E[1/θ | c] (Gamma and inverse Gamma variables: the variance of a
// Gaussian with a latent precision) and the discrete states' probabilities. The sums are kept scaled by
// exp(−shift), shift the largest log Z_c so far, so nothing overflows.
type mixture struct {
	shift, z float64
	m1, m2   [][]float64
	inv      [][]float64 // nil for a variable without E[1/θ]
	probs    [][]float64
	lastNat  [][]float64
	n        int
}

func newMixture(n *graph.Net) *mixture {
	a := &mixture{shift: math.Inf(-1), m1: make([][]float64, len(n.Vars)), m2: make([][]float64, len(n.Vars)),
		probs: make([][]float64, len(n.Vars)), lastNat: make([][]float64, len(n.Vars)), inv: make([][]float64, len(n.Vars))}
	for v, nv := range n.Vars {
		switch nv.Family {
		case graph.Discrete:
			a.probs[v] = make([]float64, nv.Dim)
		case graph.Dirichlet:
			a.m1[v], a.m2[v] = make([]float64, nv.Dim), make([]float64, nv.Dim)
		case graph.Gamma, graph.InvGamma:
			a.m1[v], a.m2[v], a.inv[v] = make([]float64, 1), make([]float64, 1), make([]float64, 1)
		default:
			a.m1[v], a.m2[v] = make([]float64, 1), make([]float64, 1)
		}
	}
	return a
}

// add adds configuration x (its discrete states) with log Z_c = logZ and
// the conditional moments of the continuous variables.
func (a *mixture) add(p *partPlan, x []float64, logZ float64, mean, mom, inv, nat [][]float64) {
	if math.IsInf(logZ, -1) {
		return
	}
	if logZ > a.shift {
		s := math.Exp(a.shift - logZ)
		a.z *= s
		for v := range a.m1 {
			scale(a.m1[v], s)
			scale(a.m2[v], s)
			scale(a.inv[v], s)
			scale(a.probs[v], s)
		}
		a.shift = logZ
	}
	w := math.Exp(logZ - a.shift)
	a.z += w
	a.n++
	for v := range a.m1 {
		if a.probs[v] != nil {
			a.probs[v][p.j.State(v, x)] += w
			continue
		}
		for k := range a.m1[v] {
			a.m1[v][k] += w * mean[v][k]
			a.m2[v][k] += w * mom[v][k]
		}
		if a.inv[v] != nil {
			a.inv[v][0] += w * inv[v][0]
		}
		if nat != nil {
			a.lastNat[v] = nat[v]
		}
	}
}

func scale(x []float64, s float64) {
	for i := range x {
		x[i] *= s
	}
}

// finish writes log Z and the marginals; the family parameters only when
// the posterior is one conjugate update (a single configuration, no quadrature).
func (a *mixture) finish(p *partPlan, res *NetResult) {
	res.LogZ = a.shift + math.Log(a.z)
	res.Vars = make([]NetMarginal, len(a.m1))
	for v := range a.m1 {
		m := &res.Vars[v]
		if a.probs[v] != nil {
			m.Probs = make([]float64, len(a.probs[v]))
			for s, q := range a.probs[v] {
				m.Probs[s] = q / a.z
			}
			continue
		}
		m.Mean, m.Var = make([]float64, len(a.m1[v])), make([]float64, len(a.m1[v]))
		for k := range a.m1[v] {
			m.Mean[k] = a.m1[v][k] / a.z
			m.Var[k] = math.Max(a.m2[v][k]/a.z-m.Mean[k]*m.Mean[k], 0)
		}
		m.MeanInv = math.NaN()
		if a.inv[v] != nil {
			m.MeanInv = a.inv[v][0] / a.z
		}
		if p.configs == 1 && len(p.quad) == 0 {
			nv := p.j.Net.Vars[v]
			m.Nat, m.Params = a.lastNat[v], families.For(nv.Family, nv.Dim).Params(a.lastNat[v])
		}
	}
}

// enumerate visits every configuration of the discrete variables (mixed
// radix over p.disc) and integrates the continuous ones in closed form or
// by quadrature in each.
func (p *partPlan) enumerate(ctx context.Context, s NetSettings, res *NetResult) error {
	x := make([]float64, p.j.Len())
	p.j.Reference(x)
	st := p.newCondState(ctx)
	acc := newMixture(p.j.Net)
	// check the context about every 2²⁰ factor fits, and at every
	// configuration when each needs a quadrature or a large Gaussian block
	every := max(1, min(1024, (1<<20)/(len(p.j.Net.Factors)+1)))
	if len(p.quad) > 0 || p.gaussSize() > 100 {
		every = 1
	}
	for c := 0; c < p.configs; c++ {
		if c%every == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if s.Progress != nil && c > 0 {
				s.Progress(c, p.configs)
			}
		}
		p.setConfig(x, c)
		if err := p.addConfig(ctx, s, st, x, acc, res); err != nil {
			return err
		}
		res.Updates++
	}
	if acc.z == 0 || math.IsNaN(acc.z) {
		return errZeroEvidence
	}
	acc.finish(p, res)
	return nil
}

// gaussSize is the number of Gaussian latents integrated jointly in closed form.
func (p *partPlan) gaussSize() int {
	n := 0
	for _, c := range p.comps {
		n += len(c.vars)
	}
	return n
}

// setConfig sets the discrete states of configuration c (the last
// variable varying fastest).
func (p *partPlan) setConfig(x []float64, c int) {
	for i := len(p.disc) - 1; i >= 0; i-- {
		v := p.disc[i]
		d := p.j.Net.Vars[v].Dim
		x[p.j.Off(v)] = float64(c % d)
		c /= d
	}
}

// addConfig adds one configuration to the mixture.
func (p *partPlan) addConfig(ctx context.Context, s NetSettings, st *condState, x []float64, acc *mixture, res *NetResult) error {
	if len(p.quad) > 0 {
		q, err := p.quadrature(ctx, s, st, x)
		if err != nil {
			return err
		}
		if worse(q.status, res.Status) {
			res.Status, res.Message = q.status, q.message
		}
		res.ErrEstimate = math.Max(res.ErrEstimate, q.errEst)
		acc.add(p, x, q.logZ, q.mean, q.mom, q.inv, nil)
		return nil
	}
	cd, err := p.conditional(st, x)
	if err != nil {
		return err
	}
	acc.add(p, x, cd.logZ, cd.mean, cd.mom, cd.inv, cd.nat)
	return nil
}

// worse orders the statuses a quadrature can end with.
func worse(a, b infer.Status) bool {
	rank := func(s infer.Status) int {
		switch s {
		case infer.Done, infer.Converged:
			return 0
		case infer.IterationLimit:
			return 1
		}
		return 2
	}
	return rank(a) > rank(b)
}
