package ep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/mat"
)

// FITC EP: expectation propagation for a Gaussian process under the FITC
// sparse approximation (Snelson & Ghahramani 2006; Naish-Guzman & Holden
// 2008; GPML 4.2's infEP with apxSparse, opt.s = 1). With m inducing inputs
// Z the prior of the n latent values f is
//
//	f ~ N(0, Kt),   Kt = Q + diag(g),   Q = K_fu (K_uu + snu2 I)⁻¹ K_uf,   g = max(diag(K) − diag(Q), 0),
//
// where snu2 is GPML's jitter 1e-6·trace(K_uu)/m (GPMLJitter). With
// L_u Lᵤᵀ = K_uu + snu2 I and the columns v_i = L_u⁻¹ k_u(x_i) of V (m×n),
// Q = VᵀV, so f = Vᵀu + ε with u ~ N(0, I_m) and ε ~ N(0, diag(g)). Under
// Gaussian sites exp(−½ τ̃_i f_i² + ν̃_i f_i), f given u has a diagonal
// posterior and u a Gaussian one, which gives the O(n m) representation of
// the EP posterior N(μ, Σ), Σ = (Kt⁻¹ + T)⁻¹:
//
//	c_i = 1/(1 + g_i τ̃_i),   d_i = g_i c_i,   w_i = τ̃_i c_i,
//	A = I_m + V diag(w) Vᵀ,   h = V (c ∘ ν̃),
//	μ_i  = c_i v_iᵀ A⁻¹ h + d_i ν̃_i,
//	σ²_i = d_i + c_i² v_iᵀ A⁻¹ v_i,
//	log det(I + T Kt) = Σ_i log(1 + g_i τ̃_i) + log det A.
//
// No n×n matrix is formed: the engine stores V (n m numbers) and the
// Cholesky factor of A (m×m). A sequential site update changes w_i and
// c_i ν̃_i only, i.e. A by the rank one Δw_i v_i v_iᵀ (a Cholesky
// up/downdate, O(m²)) and h by a multiple of v_i (A⁻¹h follows by
// Sherman–Morrison with the same A⁻¹ v_i that gave σ²_i) — the m×m
// rank-one scheme of GPML's infEP sparse path. After every sweep (and for
// the parallel schedule) the representation is rebuilt from the sites in
// O(n m²), which also removes the rounding the rank-one updates accumulate.
// Sites, tilted moments, damping, power EP, relaxed EP, the τ̃ ≥ 0 clamp and
// log Z_EP are the dense engine's (rule.propose, logZEP); the representation
// needs 1 + g_i τ̃_i > 0, which holds whenever τ̃_i ≥ 0 (every log-concave
// likelihood); an update that would break it is skipped.
//
// Predictions at new inputs use GPML's FITC predictive distribution: the
// test point shares Q's low-rank part but not the training points'
// independent terms g_i,
//
//	E f* = Q*f α,   Var f* = k** − Q** + v*ᵀ A⁻¹ v*,   v* = L_u⁻¹ k_u(x*),
//
// with α = ν̃ − T μ = Kt⁻¹ μ, Q*f = v*ᵀ V and Q** = |v*|² (the second form
// is k** − Q*f (Kt + T⁻¹)⁻¹ Qf*, since V (T − T Σ T) Vᵀ = I − A⁻¹).

// FITCProblem is EP for a zero-mean GP under the FITC prior above. Sites are
// Index sites (Proj must be nil); several sites may share a latent value.
type FITCProblem struct {
	Kuu   *mat.SymDense // k(Z, Z), m×m
	Kfu   *mat.Dense    // k(X, Z), n×m
	Kdiag []float64     // k(x_i, x_i), n
	// Jitter is snu2 ≥ 0, added to K_uu's diagonal in Q (GPMLJitter(Kuu)
	// is GPML's default).
	Jitter float64
	Sites  []Site
	Init   []families.Gaussian // warm start (one per site), nil for τ̃ = ν̃ = 0
}

