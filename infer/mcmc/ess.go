package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/gauss"
	"github.com/fg-infer/fg/infer"
)

// Problem is a block with Gaussian prior N(Mean, Cov) and log-likelihood
// LogLik. A numerically singular Cov (a GP kernel matrix of close inputs) is
// factored with a small diagonal jitter, reported in Result.Jitter. Chains run in parallel, so LogLik must be safe for concurrent use
// (or set Settings.Workers = 1); it must not retain w. It may return −Inf
// (zero likelihood) but not NaN or +Inf.
type Problem struct {
	Mean   []float64
	Cov    *mat.SymDense
	LogLik func(w []float64) float64
}

// Settings configure RunESS.
type Settings struct {
	Samples int // kept draws per chain (default 1000, at least 4)
	Burnin  int // warm-up iterations per chain (0: Samples/2; NoBurnin: none)
	Thin    int // keep every Thin-th iteration (default 1)
	Chains  int // default 4
	Seed    uint64
	// Dispersed starts chain c at m0 + 3 L ε_c (three prior standard
	// deviations of spread) instead of a prior draw m0 + L ε_c.
	Dispersed bool
	// Init, when non-nil, gives every chain's starting point (overrides
	// Dispersed); len(Init) must equal Chains.
	Init [][]float64
	// KeepDraws keeps the draws in Result.Draws.
	KeepDraws bool
	// NoAdapt keeps the prior's ellipses through the burn-in instead of
	// fitting them to the posterior (see adaptBurnin).
	NoAdapt bool
	// Workers bounds the goroutines (default GOMAXPROCS).
	Workers int
	// Progress, when non-nil, is called every few hundred iterations with
	// the iterations done over all chains (burn-in included) and their
	// total, from the chains' goroutines.
	Progress func(done, total int)
}

// Result summarises the draws per coordinate of w.
type Result struct {
	Status infer.Status // infer.Done or infer.Canceled
	infer.Stats
	Mean, Var     []float64
	MeanSE, VarSE []float64 // Monte Carlo standard errors
	ESS, RHat     []float64 // bulk ESS and rank-normalised split R-hat (BulkESS, RankRHat)
	Chains        int
	Samples       int // kept draws per chain
	// Draws[c][j][t] is coordinate j of kept draw t of chain c (KeepDraws).
	Draws       [][][]float64
	Evaluations int // log-likelihood calls
	// Jitter is δ > 0 when the prior covariance was numerically singular
	// and Σ0 + δ I was used instead (see Message).
	Jitter  float64
	Message string
}

// maxShrink bounds the bracket shrinkage of one slice step.
const maxShrink = 10000

// essChain is the state of one elliptical slice sampling chain.
type essChain struct {
	p        *Problem
	l0       *mat.TriDense // prior Cholesky factor
	q        *ellipse      // the Gaussian whose ellipses the chain follows
	rng      *rand.Rand
	f, nu, e []float64
	prop     []float64
	a        []float64    // f − μ
	scratch  [3][]float64 // for the ellipse correction
	ll       float64      // ℓ_q(f): the log-likelihood plus the ellipse's correction
	evals    int
	iters    int
	tk       *ticker    // progress over all chains (nil: none)
	gibbs    *gibbsPart // the discrete half of a mixed chain (RunMixed), nil for RunESS
}

func newESSChain(p *Problem, l0 *mat.TriDense, rng *rand.Rand) *essChain {
	d := len(p.Mean)
	v := func() []float64 { return make([]float64, d) }
	return &essChain{p: p, l0: l0, q: priorEllipse(p.Mean, l0), rng: rng, f: v(), nu: v(), e: v(), prop: v(), a: v(),
		scratch: [3][]float64{v(), v(), v()}}
}

func (ch *essChain) loglik(w []float64) (float64, error) {
	ch.evals++
	v := ch.p.LogLik(w)
	if math.IsNaN(v) || math.IsInf(v, 1) {
		return 0, fmt.Errorf("mcmc: log-likelihood is %v at w = %v", v, w)
	}
	return v, nil
}

// priorDraw sets dst = m0 + scale · L0 ε.
func (ch *essChain) priorDraw(dst []float64, scale float64) {
	for i := range dst {
		dst[i] = scale * ch.rng.NormFloat64()
	}
	mulLower(ch.l0, dst)
	for i, m := range ch.p.Mean {
		dst[i] += m
	}
}

