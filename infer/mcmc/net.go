package mcmc

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/netjoint"
)

// Sampling a graph.Net (models with Beta, Gamma, inverse-Gamma, Dirichlet
// and discrete latents, discrete chains): each sweep visits every variable
// in turn and draws it from its full conditional
//
//	p(θ_v | θ_−v) ∝ Π_{f ∋ v} f(θ),
//
// exactly where the conditional is in v's family (netjoint.FitFamily finds
// its natural parameters: Gibbs on conjugate conditionals, e.g. a Beta
// given Bernoulli counts, a Gaussian mean given linear-Gaussian factors;
// coupled Gaussian variables, such as a regression's weights, are drawn
// jointly from their Gaussian conditional: blocked Gibbs, net_block.go),
// by the state probabilities for a discrete variable (recorded for
// Rao–Blackwellised marginals, as RunGibbs does), and otherwise by slice
// sampling with stepping out and shrinkage (Neal 2003, "Slice sampling",
// Ann. Statist. 31, Fig. 3 and 5) on each unconstrained coordinate
// (netjoint.FromU: log for (0, ∞), logit for (0, 1), additive logistic for
// the simplex) with the log Jacobian added. The slice widths adapt during
// burn-in only (twice the mean absolute move), so the kept draws come from
// a fixed kernel.

// NetSettings configure RunNet.
type NetSettings struct {
	// Samples kept per chain (default 1000), Burnin discarded sweeps per
	// chain (default Samples/2; NoBurnin for none), Chains (default 4).
	Samples, Burnin, Chains int
	Seed                    uint64
	// Workers bounds the goroutines (default GOMAXPROCS).
	Workers int
	// Progress, when non-nil, is called with the sweeps done over all
	// chains and their total, from several goroutines.
	Progress func(done, total int)
}

// NetSummary is the Monte Carlo summary of one variable of the Net: per
// coordinate of a continuous variable (K for a Dirichlet) or per state of
// a discrete one.
type NetSummary struct {
	Mean, Var, MeanSE, VarSE []float64 // continuous
	Probs, ProbsSE           []float64 // discrete (Rao–Blackwellised)
	ESS, RHat                []float64 // bulk ESS and rank-normalised R-hat, per coordinate or state
	// MeanInv is the average of 1/θ over the draws of a Gamma or inverse
	// Gamma variable (the variance of a Gaussian with a latent precision),
	// NaN for the other families.
	MeanInv float64
}

// NetResult is RunNet's outcome.
type NetResult struct {
	Status infer.Status
	infer.Stats
	Vars []NetSummary // by Net variable
	// Conjugate counts the variables drawn from their exact conditional;
	// the others are discrete (drawn exactly) or slice sampled.
	Conjugate int
	Message   string
}

// RunNet samples the posterior of n's latents.
func RunNet(ctx context.Context, n *graph.Net, s NetSettings) (*NetResult, error) {
	return runNet(ctx, n, s, false)
}

// runNet is RunNet; slice makes it slice sample every continuous variable
// one at a time, conjugate or not (the tests of the slice sampler).
func runNet(ctx context.Context, n *graph.Net, s NetSettings, slice bool) (res *NetResult, err error) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("mcmc: internal error: %v", r)
		}
		if res != nil {
			res.Runtime = time.Since(start)
		}
	}()
	j, err := netjoint.New(n)
	if err != nil {
		return nil, err
	}
	r := lengths(s.Samples, s.Burnin, 1, s.Chains)
	if err := checkLengths(r); err != nil {
		return nil, err
	}
	q := quantities(n)
	if err := r.checkKept(q); err != nil {
		return nil, err
	}
	chains := make([]*netChain, r.chains)
	draws := make([][][]float64, r.chains) // draws[c][quantity][t]
	tk := newTicker(s.Progress, r)
	err = runChains(ctx, r.chains, s.Workers, func(ctx context.Context, c int) error {
		ch, err := newNetChain(j.Clone(), chainRand(s.Seed, c))
		if err != nil {
			return err
		}
		if slice {
			clear(ch.conj)
			ch.blocks = nil
			for v := range ch.blockOf {
				ch.blockOf[v] = -1
			}
		}
		chains[c] = ch
		draws[c] = ch.alloc(q, r.samples)
		return ch.run(ctx, r, draws[c], tk)
	})
	res = &NetResult{Status: infer.Done}
	for _, ch := range chains {
		if ch != nil {
			res.Iterations = max(res.Iterations, ch.sweeps)
			res.Updates += ch.updates
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			res.Status, res.Message = infer.Canceled, err.Error()
			return res, err
		}
		return nil, err
	}
	res.Conjugate = chains[0].conjugateCount()
	res.summarise(n, draws)
	return res, nil
}

// quantities is the number of recorded scalars: the coordinates of the
// continuous variables and the states of the discrete ones.
func quantities(n *graph.Net) int {
	q := 0
	for _, v := range n.Vars {
		q += v.Dim
	}
	return q
}

// summarise computes the per-quantity diagnostics on GOMAXPROCS goroutines.
func (res *NetResult) summarise(n *graph.Net, draws [][][]float64) {
	res.Vars = make([]NetSummary, len(n.Vars))
	type slot struct{ v, k, q int }
	var slots []slot
	q := 0
	for v, nv := range n.Vars {
		s := &res.Vars[v]
		d := nv.Dim
		if nv.Family == graph.Discrete {
			s.Probs, s.ProbsSE = make([]float64, d), make([]float64, d)
		} else {
			s.Mean, s.Var, s.MeanSE, s.VarSE = make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		}
		s.ESS, s.RHat = make([]float64, d), make([]float64, d)
		s.MeanInv = math.NaN()
		for k := 0; k < d; k++ {
			slots = append(slots, slot{v, k, q})
			q++
		}
	}
	forEach(len(slots), func(i int) {
		sl := slots[i]
		per := make([][]float64, len(draws))
		for c := range draws {
			per[c] = draws[c][sl.q]
		}
		sm := Summarise(per)
		s := &res.Vars[sl.v]
		if s.Probs != nil {
			s.Probs[sl.k], s.ProbsSE[sl.k] = sm.Mean, sm.MeanSE
		} else {
			s.Mean[sl.k], s.Var[sl.k], s.MeanSE[sl.k], s.VarSE[sl.k] = sm.Mean, sm.Var, sm.MeanSE, sm.VarSE
		}
		s.ESS[sl.k], s.RHat[sl.k] = BulkESS(per), RankRHat(per)
		if f := n.Vars[sl.v].Family; f == graph.Gamma || f == graph.InvGamma {
			s.MeanInv = meanInv(per)
		}
	})
}

// meanInv is the average of 1/θ over the draws of every chain.
func meanInv(chains [][]float64) float64 {
	sum, n := 0.0, 0
	for _, c := range chains {
		for _, x := range c {
			sum += 1 / x
		}
		n += len(c)
	}
	return sum / float64(n)
}
