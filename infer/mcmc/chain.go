package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fg-infer/fg/infer"
)

// Sampling a long chain (RunChain): a Gaussian Markov random field whose
// precision is banded in the variables' order — a random walk, a chain of
// vector states x_t ~ N(A x_{t−1}, Q) stored time-major — observed through
// likelihood sites on projections aᵀx + c that each span at most the band:
//
//	p(x | y) ∝ Π_f N(Y_f; a_fᵀx + c_f, V_f) · Π_s L_s(a_sᵀx + c_s).
//
// The linear-Gaussian factors (priors, conditionals and Gaussian
// observations, which are conjugate) form one Gaussian N(μ, Λ⁻¹) with
// banded Λ, factored once as a band in reversed order, Λ = UᵀU, from the
// factors as least-squares rows without forming Λ (netjoint.RootBand,
// foldFactors): each row of U is then the conditional of x_t given the k
// variables before it (k the half-bandwidth), so the Gaussian is an
// order-k Markov chain in t and the posterior a Feynman–Kac model with
// those transitions and the sites as potentials. One sweep draws a whole
// new path by conditional sequential Monte Carlo with backward sampling
// (particle Gibbs: Andrieu, Doucet & Holenstein 2010, "Particle Markov
// chain Monte Carlo methods", JRSS B 72, §2.4; backward simulation:
// Whiteley 2010, discussion of that paper, and Lindsten & Schön 2013,
// "Backward simulation methods for Monte Carlo statistical inference",
// §5), csmc.go. It leaves the posterior exactly invariant for any number
// of particles, and because every sweep redraws every element from a
// particle approximation of its smoothing distribution its mixing does not
// degrade with the chain's length (Lee, Singh & Vihola 2020, "Coupled
// conditional backward sampling particle filter", Ann. Statist. 48: the
// backward-sampling kernel mixes in O(log T) sweeps for a fixed number of
// particles), where elliptical slice sampling on the joint slows down as
// the posterior narrows against the prior. Where long stretches of the
// chain carry almost no information the backward pass moves the path's
// long-range shape slowly; block moves (chain_block.go) follow every
// sweep. Without sites the posterior is the Gaussian and every sweep is an
// independent exact draw.

// LinearFactor is the linear-Gaussian factor N(Y; Σ_k Coefs[k]·x[Vars[k]] +
// Const, Var) with Var > 0.
type LinearFactor struct {
	Vars          []int
	Coefs         []float64
	Const, Y, Var float64
}

// ChainSite is a likelihood site L(f) of the projection f = Σ_k
// Coefs[k]·x[Vars[k]] + Const. LogLik returns log L(f); it may be −Inf
// (zero likelihood) but not NaN or +Inf, and must be safe for concurrent
// use.
type ChainSite struct {
	Vars   []int
	Coefs  []float64
	Const  float64
	LogLik func(f float64) float64
}

// ChainProblem is a Gaussian Markov random field over N variables given by
// its linear-Gaussian factors, with likelihood sites (see RunChain).
type ChainProblem struct {
	N         int
	Gaussians []LinearFactor
	Sites     []ChainSite
}

// HalfWidth is the largest max V − min V over the variable sets V of the
// factors and sites: the half-bandwidth of the Gaussian's precision and
// the span a site may have (RunChain needs infer.Banded(N, HalfWidth)).
func (p *ChainProblem) HalfWidth() int {
	k := 0
	span := func(vars []int) {
		if len(vars) > 0 {
			k = max(k, slices.Max(vars)-slices.Min(vars))
		}
	}
	for _, f := range p.Gaussians {
		span(f.Vars)
	}
	for _, s := range p.Sites {
		span(s.Vars)
	}
	return k
}

// DefaultParticles is the number of particles of RunChain's conditional
// SMC when ChainSettings.Particles is 0.
const DefaultParticles = 32

// MaxParticles bounds ChainSettings.Particles.
const MaxParticles = 1 << 14

