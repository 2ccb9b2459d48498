package shard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// MaxShards bounds the number of shards (each holds a d×d site): the
// bound of the shards option.
const MaxShards = infer.MaxShards

// Problem is a Gaussian prior N(Mean, Cov) on w (Cov positive definite)
// and the likelihood sites of each shard (infer/ep sites on projections of w).
type Problem struct {
	Mean   []float64
	Cov    *mat.SymDense
	Shards [][]ep.Site
}

// Settings: the outer iteration's Damping (0 = 1), Tol (0 = 1e-6) and
// MaxIter (0 = 200) come from infer.Settings, whose Divergence and Schedule
// are ignored; Local configures each shard's local EP (its Tol 0 = Tol/100
// so that the local fixed points do not limit the outer one). Workers is
// the number of shards updated at once (0 = GOMAXPROCS); the result does not
// depend on it.
type Settings struct {
	infer.Settings
	Local   ep.Settings
	Workers int
}

// Result is the outcome of a sharded EP run.
type Result struct {
	Status  infer.Status
	Message string
	infer.Stats
	// Mean and Cov are the global posterior's moments; Global its natural
	// parameters (prior + Σ Sites).
	Mean   []float64
	Cov    *mat.SymDense
	Global families.GaussianDense
	Sites  []families.GaussianDense
	// LogZ is the EP evidence (package doc), HasLogZ false when undefined.
	LogZ    float64
	HasLogZ bool
	Trace   []float64 // R per iteration
}