// GPMLJitter is GPML's inducing-point jitter snu2 = 1e-6·trace(K_uu)/m
// (apxSparse and infEP's sparse path).
func GPMLJitter(Kuu *mat.SymDense) float64 {
	m := Kuu.SymmetricDim()
	var tr float64
	for i := 0; i < m; i++ {
		tr += Kuu.At(i, i)
	}
	return 1e-6 * tr / float64(m)
}

// FITCResult is the outcome of FITC EP. Mean and Var are the posterior
// marginals of the n latent values; the other fields are as in Result.
type FITCResult struct {
	Status  infer.Status
	Message string
	infer.Stats
	Mean, Var []float64
	Sites     []families.Gaussian
	B         []float64
	LogZ      float64
	HasLogZ   bool
	Trace     []float64

	pr    *fitcPrior
	st    *fitcState
	beta  []float64 // V α, α = ν̃ − T μ
	alpha []float64 // α (n)
	tau   []float64 // summed site precisions per latent value
}

func (p *FITCProblem) validate() error {
	if p == nil || p.Kuu == nil || p.Kfu == nil {
		return errors.New("ep: FITC problem needs K_uu and K_fu")
	}
	m := p.Kuu.SymmetricDim()
	n, mc := p.Kfu.Dims()
	switch {
	case m == 0 || n == 0:
		return errors.New("ep: FITC problem has no inducing inputs or no latents")
	case mc != m:
		return fmt.Errorf("ep: K_fu is %d×%d, want %d columns (K_uu is %d×%d)", n, mc, m, m, m)
	case len(p.Kdiag) != n:
		return fmt.Errorf("ep: %d prior variances for %d latents", len(p.Kdiag), n)
	case !(p.Jitter >= 0) || math.IsInf(p.Jitter, 1):
		return fmt.Errorf("ep: FITC jitter %g, want ≥ 0", p.Jitter)
	case len(p.Sites) == 0:
		return errors.New("ep: problem has no sites")
	case p.Init != nil && len(p.Init) != len(p.Sites):
		return fmt.Errorf("ep: %d initial site parameters for %d sites", len(p.Init), len(p.Sites))
	}
	for i, s := range p.Sites {
		if err := validSite(s, i, n); err != nil {
			return err
		}
		if s.Proj != nil {
			return fmt.Errorf("ep: FITC site %d is a projection; FITC sites are on single latent values", i)
		}
		if p.Init != nil && !finite(p.Init[i].Prec, p.Init[i].Shift) {
			return fmt.Errorf("ep: initial site %d is not finite", i)
		}
	}
	if !finite(p.Kdiag...) || !finite(p.Kuu.RawSymmetric().Data...) || !finite(p.Kfu.RawMatrix().Data...) {
		return errors.New("ep: FITC prior covariances are not finite")
	}
	return nil
}

// validSite checks a site's likelihood, observation and index.
func validSite(s Site, i, n int) error {
	if s.Lik == nil {
		return fmt.Errorf("ep: site %d has no likelihood", i)
	}
	if err := s.Lik.CheckY(s.Y); err != nil {
		return fmt.Errorf("ep: site %d: %w", i, err)
	}
	if s.Proj == nil && (s.Index < 0 || s.Index >= n) {
		return fmt.Errorf("ep: site %d index %d out of range [0, %d)", i, s.Index, n)
	}
	return nil
}

// RunFITC performs EP on p under the FITC prior with the dense engine's
// settings (divergence, damping, schedule sequential / random / parallel,
// tol on R = ‖μ_iter − μ_iter−1‖₂, MaxIter, NonNegativeSites; Refresh is
// not used: the representation is rebuilt after every sweep). Errors and
// statuses are as for Run.
func RunFITC(ctx context.Context, p *FITCProblem, s Settings) (*FITCResult, error) {
	return runEP(ctx, p.validate, s, func(r rule) (*FITCResult, error) {
		pr, err := newFITCPrior(ctx, p)
		if err != nil {
			return nil, err
		}
		return newFITCEngine(p, pr, s, r).loop(ctx), nil
	}, &FITCResult{Status: infer.Canceled, Message: "canceled"})
}