// ChainSettings configure RunChain: Samples, Burnin, Thin, Chains, Seed,
// KeepDraws, Workers and Progress as in Settings (a chain's iteration is a
// sweep: one new path), and the particles of the conditional SMC.
type ChainSettings struct {
	Samples, Burnin, Thin, Chains int
	Seed                          uint64
	// Particles of each sweep's conditional SMC (default
	// DefaultParticles, at least 2).
	Particles int
	KeepDraws bool
	Workers   int
	Progress  func(done, total int)
}

// ErrNotBanded is RunChain's error for a problem whose half-bandwidth is
// not a band (infer.Banded): the caller samples the dense joint instead.
var ErrNotBanded = errors.New("the Gaussian's precision is not banded in the variables' order")

// particleBytes is the memory of one particle at one step: its value, its
// log-weight and its ancestor.
const particleBytes = 8 + 8 + 4

// RunChain samples the posterior of p by particle Gibbs with backward
// sampling on s.Chains parallel chains and summarises every coordinate as
// RunESS does. Each chain starts from a path drawn by the same SMC without
// a reference. A canceled context returns a Result with Status
// infer.Canceled together with the context's error.
func RunChain(ctx context.Context, p ChainProblem, s ChainSettings) (*Result, error) {
	start := time.Now()
	r := lengths(s.Samples, s.Burnin, s.Thin, s.Chains)
	parts := s.Particles
	if parts == 0 {
		parts = DefaultParticles
	}
	m, err := newChainModel(ctx, &p, r, parts)
	if err != nil {
		if ctx.Err() != nil { // canceled while setting up: a Canceled result
			return chainsResult(ctx, start, r, 0, 0, nil, p.N, err, false)
		}
		return nil, err
	}
	n := p.N
	chains := make([]*csmc, r.chains)
	draws := make([][][]float64, r.chains)
	tk := newTicker(s.Progress, r)
	window := r.burnin / 2
	err = runChains(ctx, r.chains, s.Workers, func(ctx context.Context, c int) error {
		ch := newCSMC(m, parts, chainRand(s.Seed, c))
		chains[c] = ch
		if window > 0 {
			ch.deg = make([]float64, n)
		}
		if err := ch.start(ctx); err != nil {
			return fmt.Errorf("mcmc: chain %d: %w", c, err)
		}
		return ch.run(ctx, window, 1, tk, nil)
	})
	if err == nil {
		m.schedule(chains)
		err = runChains(ctx, r.chains, s.Workers, func(ctx context.Context, c int) error {
			ch := chains[c]
			if err := ch.run(ctx, r.burnin-window, 1, tk, nil); err != nil {
				return err
			}
			draws[c] = make([][]float64, n)
			for j := range draws[c] {
				draws[c][j] = make([]float64, 0, r.samples)
			}
			return ch.run(ctx, r.samples*r.thin, r.thin, tk, draws[c])
		})
	}
	evals, sweeps := 0, 0
	for _, ch := range chains {
		if ch != nil {
			evals += ch.evals
			sweeps += ch.sweeps
		}
	}
	return chainsResult(ctx, start, r, evals, sweeps, draws, n, err, s.KeepDraws)
}

// chainModel is a ChainProblem prepared for the conditional SMC, shared
// read-only by the chains. Variables are in their own order t = 0 … n−1;
// the sampler works on the centred values d_t = x_t − μ_t, whose Gaussian
// transition is
//
//	u0[t]·d_t + Σ_{l=1..k} u[t·k + l − 1]·d_{t−l} ~ N(0, 1)
//
// (a row of the reversed band factor; coefficients before t = 0 are zero).
type chainModel struct {
	n, k int
	mu   []float64
	u0   []float64 // u0[t] > 0
	u    []float64 // n·k coefficients on d_{t−1} … d_{t−k}
	// sites by their last variable: sites[at[t]:at[t+1]] end at t.
	sites []modelSite
	at    []int
	// links[linkAt[t]:linkAt[t+1]] are the sites that span t and a later
	// variable (lo ≤ t < hi): the backward step at t weighs them.
	links  []int32
	linkAt []int
	// factors are the linear-Gaussian factors for the block moves (nil
	// without sites: every sweep is then an exact draw).
	factors *blockFactors
	// sched[t] makes step t start by resampling (nil while the adaptation
	// window learns it: see schedule).
	sched []bool
}