// Defaults fills the zero fields of s with their defaults (see Settings)
// and checks the rest.
func (s *Settings) Defaults() error {
	if s.Damping == 0 {
		s.Damping = 1
	}
	if err := infer.CheckDamping(s.Damping); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	s.Settings = s.Settings.WithDefaults(infer.MethodEP)
	if s.Local.Tol == 0 {
		s.Local.Tol = s.Tol / 100
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	if !(s.Tol > 0) || s.MaxIter < 1 {
		return fmt.Errorf("shard: tol %g and max_iter %d, want tol > 0, max_iter ≥ 1", s.Tol, s.MaxIter)
	}
	return nil
}

func (p *Problem) validate() error {
	if p == nil || p.Cov == nil || p.Cov.SymmetricDim() == 0 {
		return errors.New("shard: problem has no prior covariance")
	}
	if len(p.Shards) == 0 || len(p.Shards) > MaxShards {
		return fmt.Errorf("shard: %d shards, want 1 to %d", len(p.Shards), MaxShards)
	}
	for k, sh := range p.Shards {
		if len(sh) == 0 {
			return fmt.Errorf("shard: shard %d has no sites", k)
		}
	}
	return nil
}

// Run performs sharded EP (package doc). Invalid problems and settings
// return an error; when ctx is canceled Run returns the partial result with
// Status Canceled (no numbers) together with ctx.Err().
func Run(ctx context.Context, p *Problem, s Settings) (*Result, error) {
	start := time.Now()
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := s.Defaults(); err != nil {
		return nil, err
	}
	prior, err := Prior(p.Mean, p.Cov)
	if err != nil {
		return nil, err
	}
	res := &Result{Sites: make([]families.GaussianDense, len(p.Shards))}
	for k := range res.Sites {
		res.Sites[k] = families.FlatGaussianDense(prior.Dim())
	}
	step := func(ctx context.Context, global families.GaussianDense, sites []families.GaussianDense, damping float64) ([]*Update, families.GaussianDense, error) {
		ups, err := updateAll(ctx, p, s, global, sites, damping)
		if err != nil {
			return nil, families.GaussianDense{}, err
		}
		next := make([]families.GaussianDense, len(ups))
		for k, u := range ups {
			next[k] = u.Site
		}
		return ups, Sum(families.FlatGaussianDense(prior.Dim()), next), nil
	}
	err = Iterate(ctx, prior, s, step, res)
	res.Runtime = time.Since(start)
	return res, err
}

// A Step runs every shard's LocalUpdate with damping step damping (the
// driver's, see infer.Iterate) from the same global posterior
// (given the shards' current sites, in shard order) and returns the updates
// in shard order with the sum of the new sites Σ_k site k. Run's Step uses
// goroutines; fg-beam's runs one Apache Beam job (a ParDo per shard and a
// global combine for the sum).
type Step func(ctx context.Context, global families.GaussianDense, sites []families.GaussianDense, damping float64) ([]*Update, families.GaussianDense, error)

// Iterate is the outer loop of sharded EP: from res.Sites (one per shard,
// flat to start) it calls step until the change of the global posterior
// prior + Σ sites falls below s.Tol, and fills res. s must have its
// defaults filled (Run does; Defaults for other callers). infer.Iterate
// decides the status; an iteration with a skipped shard is never converged.
// A step's error ends the run (failed, or canceled when ctx ended) and is
// returned. New sites whose product with the prior is not positive definite
// (the shards' negative curvatures adding up, as in parallel EP) change
// nothing and are reported as *infer.Rejected: infer.Iterate repeats the
// iteration at half the step, and only at its smallest step (or a fixed
// one) is the run diverged.
func Iterate(ctx context.Context, prior families.GaussianDense, s Settings, step Step, res *Result) error {
	global := prior.Clone()
	mean, cov, _ := global.Moments()
	var ups []*Update
	var stepErr error
	o := infer.Iterate(ctx, infer.Loop{Tol: s.Tol, Damping: s.Damping, MaxIter: s.MaxIter, FixedDamping: s.FixedDamping, Unit: "shard", Progress: s.Progress},
		func(ctx context.Context, it int, damping float64) (infer.Sweep, error) {
			next, sum, err := step(ctx, global, res.Sites, damping)
			if err != nil {
				stepErr = err
				return infer.Sweep{}, &infer.Halt{Status: infer.Failed, Message: err.Error()}
			}
			res.Iterations = it
			cand := prior.Mul(sum)
			m2, c2, ok := cand.Moments()
			if !ok { // the sites and the global posterior stay as they were
				return infer.Sweep{}, &infer.Rejected{Err: errors.New("the global posterior is not positive definite")}
			}
			ups, global = next, cand
			why, skipped := collect(res, ups)
			sw := infer.Sweep{Change: Residual(mean, cov, m2, c2), Updates: len(ups) - skipped, Skipped: skipped, Why: why}
			mean, cov = m2, c2
			return sw, nil
		})
	res.Trace = append(res.Trace, o.Trace...)
	res.Adapted = append(res.Adapted, o.Adapted...)
	if o.Status == infer.Converged {
		res.LogZ, res.HasLogZ = Evidence(prior, ups)
	}
	if o.Status == infer.Canceled { // a partial run carries no numbers
		res.Status, res.Message = o.Status, o.Message
		return ctx.Err()
	}
	finish(res, o.Status, o.Message, global, mean, cov)
	return stepErr
}

func finish(res *Result, st infer.Status, msg string, global families.GaussianDense, mean []float64, cov *mat.SymDense) error {
	res.Status, res.Message, res.Global = st, msg, global
	if st.HasNumbers() {
		res.Mean, res.Cov = mean, cov
	}
	return nil
}

// collect stores the new sites, adds the local statistics and returns the
// reason of the first skipped shard ("" when none was skipped) and the
// number of skipped shards.
func collect(res *Result, ups []*Update) (string, int) {
	var why string
	n := 0
	for k, u := range ups {
		res.Sites[k] = u.Site
		res.Updates += u.Updates
		res.Skipped += u.skips()
		if u.SkipReason != "" {
			n++
			if why == "" {
				why = fmt.Sprintf("shard %d: %s", k, u.SkipReason)
			}
		}
	}
	return why, n
}

// skips is 1 when the shard's update was skipped, else the local EP's
// skipped site updates.
func (u *Update) skips() int {
	if u.SkipReason != "" {
		return 1
	}
	return u.Stats.Skipped
}

// updateAll runs every shard's LocalUpdate from the same global posterior on
// s.Workers goroutines.
func updateAll(ctx context.Context, p *Problem, s Settings, global families.GaussianDense, sites []families.GaussianDense, damping float64) ([]*Update, error) {
	ups := make([]*Update, len(p.Shards))
	errs := make([]error, len(p.Shards))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(s.Workers, len(p.Shards)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				ups[k], errs[k] = LocalUpdate(ctx, global, sites[k], p.Shards[k], s.Local, damping)
			}
		}()
	}
	for k := range p.Shards {
		if ctx.Err() != nil {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ups, errors.Join(errs...)
}

// Prior returns the prior N(mean, cov) in natural parameters (mean nil is
// zero), through a Cholesky factorisation of cov.
func Prior(mean []float64, cov *mat.SymDense) (families.GaussianDense, error) {
	g, err := families.GaussianDenseFromMoments(mean, cov)
	if err != nil {
		return families.GaussianDense{}, fmt.Errorf("shard: prior %w", err)
	}
	return g, nil
}

// Sum returns the global posterior prior + Σ_k sites[k]: always summed from
// the sites afresh, so that a replaced site is counted once.
func Sum(prior families.GaussianDense, sites []families.GaussianDense) families.GaussianDense {
	g := prior.Clone()
	for _, s := range sites {
		g = g.Mul(s)
	}
	return g
}

// Residual is max(‖μ1 − μ0‖₂, ‖Σ1 − Σ0‖_F), the change of the global
// posterior (+Inf when the old posterior is missing).
func Residual(m0 []float64, c0 *mat.SymDense, m1 []float64, c1 *mat.SymDense) float64 {
	if m0 == nil || c0 == nil {
		return math.Inf(1)
	}
	var d mat.Dense
	d.Sub(c1, c0)
	return math.Max(floats.Distance(m0, m1, 2), mat.Norm(&d, 2))
}

// Evidence is the sharded EP's log Z (package doc) from the last
// iteration's updates, false when a shard has no local log Z or a Gaussian
// in it is improper.
func Evidence(prior families.GaussianDense, ups []*Update) (float64, bool) {
	props := make([]families.GaussianDense, len(ups))
	var lz float64
	for k, u := range ups {
		if !u.HasLogZ || u.SkipReason != "" {
			return 0, false
		}
		props[k] = u.Proposal
		pc, ok1 := u.Cavity.LogNormalizer()
		pt, ok2 := u.Cavity.Mul(u.Proposal).LogNormalizer()
		if !ok1 || !ok2 {
			return 0, false
		}
		lz += u.LogZ - pt + pc
	}
	pg, ok1 := Sum(prior, props).LogNormalizer()
	p0, ok2 := prior.LogNormalizer()
	lz += pg - p0
	return lz, ok1 && ok2 && !math.IsNaN(lz) && !math.IsInf(lz, 0)
}

// Split cuts sites into k contiguous shards of near-equal size (shard j
// holds sites ⌊j n/k⌋ … ⌊(j+1) n/k⌋ − 1), the in-process sharding of
// `infer ep { shards = k }`.
func Split[T any](sites []T, k int) [][]T {
	out := make([][]T, k)
	for j := range out {
		out[j] = sites[j*len(sites)/k : (j+1)*len(sites)/k]
	}
	return out
}