// fitcEngine is the FITC EP driver: per-site messages and their sums per
// latent value (tau, nu), which the representation reads.
type fitcEngine struct {
	p       *FITCProblem
	pr      *fitcPrior
	s       Settings
	r       rule
	sites   []families.Gaussian
	b       []float64
	tau, nu []float64
	st      *fitcState
	rng     *rand.Rand
	stats   infer.Stats
	// byLatent lists the sites of each latent value (onLatent; built
	// when a tight latent first asks).
	byLatent [][]int
}

func newFITCEngine(p *FITCProblem, pr *fitcPrior, s Settings, r rule) *fitcEngine {
	s = s.withDefaults()
	e := &fitcEngine{p: p, pr: pr, s: s, r: r, sites: make([]families.Gaussian, len(p.Sites)), b: make([]float64, len(p.Sites)),
		tau: make([]float64, pr.n), nu: make([]float64, pr.n)}
	if p.Init != nil {
		copy(e.sites, p.Init)
	}
	e.tau, e.nu = e.totals(e.sites)
	if s.Schedule == infer.Random {
		e.rng = rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	}
	return e
}

// totals sums the site messages per latent value.
func (e *fitcEngine) totals(sites []families.Gaussian) (tau, nu []float64) {
	tau, nu = make([]float64, e.pr.n), make([]float64, e.pr.n)
	for j, sp := range sites {
		i := e.p.Sites[j].Index
		tau[i] += sp.Prec
		nu[i] += sp.Shift
	}
	return tau, nu
}

func (e *fitcEngine) loop(ctx context.Context) *FITCResult {
	res := &FITCResult{}
	var err error
	if e.st, err = e.pr.recompute(ctx, e.tau, e.nu); err != nil {
		if ctx.Err() != nil {
			return e.finish(res, infer.Canceled, "canceled")
		}
		if e.p.Init == nil {
			return e.finish(res, infer.Failed, "prior could not be factorised: "+err.Error())
		}
		return e.finish(res, infer.Failed, "warm-start sites give an improper posterior")
	}
	var mom []float64 // the means and sds of the last rebuild (momentVector)
	status, msg := iterate(ctx, e.s, &e.r.Damping, func() []float64 {
		mom = momentVector(mom, e.st.mu, func(i int) float64 { return e.st.sdiag[i] })
		return mom
	}, func(int) error {
		if e.s.Schedule == infer.Parallel {
			return e.sweepParallel(ctx)
		}
		return e.sweepSequential(ctx)
	}, &e.stats, &res.Trace)
	return e.finish(res, status, msg)
}

func (e *fitcEngine) order() []int { return visitOrder(e.rng, len(e.sites)) }

// ctxEvery is how many site updates pass between context checks.
const ctxEvery = 256

// sweepSequential updates the sites one at a time with O(m²) rank-one
// updates (fitcState.update), then rebuilds the representation.
func (e *fitcEngine) sweepSequential(ctx context.Context) error {
	w := newFITCWork(e.pr.m)
	for k, j := range e.order() {
		if k%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		i := e.p.Sites[j].Index
		old := e.sites[j]
		mu, s2 := e.st.marginal(e.pr, i, e.tau[i], e.nu[i], w)
		tc, nc := e.cavity(j, e.r.Power, mu, s2)
		np, b, ok := e.r.proposeCavity(e.p.Sites[j], old, tc, nc)
		e.b[j] = b
		if ok {
			ok = e.st.update(e.pr, i, e.tau[i], e.nu[i], e.tau[i]+np.Prec-old.Prec, e.nu[i]+np.Shift-old.Shift, w)
		}
		if !ok {
			e.stats.Skipped++
			continue
		}
		e.sites[j] = np
		e.tau[i] += np.Prec - old.Prec
		e.nu[i] += np.Shift - old.Shift
		e.stats.Updates++
		if w.refactor {
			w.refactor = false
			if err := e.rebuild(ctx); err != nil {
				return err
			}
		}
	}
	return e.rebuild(ctx)
}

