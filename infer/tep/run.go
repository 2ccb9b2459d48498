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
// recombined). s.Damping ∈ (0, 1] (0 means 1), s.Tol (default 1e-8) bounds
// ‖μ_iter − μ_iter−1‖₂, s.MaxIter defaults to 200. Updates whose cavity is
// not positive definite or whose moments are not finite are skipped and
// counted in Stats.Skipped. ctx is checked before every sweep; when it is
// canceled Run returns the partial result (Status Canceled) with ctx.Err().
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
	if s.Damping == 0 {
		s.Damping = 1
	}
	if !(s.Damping > 0 && s.Damping <= 1) {
		return fmt.Errorf("tep: damping %g outside (0, 1]", s.Damping)
	}
	if s.Tol == 0 {
		s.Tol = 1e-8
	}
	if s.MaxIter == 0 {
		s.MaxIter = 200
	}
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
	rng := rand.New(rand.NewPCG(s.Seed, 0x7e9))
	prev := make([]float64, st.k)
	copy(prev, st.m0)
	for iter := 1; iter <= s.MaxIter; iter++ {
		if err := ctx.Err(); err != nil {
			return infer.Canceled, err.Error()
		}
		switch {
		case s.Schedule == infer.Parallel && !o.ADF:
			parallelSweep(st, s.Damping, res)
		case s.Schedule == infer.Random && !o.ADF:
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			sequentialSweep(st, order, s.Damping, res)
		default:
			sequentialSweep(st, order, s.Damping, res)
		}
		st.refresh()
		res.Iterations = iter
		mu, ok := st.meanU()
		if !ok {
			return infer.Diverged, fmt.Sprintf("posterior precision not positive definite after sweep %d", iter)
		}
		r := dist(mu, prev)
		prev = mu
		res.Trace = append(res.Trace, r)
		if s.Progress != nil {
			s.Progress(iter, r)
		}
		if o.ADF {
			return infer.Done, ""
		}
		if r < s.Tol {
			return infer.Converged, ""
		}
	}
	return infer.IterationLimit, fmt.Sprintf("no convergence in %d sweeps", s.MaxIter)
}

func sequentialSweep(st *state, order []int, damping float64, res *Result) {
	for _, j := range order {
		pr, ok := st.propose(j)
		if !ok {
			res.Skipped++
			continue
		}
		st.apply(j, pr, damping)
		res.Updates++
	}
}

func parallelSweep(st *state, damping float64, res *Result) {
	props := make([]proposal, len(st.sites))
	ok := make([]bool, len(st.sites))
	for j := range st.sites {
		props[j], ok[j] = st.propose(j)
	}
	for j := range st.sites {
		if !ok[j] {
			res.Skipped++
			continue
		}
		st.apply(j, props[j], damping)
		res.Updates++
	}
}

// meanU returns the posterior location μ = L0 P⁻¹h in w coordinates, for the
// convergence measure; ok is false when P is not positive definite or μ is
// not finite.
func (st *state) meanU() ([]float64, bool) {
	var ch mat.Cholesky
	if !ch.Factorize(st.P) {
		return nil, false
	}
	var mu mat.VecDense
	if ch.SolveVecTo(&mu, mat.NewVecDense(st.k, append([]float64(nil), st.h...))) != nil {
		return nil, false
	}
	w := mat.NewVecDense(st.k, nil)
	w.MulVec(&st.l0, &mu)
	for _, x := range w.RawVector().Data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
	}
	return w.RawVector().Data, true
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// finish computes the posterior in w coordinates and the evidence; it
// returns false when P is not positive definite.
func (r *Result) finish() bool {
	st := r.st
	if !r.postCh.Factorize(st.P) {
		return false
	}
	var mu mat.VecDense
	if r.postCh.SolveVecTo(&mu, mat.NewVecDense(st.k, append([]float64(nil), st.h...))) != nil {
		return false
	}
	r.muU = mu.RawVector().Data
	r.logPsi = tfam.LogPsiFromPrecision(st.nu, st.k, r.postCh.LogDet())
	w := mat.NewVecDense(st.k, nil)
	w.MulVec(&st.l0, &mu)
	r.Mean = w.RawVector().Data
	// Σ_w = ρ L0 P⁻¹ L0ᵀ = ρ (U⁻ᵀL0ᵀ)ᵀ(U⁻ᵀL0ᵀ) with P = UᵀU.
	var u mat.TriDense
	r.postCh.UTo(&u)
	var b mat.Dense
	if err := b.Solve(u.T(), st.l0.T()); err != nil {
		return false
	}
	rho := (st.nu + float64(st.k)) * math.Exp(r.logPsi) / st.nu
	r.Scale = mat.NewSymDense(st.k, nil)
	r.Scale.SymOuterK(rho, b.T())
	r.LogZ, r.HasLogZ = st.logZ(r.logPsi, dot(st.h, r.muU))
	return true
}