// modelSite is a ChainSite on centred values: f = Σ a·d_v + c with c the
// site's constant plus aᵀμ, lo and hi its first and last variable.
type modelSite struct {
	vars   []int
	coefs  []float64
	c      float64
	lo, hi int
	loglik func(float64) float64
}

// newChainModel checks p and its run's memory, and factors the Gaussian.
func newChainModel(ctx context.Context, p *ChainProblem, r runLength, parts int) (*chainModel, error) {
	if err := checkChain(p, r, parts); err != nil {
		return nil, err
	}
	n, k := p.N, p.HalfWidth()
	if !infer.Banded(n, k) {
		return nil, fmt.Errorf("mcmc: %w (half-bandwidth %d over %d variables)", ErrNotBanded, k, n)
	}
	// The Gaussian in reversed order: variable t at n−1−t, so that the
	// factor's row of n−1−t conditions x_t on x_{t−1} … x_{t−k}.
	rb, err := foldFactors(ctx, p.Gaussians, n, k, func(v int) int { return n - 1 - v }, nil)
	if err != nil {
		return nil, err
	}
	mean, err := rb.Mean()
	if err != nil {
		return nil, errors.New("mcmc: the linear-Gaussian factors do not define a proper joint Gaussian")
	}
	m := &chainModel{n: n, k: k, mu: make([]float64, n), u0: make([]float64, n), u: make([]float64, n*k)}
	for t := range n {
		m.mu[t] = mean[n-1-t]
		row := rb.FactorRow(n - 1 - t)
		m.u0[t] = row[0]
		copy(m.u[t*k:], row[1:])
	}
	m.index(p.Sites)
	if len(p.Sites) > 0 {
		m.factors = newBlockFactors(n, p.Gaussians)
	}
	return m, nil
}

// schedule fixes when the conditional SMC resamples, from the first half
// of the burn-in, in which every chain resampled whenever the effective
// sample size of its weights fell below half the particles (adaptive
// resampling, Liu & Chen 1995) and recorded the degeneracy
// δ_t = log P − log ESS of each step's site weights. Resampling at every
// step whose sites are nearly flat (the long stretches of equal labels of
// a saturated probit walk) would let the particles' genealogy coalesce
// onto the reference path within about P steps, so that the particles
// could not move far from it; without resampling they keep their own
// paths. Weight-driven resampling during the kept sweeps would make the
// kernel depend on the weights in a way the conditional SMC's invariance
// argument does not cover, so the schedule is fixed here, for every chain,
// before the second half of the burn-in: with D_t the mean of δ_t over the
// window's sweeps and chains, step t+1 resamples when the D accumulated
// since the last resampling exceeds log 2 (the weights' ESS about halved).
// Without a window (no burn-in) every step after a site resamples.
func (m *chainModel) schedule(chains []*csmc) {
	m.sched = make([]bool, m.n)
	swept := 0
	for _, c := range chains {
		swept += c.swept
	}
	acc := 0.0
	for t := 0; t+1 < m.n; t++ {
		if swept == 0 {
			m.sched[t+1] = m.at[t+1] > m.at[t]
			continue
		}
		for _, c := range chains {
			acc += c.deg[t] / float64(swept)
		}
		if acc > math.Ln2 {
			m.sched[t+1], acc = true, 0
		}
	}
}

