package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// Param is one learned parameter: its name (for messages), starting value
// and transform.
type Param struct {
	Name      string
	Init      float64
	Transform Transform
}

// Builder returns the model's Gaussian blocks at parameter values x (one
// per Param, natural scale). The number of blocks and of sites per block
// must not depend on x. Optimize uses the blocks of one call only until
// the next call, so that a Builder may write the next blocks' matrices
// over their storage.
type Builder func(x []float64) ([]*Block, error)

// Settings configure Optimize. Zero values take the defaults in brackets.
type Settings struct {
	// EP are the settings of every evidence evaluation [KL, sequential,
	// Tol 1e-9, MaxIter 1000, Refresh 10 (0 means 10 here; 1 refreshes
	// every sweep)]; Tol is the tolerance near the optimum (see Optimize),
	// and KeepCov and Incremental are always set (the gradient reads Σ_f;
	// an evaluation factorises nothing it can do without). Divergence must
	// be nil or KL, and NonNegativeSites must be false: the gradient is
	// exact only at an unclamped KL fixed point. When a run does not
	// converge it is repeated from the last sites, from a cold start and
	// then with damping ½ (damping does not move EP's fixed points).
	EP ep.Settings
	// Method is the optimiser: lbfgs [default], bfgs or cg
	// (gonum/optimize; infer.Optimizers).
	Method infer.Optimizer
	// MaxIter bounds the optimiser's major iterations [100]; MaxEval its
	// evaluations of log Z_EP [4·MaxIter].
	MaxIter, MaxEval int
	// GradTol stops when ‖∂(−log Z)/∂u‖∞ < GradTol·max(1, n/250) for
	// models with n EP sites [1e-5] (see gradTolSites); FuncTol stops when
	// −log Z improved by less than FuncTol over 10 iterations [1e-9].
	GradTol, FuncTol float64
	// Progress, when non-nil, is called after every evaluation.
	Progress func(Eval)

	// cold runs every evaluation's EP from flat sites to EP.Tol (no warm
	// start, no adaptive tolerance): the reference of the tests.
	cold bool
}

// Eval is one evaluation of the evidence: the parameters x (natural scale),
// log Z_EP and its gradient in x. Failed evaluations (EP did not converge,
// the builder failed) have OK false and LogZ −Inf.
type Eval struct {
	N      int
	X      []float64
	LogZ   float64
	Grad   []float64
	OK     bool
	Sweeps int
}

// Result is the outcome of Optimize.
type Result struct {
	Status  infer.Status
	Message string
	infer.Stats
	// X are the learned values (the best evaluation), LogZ = log Z_EP there,
	// Grad its gradient in x.
	X    []float64
	LogZ float64
	Grad []float64
	// InitLogZ is log Z_EP at the starting values.
	InitLogZ float64
	// Trace holds every evaluation in order.
	Trace []Eval
	// Sites are the EP site parameters of each block at X (converged to
	// that evaluation's tolerance, see Optimize).
	Sites [][]families.Gaussian
	// EPSweeps is the total number of EP sweeps over all evaluations
	// (Stats.Iterations counts the optimiser's major iterations, Stats.Updates
	// the evaluations of log Z_EP).
	EPSweeps int
}