// prepare sets a = f − μ, draws ε and the direction ν = L_q ε of the next
// ellipse (for a fitted t, ε ~ N(0, s I) with s | f drawn first) and
// returns the correction ℓ_q − ℓ along it (zero for the prior).
func (ch *essChain) prepare() correction {
	q := ch.q
	for i, m := range q.mu {
		ch.a[i] = ch.f[i] - m
	}
	for i := range ch.e {
		ch.e[i] = ch.rng.NormFloat64()
	}
	if q.prior {
		copy(ch.nu, ch.e)
		mulLower(q.l, ch.nu)
		return correction{}
	}
	sc := ch.scratch
	copy(sc[0], ch.a)
	solveLower(q.l, sc[0])
	root := math.Sqrt(q.scaleDraw(ch.rng, dot(sc[0], sc[0]), len(ch.a)))
	for i := range ch.e {
		ch.e[i] *= root
	}
	copy(ch.nu, ch.e)
	mulLower(q.l, ch.nu)
	return newCorrection(q, ch.l0, ch.a, ch.nu, ch.e, sc[0], sc[1], sc[2])
}

// step is one elliptical slice sampling update (Murray et al. 2010, Fig. 2)
// on the ellipses of ch.q: w(θ) = μ + (f − μ) cos θ + ν sin θ.
func (ch *essChain) step() error {
	if ch.gibbs != nil {
		if err := ch.gibbs.sweep(ch.rng, ch.f); err != nil {
			return err
		}
		if err := ch.follow(ch.q); err != nil { // ℓ changed with z
			return err
		}
	}
	q := ch.q
	k := ch.prepare()
	v, err := ellipticalSlice(ch.rng, ch.ll, func(c, s float64) (float64, error) {
		for i, m := range q.mu {
			ch.prop[i] = m + ch.a[i]*c + ch.nu[i]*s
		}
		v, err := ch.loglik(ch.prop)
		return v + k.at(c, s), err
	})
	if errors.Is(err, errShrank) {
		return fmt.Errorf("mcmc: elliptical slice bracket shrank %d times without acceptance at log-likelihood %v", maxShrink, ch.ll)
	}
	if err != nil {
		return err
	}
	copy(ch.f, ch.prop)
	ch.ll = v
	return nil
}

// follow makes the chain move on the ellipses of q from now on and
// re-evaluates ℓ_q at the current state.
func (ch *essChain) follow(q *ellipse) error {
	v, err := ch.loglik(ch.f)
	if err != nil {
		return err
	}
	ch.q = q
	k := ch.prepare()
	ch.ll = v + k.at(1, 0)
	return nil
}

// ErrNoStart is the error of a chain whose prior draws all have zero
// likelihood (noise-free step sites that few prior draws satisfy); a
// caller can then start the chains elsewhere with Settings.Init.
var ErrNoStart = errors.New("no starting point with positive likelihood in 1000 prior draws")

// start sets the initial state: Init, or a (dispersed) prior draw redrawn up
// to 1000 times until the likelihood is positive.
func (ch *essChain) start(s *Settings, c int) error {
	if s.Init != nil {
		copy(ch.f, s.Init[c])
		v, err := ch.loglik(ch.f)
		if err != nil {
			return err
		}
		if math.IsInf(v, -1) {
			return fmt.Errorf("mcmc: chain %d starts where the likelihood is zero", c)
		}
		ch.ll = v
		return nil
	}
	scale := 1.0
	if s.Dispersed {
		scale = 3
	}
	for try := 0; try < 1000; try++ {
		ch.priorDraw(ch.f, scale)
		if ch.gibbs != nil && ch.gibbs.sweep(ch.rng, ch.f) != nil {
			continue // no discrete state fits this draw
		}
		v, err := ch.loglik(ch.f)
		if err != nil {
			return err
		}
		if !math.IsInf(v, -1) {
			ch.ll = v
			return nil
		}
	}
	return fmt.Errorf("mcmc: chain %d found %w", c, ErrNoStart)
}

// validate checks the problem and settings and returns the prior Cholesky
// factor and the jitter added (see priorFactor).
func validate(p *Problem, s *Settings, r runLength) (*mat.TriDense, float64, error) {
	d := len(p.Mean)
	if d == 0 || p.Cov == nil || p.Cov.SymmetricDim() != d {
		return nil, 0, errors.New("mcmc: Mean and Cov must be non-empty and of matching size")
	}
	if p.LogLik == nil {
		return nil, 0, errors.New("mcmc: Problem.LogLik is nil")
	}
	for i, m := range p.Mean {
		if math.IsNaN(m) || math.IsInf(m, 0) {
			return nil, 0, fmt.Errorf("mcmc: prior mean[%d] = %v", i, m)
		}
	}
	if err := r.checkKept(d); err != nil {
		return nil, 0, err
	}
	if err := checkLengths(r); err != nil {
		return nil, 0, err
	}
	if s.Init != nil {
		if len(s.Init) != r.chains {
			return nil, 0, fmt.Errorf("mcmc: %d initial points for %d chains", len(s.Init), r.chains)
		}
		for c, x := range s.Init {
			if len(x) != d {
				return nil, 0, fmt.Errorf("mcmc: initial point %d has length %d, want %d", c, len(x), d)
			}
		}
	}
	return priorFactor(p.Cov)
}

