package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// MixedProblem is a model with continuous and discrete latents: a Gaussian
// block x ~ N(Mean, Cov), discrete variables z_d ~ Categorical(Prior[d])
// and the log-likelihood LogLik(x, z) = log p(y | x, z). Local(x, d, k) is
// the part of LogLik that z_d selects, evaluated with z_d = k: LogLik(x, z)
// − Local(x, d, z_d) must not depend on z_d (for gated factors, the sum over
// the gates z_d selects of log f_{k}(y | a_kᵀx + c_k)). Both must be safe for
// concurrent use and must not retain x or z.
type MixedProblem struct {
	Mean   []float64
	Cov    *mat.SymDense
	Prior  [][]float64
	LogLik func(x []float64, z []int) float64
	Local  func(x []float64, d, k int) float64
}

// MixedResult is RunMixed's outcome: the continuous coordinates' summaries
// in Result, and per discrete variable d and state k the posterior
// probability Prob[d][k] with its Monte Carlo standard error.
type MixedResult struct {
	*Result
	Prob, ProbSE [][]float64
}

// gibbsPart is the discrete half of a mixed chain: the state z and the
// Rao–Blackwellised conditionals p(z_d = k | x) of the last sweep.
type gibbsPart struct {
	p     *MixedProblem
	z     []int
	cond  [][]float64
	draws [][][]float64 // draws[d][k]: kept conditionals
}

// sweep draws every z_d from p(z_d | x) ∝ Prior[d][k] exp(Local(x, d, k))
// (systematic scan), keeping the conditionals for the Rao–Blackwellised
// estimates.
func (gp *gibbsPart) sweep(rng *rand.Rand, x []float64) error {
	for d, prior := range gp.p.Prior {
		lp := gp.cond[d]
		for k, w := range prior {
			lp[k] = math.Inf(-1)
			if w > 0 {
				lp[k] = math.Log(w) + gp.p.Local(x, d, k)
			}
			if math.IsNaN(lp[k]) || math.IsInf(lp[k], 1) {
				return fmt.Errorf("mcmc: discrete variable %d, state %d: log-likelihood %v", d, k, lp[k])
			}
		}
		if !normaliseLog(lp) {
			return fmt.Errorf("mcmc: discrete variable %d has no state of positive probability at x = %v", d, x)
		}
		gp.z[d] = draw(rng, lp)
	}
	return nil
}

// record keeps the current conditionals.
func (gp *gibbsPart) record() {
	for d, p := range gp.cond {
		for k, v := range p {
			gp.draws[d][k] = append(gp.draws[d][k], v)
		}
	}
}

// RunMixed samples a MixedProblem by Metropolis-within-Gibbs: each
// iteration is a Gibbs sweep over the discrete variables given x followed
// by one elliptical slice sampling step on x given z (RunESS's chains,
// with the log-likelihood LogLik(·, z) of the chain's current z; the
// burn-in adapts the ellipses as RunESS does, which leaves each
// conditional p(x | z, y) invariant). The discrete marginals are
// Rao–Blackwellised: the mean over kept iterations of p(z_d = k | x).
func RunMixed(ctx context.Context, p MixedProblem, s Settings) (*MixedResult, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	r := lengths(s.Samples, s.Burnin, s.Thin, s.Chains)
	q := 0
	for _, pr := range p.Prior {
		q += len(pr)
	}
	if err := r.checkKept(q); err != nil {
		return nil, err
	}
	parts := make([]*gibbsPart, r.chains)
	for c := range parts {
		parts[c] = newGibbsPart(&p, r.samples)
	}
	cp := Problem{Mean: p.Mean, Cov: p.Cov, LogLik: func([]float64) float64 { return math.NaN() }}
	res, err := runESS(ctx, cp, s, func(ch *essChain, c int) {
		gp := parts[c]
		ch.gibbs = gp
		chp := *ch.p
		chp.LogLik = func(x []float64) float64 { return p.LogLik(x, gp.z) }
		ch.p = &chp
	})
	if res == nil || res.Status != infer.Done {
		return &MixedResult{Result: res}, err
	}
	out := &MixedResult{Result: res}
	out.summariseDiscrete(parts)
	return out, err
}

func newGibbsPart(p *MixedProblem, samples int) *gibbsPart {
	gp := &gibbsPart{p: p, z: make([]int, len(p.Prior)), cond: make([][]float64, len(p.Prior)), draws: make([][][]float64, len(p.Prior))}
	for d, pr := range p.Prior {
		gp.cond[d] = make([]float64, len(pr))
		gp.draws[d] = make([][]float64, len(pr))
		for k := range pr {
			gp.draws[d][k] = make([]float64, 0, samples)
		}
	}
	return gp
}

func (p *MixedProblem) check() error {
	switch {
	case p.LogLik == nil || p.Local == nil:
		return errors.New("mcmc: MixedProblem needs LogLik and Local")
	case len(p.Prior) == 0:
		return errors.New("mcmc: MixedProblem has no discrete variables (use RunESS)")
	}
	for d, pr := range p.Prior {
		if len(pr) == 0 {
			return fmt.Errorf("mcmc: discrete variable %d has no states", d)
		}
		for _, w := range pr {
			if !(w >= 0) || math.IsInf(w, 1) {
				return fmt.Errorf("mcmc: discrete variable %d: prior %v", d, pr)
			}
		}
	}
	return nil
}

// summariseDiscrete fills Prob and ProbSE from the chains' kept
// conditionals, the discrete variables on GOMAXPROCS goroutines (forEach).
func (res *MixedResult) summariseDiscrete(parts []*gibbsPart) {
	nd := len(parts[0].draws)
	res.Prob, res.ProbSE = make([][]float64, nd), make([][]float64, nd)
	forEach(nd, func(d int) {
		per := make([][]float64, len(parts))
		K := len(parts[0].draws[d])
		res.Prob[d], res.ProbSE[d] = make([]float64, K), make([]float64, K)
		for k := range K {
			for c, gp := range parts {
				per[c] = gp.draws[d][k]
			}
			sm := Summarise(per)
			res.Prob[d][k], res.ProbSE[d][k] = sm.Mean, sm.MeanSE
			if math.IsNaN(sm.MeanSE) { // a constant conditional: no Monte Carlo error
				res.ProbSE[d][k] = 0
			}
		}
	})
}
