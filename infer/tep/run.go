package tep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/tfam"
	"github.com/fg-infer/fg/infer"
)

// GaussianNu is the largest nu t-EP computes as such. The t-exponential
// family differs from the Gaussian by O(1/nu), while t-EP's q-algebra works
// with t − 1 = 2/(nu + k) and loses about ε/(t − 1) ≈ ε·nu/2 to rounding
// (ε = 2.2e-16): the two balance near nu = 1/√ε ≈ 7e7. At nu = 1e8 t-EP
// still agrees with Gaussian EP to 1e-6 (TestGaussianLimit); at 1e16 every
// update is skipped, and at 1e20 it stops at the prior. Above GaussianNu
// callers use Gaussian EP, the nu → ∞ limit (infer/run does so).
const GaussianNu = 1e8

// Options are the t-EP specific options.
type Options struct {
	// ADF makes a single sequential pass from zero sites: assumed density
	// filtering for the t-exponential family (Ding et al.; futami §3.3),
	// whose result depends on the order of the sites.
	ADF bool
	// Order is the visiting order of the sites for the Sequential schedule
	// and for ADF (nil: 0, 1, …, n−1).
	Order []int
}

// Result is the t-EP posterior St(w; Nu, Mean, Scale).
type Result struct {
	Status infer.Status
	infer.Stats
	Message string
	Nu, T   float64
	Mean    []float64     // posterior location μ (= mean for ν > 1)
	Scale   *mat.SymDense // posterior scale Σ; covariance ν/(ν−2)·Σ for ν > 2
	// LogZ is log Z_EP of futami §4.3 (evidence.go); HasLogZ is false for
	// ADF, for runs that did not converge and wherever the expression is
	// undefined.
	LogZ    float64
	HasLogZ bool
	Trace   []float64 // ‖μ_iter − μ_iter−1‖₂ after each sweep

	st     *state
	postCh mat.Cholesky // Cholesky factor of P (whitened)
	muU    []float64    // posterior location in whitened coordinates
	logPsi float64      // log Ψ of the posterior (whitened)
	trCov  float64      // tr Cov_u, cached by PredictTP
}

// Var returns the marginal variances ν/(ν−2)·Σᵢᵢ; a Student-t with ν ≤ 2
// has no finite variance, reported as +Inf (never NaN).
func (r *Result) Var() []float64 {
	v := make([]float64, len(r.Mean))
	for i := range v {
		v[i] = math.Inf(1)
		if r.Nu > 2 {
			v[i] = r.Nu / (r.Nu - 2) * r.Scale.At(i, i)
		}
	}
	return v
}

// Run performs t-EP (or t-ADF with o.ADF) on p. s.Divergence must be nil or
// infer.T{Nu: p.Nu}. Schedules: Sequential (o.Order), Random (fresh seeded
// permutation each sweep), Parallel (all sites from the same θ, then θ
// recombined). s.Damping ∈ [infer.MinDamping, 1] (0 means 1), s.Tol (default
// infer.DefaultMomentTol) bounds ‖μ_iter − μ_iter−1‖₂, s.MaxIter defaults to
// infer.DefaultMaxIter; infer.Iterate decides the status. Updates whose cavity is
// not positive definite, whose moments are not finite or whose new
// posterior precision would not be positive definite are skipped and
// counted in Stats.Skipped; a sweep with skipped updates never counts as
// converged (Stalled when the posterior stopped changing anyway). The
// convergence measure is the undamped residual ‖μ_iter − μ_iter−1‖₂ / δ.
// Nu above GaussianNu is numerically the Gaussian limit (see GaussianNu).
// Each site update costs O(k²) (package doc). ctx is checked before every
// site update and every refreshCheck sites of the O(n k²) rebuild at the
// end of a sweep (a sweep of 1500 sites with k = 1500 takes seconds); when
// it is canceled Run returns the partial result (Status Canceled) with
// ctx.Err(): the state after the last completed site update (sequential)
// or sweep (parallel).
// Invalid problems or settings return an error and no result.
func Run(ctx context.Context, p *Problem, s infer.Settings, o *Options) (res *Result, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			res, err = nil, fmt.Errorf("tep: internal error: %v", rec)
		}
	}()
	if err := checkSettings(p, &s, o); err != nil {
		return nil, err
	}
	if o == nil {
		o = &Options{}
	}
	start := time.Now()
	st, err := newState(p)
	if err != nil {
		return nil, err
	}
	res = &Result{Nu: p.Nu, T: st.t, st: st}
	res.Status, res.Message = loop(ctx, st, s, o, res)
	if res.Status == infer.Canceled && st.valid {
		st.f.cholesky(&st.chol) // the rebuild may not have run: f is current
	}
	if !res.finish() && res.Status != infer.Canceled {
		res.Status, res.Message = infer.Diverged, "posterior precision is not positive definite"
	}
	res.HasLogZ = res.HasLogZ && !o.ADF && res.Status == infer.Converged
	res.Runtime = time.Since(start)
	if res.Status == infer.Canceled {
		return res, ctx.Err()
	}
	return res, nil
}