// priorFactor is gauss.CholeskyJitter with the package's error prefix.
func priorFactor(cov *mat.SymDense) (*mat.TriDense, float64, error) {
	l, delta, err := gauss.CholeskyJitter(cov)
	if err != nil {
		return nil, 0, fmt.Errorf("mcmc: %w", err)
	}
	return l, delta, nil
}

// RunESS samples the posterior of p by elliptical slice sampling on
// s.Chains parallel chains and summarises every coordinate (see Summarise).
// Unless s.NoAdapt, the burn-in fits the ellipses to the posterior (see
// adaptBurnin). A canceled context returns a Result with Status
// infer.Canceled (and no summaries) together with the context's error.
func RunESS(ctx context.Context, p Problem, s Settings) (*Result, error) {
	return runESS(ctx, p, s, nil)
}

// runESS is RunESS with setup(chain, c) called on each new chain before it
// starts (RunMixed attaches its Gibbs half there).
func runESS(ctx context.Context, p Problem, s Settings, setup func(ch *essChain, c int)) (*Result, error) {
	start := time.Now()
	r := lengths(s.Samples, s.Burnin, s.Thin, s.Chains)
	l, jitter, err := validate(&p, &s, r)
	if err != nil {
		return nil, err
	}
	d := len(p.Mean)
	chains := make([]*essChain, r.chains)
	draws := make([][][]float64, r.chains)
	tk := newTicker(s.Progress, r)
	err = runChains(ctx, r.chains, s.Workers, func(ctx context.Context, c int) error {
		chains[c] = newESSChain(&p, l, chainRand(s.Seed, c))
		chains[c].tk = tk
		if setup != nil {
			setup(chains[c], c)
		}
		return chains[c].start(&s, c)
	})
	if err == nil {
		err = adaptBurnin(ctx, chains, r, s.Workers, !s.NoAdapt && jitter == 0)
	}
	if err == nil {
		err = runChains(ctx, r.chains, s.Workers, func(ctx context.Context, c int) error {
			draws[c] = make([][]float64, d)
			for j := range draws[c] {
				draws[c][j] = make([]float64, 0, r.samples)
			}
			return chains[c].run(ctx, r.samples*r.thin, r.thin, draws[c])
		})
	}
	evals, iters := 0, 0
	for _, ch := range chains {
		if ch != nil {
			evals += ch.evals
			iters += ch.iters
		}
	}
	res, err := chainsResult(ctx, start, r, evals, iters, draws, d, err, s.KeepDraws)
	if err != nil {
		return res, err
	}
	if jitter > 0 {
		res.Jitter = jitter
		res.Message = strings.TrimSuffix(fmt.Sprintf("prior covariance numerically singular: sampled N(m0, Σ0 + %.3g I); %s", jitter, res.Message), "; ")
	}
	return res, nil
}

// run performs n iterations of the chain, appending every thin-th state to
// out[j] (out nil: none kept), and checks ctx at every iteration.
func (ch *essChain) run(ctx context.Context, n, thin int, out [][]float64) error {
	for it := 0; it < n; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := ch.step(); err != nil {
			return err
		}
		ch.iters++
		ch.tk.tick()
		if out != nil && (it+1)%thin == 0 {
			for j, v := range ch.f {
				out[j] = append(out[j], v)
			}
			if ch.gibbs != nil {
				ch.gibbs.record()
			}
		}
	}
	return nil
}

// summarise fills the per-coordinate summaries from draws[c][j][t], the
// coordinates on GOMAXPROCS goroutines (forEach).
func (res *Result) summarise(draws [][][]float64, d int) {
	res.Mean, res.Var = make([]float64, d), make([]float64, d)
	res.MeanSE, res.VarSE = make([]float64, d), make([]float64, d)
	res.ESS, res.RHat = make([]float64, d), make([]float64, d)
	forEach(d, func(j int) {
		per := make([][]float64, len(draws))
		for c := range draws {
			per[c] = draws[c][j]
		}
		sm := Summarise(per)
		res.Mean[j], res.Var[j] = sm.Mean, sm.Var
		res.MeanSE[j], res.VarSE[j] = sm.MeanSE, sm.VarSE
		res.ESS[j], res.RHat[j] = BulkESS(per), RankRHat(per)
	})
	if !allFinite(res.Mean) || !allFinite(res.Var) {
		res.Status = infer.Failed
		res.Message = "non-finite posterior summary"
	}
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