// index sorts the sites by their last variable and lists, per variable t,
// the sites the backward step at t weighs.
func (m *chainModel) index(sites []ChainSite) {
	m.sites = make([]modelSite, len(sites))
	for i, s := range sites {
		ms := modelSite{vars: s.Vars, coefs: s.Coefs, c: s.Const, lo: m.n, hi: -1, loglik: s.LogLik}
		for e, v := range s.Vars {
			ms.c += s.Coefs[e] * m.mu[v]
			ms.lo, ms.hi = min(ms.lo, v), max(ms.hi, v)
		}
		if ms.hi < 0 {
			ms.lo, ms.hi = 0, 0 // a constant site: a factor of the first step
		}
		m.sites[i] = ms
	}
	slices.SortStableFunc(m.sites, func(a, b modelSite) int { return a.hi - b.hi })
	m.at = make([]int, m.n+1)
	m.linkAt = make([]int, m.n+1)
	for _, s := range m.sites {
		m.at[s.hi+1]++
		for t := s.lo; t < s.hi; t++ {
			m.linkAt[t+1]++
		}
	}
	for t := range m.n {
		m.at[t+1] += m.at[t]
		m.linkAt[t+1] += m.linkAt[t]
	}
	m.links = make([]int32, m.linkAt[m.n])
	fill := slices.Clone(m.linkAt[:m.n])
	for i, s := range m.sites {
		for t := s.lo; t < s.hi; t++ {
			m.links[fill[t]] = int32(i)
			fill[t]++
		}
	}
}

// checkChain checks p's factors and sites and the run's memory: the kept
// draws (checkKept) and every chain's particle system, Particles × N ×
// particleBytes, with the band, within the memory budget.
func checkChain(p *ChainProblem, r runLength, parts int) error {
	if p.N <= 0 {
		return errors.New("mcmc: a chain needs at least one variable")
	}
	if parts < 2 || parts > MaxParticles {
		return fmt.Errorf("mcmc: %d particles, want 2 … %d", parts, MaxParticles)
	}
	if err := r.checkKept(p.N); err != nil {
		return err
	}
	if err := checkLengths(r); err != nil {
		return err
	}
	per := int64(parts)*particleBytes + 2*8*int64(infer.MaxBand+1)
	if lim := infer.MemoryBudget() / 2; int64(p.N) > lim/per/int64(r.chains) {
		return fmt.Errorf("mcmc: %d chains × %d particles × %d variables is more than the memory budget of %s allows; lower Chains or Particles",
			r.chains, parts, p.N, infer.FormatBytes(infer.MemoryBudget()))
	}
	affine := func(what string, i int, vars []int, coefs []float64, c float64) error {
		if len(vars) != len(coefs) {
			return fmt.Errorf("mcmc: %s %d has %d variables and %d coefficients", what, i, len(vars), len(coefs))
		}
		for e, v := range vars {
			if v < 0 || v >= p.N {
				return fmt.Errorf("mcmc: %s %d: variable %d out of range [0, %d)", what, i, v, p.N)
			}
			if math.IsNaN(coefs[e]) || math.IsInf(coefs[e], 0) {
				return fmt.Errorf("mcmc: %s %d: coefficient %v", what, i, coefs[e])
			}
		}
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("mcmc: %s %d: constant %v", what, i, c)
		}
		return nil
	}
	for i, f := range p.Gaussians {
		if err := affine("Gaussian factor", i, f.Vars, f.Coefs, f.Const-f.Y); err != nil {
			return err
		}
		if !(f.Var > 0) || math.IsInf(f.Var, 1) {
			return fmt.Errorf("mcmc: Gaussian factor %d: variance %v", i, f.Var)
		}
	}
	for i, s := range p.Sites {
		if err := affine("site", i, s.Vars, s.Coefs, s.Const); err != nil {
			return err
		}
		if s.LogLik == nil {
			return fmt.Errorf("mcmc: site %d has no log-likelihood", i)
		}
	}
	return nil
}