func (s *Settings) defaults() error {
	if s.EP.Divergence == nil {
		s.EP.Divergence = infer.KL{}
	}
	if _, ok := s.EP.Divergence.(infer.KL); !ok {
		return fmt.Errorf("learn: divergence %v has no evidence gradient; evidence maximisation uses kl (log Z_EP)", s.EP.Divergence)
	}
	if s.EP.NonNegativeSites {
		return errors.New("learn: clamped site precisions (NonNegativeSites) leave EP off its fixed point; the evidence gradient needs plain EP")
	}
	if s.EP.Tol == 0 {
		s.EP.Tol = infer.DefaultLearnEPTol
	}
	if s.EP.MaxIter == 0 {
		s.EP.MaxIter = infer.DefaultLearnEPMaxIter
	}
	if s.EP.Refresh == 0 {
		s.EP.Refresh = 10
	}
	s.EP.KeepCov = true // the gradient's Σ_f (Gradient, wspaceR)
	// Every evaluation needs log Z_EP and Σ_f only: no factorisation of B
	// where rank-one updates do (ep.Settings.Incremental). The cold
	// reference factorises as a plain run does.
	s.EP.Incremental = !s.cold
	if err := (infer.LearnOptions{Method: s.Method, MaxIter: s.MaxIter, Tol: s.GradTol}).Check(); err != nil {
		return fmt.Errorf("learn: %w", err)
	}
	if s.Method == "" {
		s.Method = infer.Optimizers[0]
	}
	if s.MaxIter == 0 {
		s.MaxIter = infer.DefaultLearnIter
	}
	if s.MaxEval == 0 {
		s.MaxEval = 4 * s.MaxIter
	}
	if s.GradTol == 0 {
		s.GradTol = infer.DefaultLearnTol
	}
	if s.FuncTol == 0 {
		s.FuncTol = infer.DefaultLearnFuncTol
	}
	return nil
}

func (s *Settings) method() (optimize.Method, error) {
	switch s.Method {
	case infer.LBFGS:
		return &optimize.LBFGS{}, nil
	case infer.BFGS:
		return &optimize.BFGS{}, nil
	case infer.CG:
		return &optimize.CG{}, nil
	}
	_, err := infer.ParseOptimizer(string(s.Method))
	return nil, fmt.Errorf("learn: %w", err)
}

// Optimize maximises Σ_blocks log Z_EP over the parameters by minimising
// −log Z_EP(x(u)) in the unconstrained variables u (see Transform) with
// gonum/optimize, using Gradient for the derivatives and the chain rule
// ∂/∂u = (∂/∂x)(dx/du). Every evaluation after the first warm-starts EP
// from the sites of the last successful ones extrapolated to the new point
// (warmStart), falling back to the last sites and then to a cold start when
// that run fails, and runs EP to min(3·10⁻², max(EP.Tol,
// 3·10⁻²·‖∂(−log Z)/∂u‖∞ at the last evaluation)) (epTol). A point where EP does not
// converge counts as −log Z = +∞, so line searches step back from it.
//
// Invalid settings and a failure at the starting values return an error;
// otherwise the best point found is returned with Status Converged (a
// convergence test passed), IterationLimit, Failed or Canceled (with
// ctx.Err()).
func Optimize(ctx context.Context, build Builder, params []Param, s Settings) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("learn: internal error: %v", r)
		}
	}()
	start := time.Now()
	if err := s.defaults(); err != nil {
		return nil, err
	}
	meth, err := s.method()
	if err != nil {
		return nil, err
	}
	if len(params) == 0 {
		return nil, errors.New("learn: no parameters to learn")
	}
	u0 := make([]float64, len(params))
	for i, p := range params {
		if u0[i], err = p.Transform.ToU(p.Init); err != nil {
			return nil, fmt.Errorf("learn: %s: %w", p.Name, err)
		}
	}
	o := &objective{ctx: ctx, build: build, params: params, s: &s, gradNorm: math.Inf(1)}
	first := o.at(u0)
	if !first.OK {
		return nil, fmt.Errorf("learn: no evidence at the starting values: %s", o.lastErr)
	}
	res = o.minimize(meth, u0, gradTol(s.GradTol, o.bestSites))
	res.InitLogZ = o.trace[0].LogZ
	res.Runtime = time.Since(start)
	if res.Status == infer.Canceled {
		return res, ctx.Err()
	}
	return res, nil
}