// rebuild recomputes the representation from the current sites.
func (e *fitcEngine) rebuild(ctx context.Context) error {
	e.tau, e.nu = e.totals(e.sites)
	st, err := e.pr.recompute(ctx, e.tau, e.nu)
	if err != nil {
		return err
	}
	e.st = st
	return nil
}

// sweepParallel computes every site's new message from the same posterior,
// then rebuilds the representation once. New sites that give no proper
// posterior change nothing and are reported as *infer.Rejected, as in the
// dense engine.
func (e *fitcEngine) sweepParallel(ctx context.Context) error {
	next := append([]families.Gaussian(nil), e.sites...)
	nb := append([]float64(nil), e.b...)
	for j := range e.sites {
		if j%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		i := e.p.Sites[j].Index
		tc, nc := e.cavity(j, e.r.Power, e.st.mu[i], e.st.sdiag[i])
		np, b, ok := e.r.proposeCavity(e.p.Sites[j], e.sites[j], tc, nc)
		nb[j] = b
		if !ok {
			e.stats.Skipped++
			continue
		}
		next[j] = np
		e.stats.Updates++
	}
	tau, nu := e.totals(next)
	st, err := e.pr.recompute(ctx, tau, nu)
	if err != nil {
		return rejectImproper(err)
	}
	e.sites, e.b, e.tau, e.nu, e.st = next, nb, tau, nu, st
	return nil
}

// finish fills res from the last rebuilt representation; log Z_EP as in
// the dense engine (converged runs, not relaxed KL).
func (e *fitcEngine) finish(res *FITCResult, status infer.Status, msg string) *FITCResult {
	res.Status, res.Message = status, msg
	res.Sites = append([]families.Gaussian(nil), e.sites...)
	res.B = append([]float64(nil), e.b...)
	res.Stats = e.stats
	if e.st == nil || status == infer.Canceled || status == infer.Diverged || status == infer.Failed {
		return res
	}
	st := e.st
	res.pr, res.st = e.pr, st
	res.Mean, res.Var = append([]float64(nil), st.mu...), append([]float64(nil), st.sdiag...)
	alpha := make([]float64, e.pr.n)
	for i := range alpha {
		alpha[i] = e.nu[i] - e.tau[i]*st.mu[i]
		if st.alpha != nil && !math.IsNaN(st.alpha[i]) {
			alpha[i] = st.alpha[i] // a tight latent's, without cancelling
		}
	}
	beta := mat.NewVecDense(e.pr.m, nil)
	beta.MulVec(e.pr.Vt.T(), mat.NewVecDense(e.pr.n, alpha))
	res.beta, res.alpha, res.tau = beta.RawVector().Data, alpha, append([]float64(nil), e.tau...)
	if status == infer.Converged && !e.r.relaxed {
		mu, s2 := make([]float64, len(e.sites)), make([]float64, len(e.sites))
		for j, s := range e.p.Sites {
			mu[j], s2[j] = st.mu[s.Index], st.sdiag[s.Index]
		}
		cav := func(j int, u float64, _ families.Gaussian, mu, v float64) (float64, float64) {
			return e.cavity(j, u, mu, v)
		}
		lz, err := logZEP(e.r.Power, e.p.Sites, e.sites, nil, mu, s2, e.siteAlpha(st), cav, st.logDet)
		res.LogZ, res.HasLogZ = lz, err == nil
		if err != nil {
			res.Message = joinMsg(res.Message, err.Error())
		}
	}
	return res
}