func checkSettings(p *Problem, s *infer.Settings, o *Options) error {
	if err := p.validate(); err != nil {
		return err
	}
	if s.Divergence != nil && s.Divergence != (infer.T{Nu: p.Nu}) {
		return fmt.Errorf("tep: divergence %v does not match the problem's %v", s.Divergence, infer.T{Nu: p.Nu})
	}
	if p.Nu > GaussianNu {
		return fmt.Errorf("tep: nu = %g is above %g, where the t-exponential family is numerically Gaussian; use Gaussian EP (infer/ep), its nu → ∞ limit", p.Nu, GaussianNu)
	}
	if s.Damping == 0 {
		s.Damping = 1
	}
	if err := infer.CheckDamping(s.Damping); err != nil {
		return fmt.Errorf("tep: %w", err)
	}
	if err := infer.CheckSchedule("t-EP", s.Schedule, infer.EPSchedules); err != nil {
		return fmt.Errorf("tep: %w", err)
	}
	*s = s.WithDefaults(infer.MethodEP)
	if o != nil && o.Order != nil && !isPermutation(o.Order, len(p.Sites)) {
		return errors.New("tep: Order is not a permutation of the sites")
	}
	return nil
}

func isPermutation(o []int, n int) bool {
	if len(o) != n {
		return false
	}
	seen := make([]bool, n)
	for _, i := range o {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}

// loop runs the sweeps and returns the final status.
func loop(ctx context.Context, st *state, s infer.Settings, o *Options, res *Result) (infer.Status, string) {
	n := len(st.sites)
	order := o.Order
	if order == nil {
		order = make([]int, n)
		for i := range order {
			order[i] = i
		}
	}
	st.adf = o.ADF
	rng := rand.New(rand.NewPCG(s.Seed, 0x7e9))
	prev := make([]float64, st.k)
	copy(prev, st.m0)
	l := infer.Loop{Tol: s.Tol, Damping: s.Damping, MaxIter: s.MaxIter, FixedDamping: s.FixedDamping, Unit: "site", Progress: s.Progress}
	if o.ADF {
		l.Converger, l.MaxIter, l.Limit = infer.Never{}, 1, infer.Done
	}
	out := infer.Iterate(ctx, l, func(ctx context.Context, iter int, damping float64) (infer.Sweep, error) {
		u, k := res.Updates, res.Skipped
		var ok bool
		switch {
		case s.Schedule == infer.Parallel && !o.ADF:
			ok = parallelSweep(ctx, st, damping, res)
		case s.Schedule == infer.Random && !o.ADF:
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			ok = sequentialSweep(ctx, st, order, damping, res)
		default:
			ok = sequentialSweep(ctx, st, order, damping, res)
		}
		sw := infer.Sweep{Updates: res.Updates - u, Skipped: res.Skipped - k}
		if !ok && ctx.Err() != nil {
			return sw, ctx.Err()
		}
		res.Iterations = iter
		mu, ok := st.meanW()
		if !ok {
			return sw, errors.New("posterior precision not positive definite")
		}
		sw.Change = dist(mu, prev)
		prev = mu
		return sw, nil
	})
	res.Trace = append(res.Trace, out.Trace...)
	res.Adapted = append(res.Adapted, out.Adapted...)
	return out.Status, out.Message
}

// sequentialSweep updates the sites one after another, each in O(k²)
// (ADF: absorb, EP: apply), then rebuilds the state from the sites. It
// returns false when ctx ended the sweep (the state is then that after the
// last site update) or the rebuild found the posterior not positive
// definite.
func sequentialSweep(ctx context.Context, st *state, order []int, damping float64, res *Result) bool {
	for _, j := range order {
		if ctx.Err() != nil {
			return false
		}
		pr, ok := st.propose(j)
		if ok {
			if st.adf {
				ok = st.absorb(j, pr, damping)
			} else {
				ok = st.apply(j, pr, damping)
			}
		}
		if !ok {
			res.Skipped++
			continue
		}
		res.Updates++
	}
	return st.refresh(ctx)
}

// parallelSweep computes every proposal from the same θ, then sets all
// sites and rebuilds A, b, γ once. When ctx ends it during the proposals
// no site is changed; a canceled rebuild leaves f, μA and γ at the previous
// sweep's posterior.
func parallelSweep(ctx context.Context, st *state, damping float64, res *Result) bool {
	props := make([]proposal, len(st.sites))
	ok := make([]bool, len(st.sites))
	for j := range st.sites {
		if ctx.Err() != nil {
			return false
		}
		props[j], ok[j] = st.propose(j)
	}
	for j := range st.sites {
		if !ok[j] {
			res.Skipped++
			continue
		}
		st.set(j, props[j], damping)
		res.Updates++
	}
	return st.refresh(ctx)
}

// meanW returns the posterior location μ = L0 P⁻¹h = L0 A⁻¹b in w
// coordinates, for the convergence measure; ok is false when the posterior
// precision is not positive definite or μ is not finite.
func (st *state) meanW() ([]float64, bool) {
	if !st.valid {
		return nil, false
	}
	w := mat.NewVecDense(st.k, nil)
	w.MulVec(&st.l0, mat.NewVecDense(st.k, st.muA))
	return w.RawVector().Data, finite(w.RawVector().Data)
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// finish computes the posterior in w coordinates and the evidence; it
// returns false when P = A/γ is not positive definite.
func (r *Result) finish() bool {
	st := r.st
	if !st.valid {
		return false
	}
	r.postCh.Scale(1/st.gamma, &st.chol)
	r.muU = append([]float64(nil), st.muA...)
	mu := mat.NewVecDense(st.k, r.muU)
	r.logPsi = tfam.LogPsiFromPrecision(st.nu, st.k, r.postCh.LogDet())
	w := mat.NewVecDense(st.k, nil)
	w.MulVec(&st.l0, mu)
	r.Mean = w.RawVector().Data
	rho := (st.nu + float64(st.k)) * math.Exp(r.logPsi) / st.nu
	r.Scale = mat.NewSymDense(st.k, nil)
	if st.atPrior() {
		// P = λ0 I: Σ_w = (ρ/λ0) L0 L0ᵀ = (ρ/λ0) Σ0 in O(k²) (a run
		// canceled before its first update need not wait for O(k³)).
		r.Scale.ScaleSym(rho/st.lam0, st.scale0)
	} else {
		// Σ_w = ρ L0 P⁻¹ L0ᵀ = ρ (U⁻ᵀL0ᵀ)ᵀ(U⁻ᵀL0ᵀ) with P = UᵀU.
		var u mat.TriDense
		r.postCh.UTo(&u)
		var b mat.Dense
		if err := b.Solve(u.T(), st.l0.T()); err != nil {
			return false
		}
		r.Scale.SymOuterK(rho, b.T())
	}
	// hᵀP⁻¹h = bᵀA⁻¹b/γ.
	r.LogZ, r.HasLogZ = st.logZ(r.logPsi, dot(st.b, st.muA)/st.gamma)
	return true
}