// gradTolSites is the number of EP sites beyond which the gradient test
// grows in proportion: log Z_EP and its gradient are sums over the n
// sites, so near the optimum the curvature of log Z_EP in u grows like n
// and the rounding and EP noise of log Z_EP like n too. With the threshold
// fixed, the last steps shrink like 1/n and their decrease in −log Z like
// GradTol²/n, which at n = 10⁴ (a FITC probit model, log Z ≈ −3879,
// curvature ≈ 10⁴) falls below the noise of log Z (≈ 10⁻¹⁰): the line
// search cannot tell the points apart, evaluates at x equal to 8 digits
// for dozens of evaluations and fails. (The gradient there is not the
// cause: EP at tolerance 10⁻⁷ from a neighbouring point's sites gives it
// to 10⁻⁹.) Scaling the threshold by n keeps the test a per-site one; the
// learned values move by at most GradTol·n/250 divided by the curvature
// (∝ n), i.e. O(GradTol) independent of n. Models of up to 250 sites
// (pima_ripley, GPML's synth_ripley cases) keep GradTol.
const gradTolSites = 250

// gradTol is the optimiser's gradient threshold for the sites of the
// first evaluation (blocks whose engine keeps no sites count none).
func gradTol(tol float64, sites [][]families.Gaussian) float64 {
	n := 0
	for _, s := range sites {
		n += len(s)
	}
	return tol * max(1, float64(n)/gradTolSites)
}

// minimize runs the optimiser from u0 (already evaluated) with gradient
// threshold gradTol and collects the result.
func (o *objective) minimize(meth optimize.Method, u0 []float64, gradTol float64) *Result {
	s := o.s
	o.gradTol = gradTol
	p := optimize.Problem{
		Func: func(u []float64) float64 { return -o.at(u).LogZ },
		Grad: func(g, u []float64) { o.gradU(g, u) },
	}
	st := &optimize.Settings{
		GradientThreshold: gradTol,
		MajorIterations:   s.MaxIter,
		FuncEvaluations:   s.MaxEval,
		Converger:         &optimize.FunctionConverge{Absolute: s.FuncTol, Iterations: 10},
		Recorder:          recorder{o},
	}
	or, err := optimize.Minimize(p, u0, st, meth)
	if errors.Is(err, errResolved) {
		if or == nil { // stopped at its first record
			or = &optimize.Result{}
		}
		or.Status, err = optimize.GradientThreshold, nil
	}
	res := &Result{Trace: o.trace}
	best := o.best()
	res.X, res.LogZ, res.Grad, res.Sites = best.X, best.LogZ, best.Grad, o.bestSites
	for _, e := range o.trace {
		res.EPSweeps += e.Sweeps
	}
	res.Updates = len(o.trace)
	switch {
	case o.ctx.Err() != nil:
		res.Status, res.Message = infer.Canceled, "canceled"
	case err != nil && or == nil:
		res.Status, res.Message = infer.Failed, err.Error()
	default:
		res.Status, res.Message = optStatus(or.Status, err)
		res.Stats.Iterations = or.Stats.MajorIterations
	}
	return res
}

// optStatus maps gonum's termination to an infer.Status.
func optStatus(st optimize.Status, err error) (infer.Status, string) {
	switch st {
	case optimize.Success, optimize.FunctionConvergence, optimize.GradientThreshold,
		optimize.StepConvergence, optimize.FunctionThreshold:
		return infer.Converged, ""
	case optimize.IterationLimit, optimize.FunctionEvaluationLimit, optimize.GradientEvaluationLimit,
		optimize.RuntimeLimit:
		return infer.IterationLimit, "optimiser stopped: " + st.String()
	}
	msg := "optimiser failed: " + st.String()
	if err != nil {
		msg += ": " + err.Error()
	}
	return infer.Failed, msg
}

// recorder stops the optimiser when the context is canceled, or when an
// evaluation passed the gradient test (objective.resolved).
type recorder struct{ o *objective }

// errResolved stops the optimiser at a resolved objective.
var errResolved = errors.New("the gradient test passed")

func (recorder) Init() error { return nil }
func (r recorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	if err := r.o.ctx.Err(); err != nil {
		return err
	}
	if r.o.resolved {
		return errResolved
	}
	return nil
}
