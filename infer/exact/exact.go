package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// MaxQuadDim is the largest block dimension the "quad" method accepts.
const MaxQuadDim = infer.MaxQuadDim

// Problem is a continuous block with a Gaussian prior N(Mean, Cov) and a
// log-likelihood LogLik(w) = Σ_i log t_i(w). LogLik may return −Inf (a zero
// likelihood, e.g. the noiseless step) but never NaN or +Inf. LogLik is
// called from a single goroutine (unless Settings.Workers > 1 with "is")
// and must not retain w.
type Problem struct {
	Mean   []float64
	Cov    *mat.SymDense
	LogLik func(w []float64) float64
}

// Settings configure Run. The zero value selects "quad" with the defaults
// below.
type Settings struct {
	// Method is "quad" (adaptive cubature, d ≤ 3; the default when empty)
	// or "is" (importance sampling from the prior).
	Method string
	// Tol is the target error of "quad": log Z absolute, means and
	// covariances relative to the posterior standard deviations
	// (default infer.DefaultQuadTol).
	Tol float64
	// MaxEval bounds the log-likelihood evaluations of each "quad" stage
	// (default 4e6). Reaching it ends the run with infer.IterationLimit.
	MaxEval int
	// HalfWidth is R, the half-width of the integration box in standard
	// deviations of the whitening Gaussian (default 10).
	HalfWidth float64
	// Samples is the number of importance samples of "is" (default 1e6).
	Samples int
	// Proposal is the importance density of "is": "adaptive" (the default;
	// a defensive mixture of the prior and a Student-t fitted by pilot
	// runs, see proposal) or "prior".
	Proposal string
	// Seed seeds "is": block b of 2^15 samples draws from a PCG source
	// hashed from (Seed, b), so results do not depend on Workers.
	Seed uint64
	// Workers is the number of goroutines of "is" (default 1). With more
	// than one, LogLik is called concurrently and must be safe for that.
	Workers int
	// Progress, when non-nil, is called with the log-likelihood evaluations
	// so far: every 256 cell refinements of "quad", with total 0 (the work
	// ends at the tolerance) and the current error estimate (in the units
	// of Tol; the run ends when it is ≤ Tol); after every block of 2^15
	// samples of "is", with the total evaluations of its two passes and
	// errEst NaN; and during Result.Expect of a "quad" result, whose pass
	// over the partition evaluates ℓ again (total 0, errEst NaN). With
	// Workers > 1 it is called from several goroutines.
	Progress func(evals, total int, errEst float64)
}

// Result is the posterior summary. Mean, Cov and Var are in the original
// coordinates w.
type Result struct {
	Method string
	Status infer.Status // infer.Done, infer.IterationLimit, infer.Canceled or infer.Failed
	infer.Stats
	Mean []float64
	Cov  *mat.SymDense
	Var  []float64
	LogZ float64
	// ErrEstimate is the achieved error estimate of "quad": the largest of
	// the estimated errors of log Z, of the posterior mean in units of
	// posterior standard deviations and of the covariance in units of
	// products of posterior standard deviations. For "is" it is the largest
	// of the standard errors expressed the same way.
	ErrEstimate float64
	// LogZErr and MeanErr, VarErr are the per-quantity error estimates
	// ("quad") or Monte Carlo standard errors ("is") in original units.
	LogZErr         float64
	MeanErr, VarErr []float64
	// Jitter is δ > 0 when the prior covariance was numerically singular
	// (duplicate GP inputs): the prior integrated is then N(Mean, Cov + δI),
	// the same as infer/mcmc samples.
	Jitter float64
	// Evaluations counts LogLik calls.
	Evaluations int
	// WeightESS is the effective sample size of the importance weights ("is").
	WeightESS float64
	// Proposal describes the importance density used ("is").
	Proposal string
	// Message explains a status other than infer.Done.
	Message string
	// Seed seeds the posterior draws with which a closed-form ("gaussian")
	// result answers Expect.
	Seed uint64

	quad          *integrator // final "quad" stage, for Expect
	is            *isState    // "is" run, for Expect
	isShift, isS0 float64
}

// Run computes the posterior of p. It returns an error (and a Result with
// Status infer.Failed or infer.Canceled where one exists) for invalid
// problems, dimension above MaxQuadDim with "quad", a non-positive-definite
// covariance, a NaN or +Inf log-likelihood, or a canceled context.
func Run(ctx context.Context, p Problem, s Settings) (res *Result, err error) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("exact: internal error: %v", r)
		}
		if res != nil {
			res.Runtime = time.Since(start)
		}
	}()
	s = s.withDefaults()
	prior, err := newFrame(p.Mean, p.Cov)
	if err != nil {
		return nil, err
	}
	if p.LogLik == nil {
		return nil, errors.New("exact: Problem.LogLik is nil")
	}
	switch infer.ExactIntegrator(s.Method) {
	case infer.ExactQuad:
		if prior.d > MaxQuadDim {
			return nil, fmt.Errorf("exact: method %q supports dimension d ≤ %d, the block has d = %d (use method %q or mcmc)", infer.ExactQuad, MaxQuadDim, prior.d, infer.ExactIS)
		}
		res, err = runQuad(ctx, p, prior, s)
	case infer.ExactIS:
		res, err = runIS(ctx, p, prior, s)
	default:
		return nil, fmt.Errorf("exact: unknown method %q (want %q or %q)", s.Method, infer.ExactQuad, infer.ExactIS)
	}
	if res != nil {
		res.Jitter = prior.jitter
	}
	return res, err
}

func (s Settings) withDefaults() Settings {
	if s.Method == "" {
		s.Method = "quad"
	}
	if s.Tol <= 0 {
		s.Tol = infer.DefaultQuadTol
	}
	if s.MaxEval <= 0 {
		s.MaxEval = 4_000_000
	}
	if s.HalfWidth <= 0 {
		s.HalfWidth = 10
	}
	if s.Samples <= 0 {
		s.Samples = 1_000_000
	}
	if s.Proposal == "" {
		s.Proposal = "adaptive"
	}
	if s.Workers <= 0 {
		s.Workers = 1
	}
	return s
}

// errBadLogLik reports a NaN or +Inf log-likelihood at w.
func errBadLogLik(v float64, w []float64) error {
	return fmt.Errorf("exact: log-likelihood is %v at w = %v", v, w)
}

// checkLogLik validates one log-likelihood value.
func checkLogLik(v float64, w []float64) error {
	if math.IsNaN(v) || math.IsInf(v, 1) {
		return errBadLogLik(v, w)
	}
	return nil
}
