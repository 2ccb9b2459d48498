package infer

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// This file holds the typed options of infer and learn lines and their
// ranges, written once: the compiler checks every option against them (an
// error with a position in `fg check`), and the engines check the values
// they receive against the same functions.

// Bounds of the iteration counts an option may ask for. They keep a typo
// (max_iter = 1e12) from becoming a run that never ends or an allocation
// that cannot succeed.
const (
	MaxSweeps      = 1_000_000_000 // max_iter and passes of an infer line (runs honour their context)
	MaxLearnIter   = 100_000       // max_iter of a learn line
	MaxBurnin      = 100_000_000   // mcmc burn-in sweeps per chain
	MinSamples     = 4             // split-chain diagnostics need four draws per chain
	MaxSeed        = 1<<53 - 1     // seeds are integers exact in a float64
	DefaultGHNodes = 32            // approx = gh
	MinGHNodes     = 2             // approx = gh(n = N)
	MaxGHNodes     = 1000          // approx = gh(n = N); the rule is computed for every site
	MaxShards      = 1 << 16       // shards = K of ep; each shard holds a d×d site
)

// CheckDamping checks a damping step: MinDamping ≤ d ≤ 1 (1 is undamped;
// iterate.go says why smaller steps are refused).
func CheckDamping(d float64) error {
	if !(d > 0 && d <= 1) {
		return fmt.Errorf("damping is a step size in [%g, 1], got %g", MinDamping, d)
	}
	if d < MinDamping {
		return fmt.Errorf("damping %g is below %g: so small a step moves the messages by less than their rounding and cannot be told from convergence; use a damping in [%g, 1]", d, MinDamping, MinDamping)
	}
	return nil
}

// CheckTol checks a convergence tolerance: finite and > 0.
func CheckTol(t float64) error {
	if !(t > 0) || math.IsInf(t, 1) {
		return fmt.Errorf("tol must be a finite number > 0, got %g", t)
	}
	return nil
}

// CheckMaxIter checks an infer line's sweep budget: 1 ≤ n ≤ MaxSweeps.
func CheckMaxIter(n int) error { return checkCount("max_iter", n, 1, MaxSweeps) }

// CheckPasses checks the number of ADF / mini-batch passes: 1 ≤ n ≤ MaxSweeps.
func CheckPasses(n int) error { return checkCount("passes", n, 1, MaxSweeps) }

// CheckSeed checks a random seed: 0 ≤ s ≤ MaxSeed.
func CheckSeed(s int) error { return checkCount("seed", s, 0, MaxSeed) }

// CheckShards checks the number of data shards of ep: 1 ≤ k ≤ MaxShards.
func CheckShards(k int) error {
	if k > MaxShards {
		return fmt.Errorf("shards = %d is above the bound %d", k, MaxShards)
	}
	return checkCount("shards", k, 1, MaxShards)
}

func checkCount(name string, n, lo, hi int) error {
	switch {
	case n < lo:
		return fmt.Errorf("%s must be ≥ %d, got %d", name, lo, n)
	case n > hi:
		return fmt.Errorf("%s must be ≤ %d, got %d", name, hi, n)
	}
	return nil
}

// CheckDivergence checks a divergence's parameter as the language allows
// it: relaxed_kl(c) with c > 0, alpha(a) with 0 ≤ a ≤ 1 (alpha(0) is the
// exclusive-KL limit, variational message passing: Alpha.VMP), t(nu) with
// nu > 0 (all finite).
func CheckDivergence(d Divergence) error {
	switch d := d.(type) {
	case RelaxedKL:
		if !(d.C > 0) || math.IsInf(d.C, 1) {
			return fmt.Errorf("relaxed_kl needs a finite penalty c > 0, got %g", d.C)
		}
	case Alpha:
		if !(d.A >= 0 && d.A <= 1) {
			return fmt.Errorf("alpha needs 0 ≤ a ≤ 1 (0: variational message passing), got %g", d.A)
		}
	case T:
		if !(d.Nu > 0) || math.IsInf(d.Nu, 1) {
			return fmt.Errorf("t needs finite degrees of freedom nu > 0, got %g", d.Nu)
		}
	}
	return nil
}

// The schedules each engine runs. An engine refuses the others; the
// compiler refuses them with the position of the option.
var (
	// EPSchedules: Gaussian-block EP (infer/ep) and t-EP (infer/tep).
	EPSchedules = []Schedule{Sequential, Parallel, Random}
	// FactorizedSchedules: fully factorised EP with a numerical scheme
	// (infer/ffep: mini-batch factors, family = factorized).
	FactorizedSchedules = []Schedule{Sequential, Random}
	// BPSchedules: belief propagation on discrete models (infer/bp).
	BPSchedules = []Schedule{Sequential, Parallel, Random, Residual}
	// GibbsSchedules: the Gibbs sampler (infer/mcmc).
	GibbsSchedules = []Schedule{Sequential, Random}
	// GraphFullSchedules and GraphFactorizedSchedules: ep on a factor
	// graph (infer/fgraph) under each family; a forest always runs
	// forward–backward.
	GraphFullSchedules       = []Schedule{Sequential, Parallel}
	GraphFactorizedSchedules = []Schedule{Sequential, Parallel, Residual}
	// GatedSchedules: ep on gated likelihoods (infer/fgraph).
	GatedSchedules = []Schedule{Sequential, Parallel}
	// NetSchedules: ep on a typed factor graph (infer/mp).
	NetSchedules = []Schedule{Sequential}
)

// CheckSchedule checks that s is one of the schedules of engine.
func CheckSchedule(engine string, s Schedule, allowed []Schedule) error {
	if slices.Contains(allowed, s) {
		return nil
	}
	return fmt.Errorf("schedule %v is not available for %s; schedules are %s", s, engine, joinNames(allowed))
}

// SchemeKind names a moment scheme for factors without closed-form tilted
// moments (the approx option; infer/ffep computes them).
type SchemeKind int

// The moment schemes. The order of GH … VQ is infer/ffep's.
const (
	SchemeGH           SchemeKind = iota // gh(n): Gauss–Hermite on a 1-D projection
	SchemeLaplace                        // laplace: expansion at the tilted mode
	SchemeQuickLaplace                   // quick_laplace: expansion at the cavity mean
	SchemeGQ                             // gq: precision-3 quadrature
	SchemeVQ                             // vq: variational quadrature
	SchemeExact                          // exact: closed-form tilted moments
)

// Scheme is the approx option: a moment scheme and, for gh, its number of
// nodes N.
type Scheme struct {
	Kind SchemeKind
	N    int // gh only
}

// Check checks the number of Gauss–Hermite nodes: MinGHNodes ≤ N ≤ MaxGHNodes.
func (s Scheme) Check() error {
	if s.Kind == SchemeGH && (s.N < MinGHNodes || s.N > MaxGHNodes) {
		return fmt.Errorf("gh needs %d ≤ n ≤ %d nodes, got %d", MinGHNodes, MaxGHNodes, s.N)
	}
	if s.Kind < SchemeGH || s.Kind > SchemeExact {
		return fmt.Errorf("unknown moment scheme %v", s.Kind)
	}
	return nil
}

// Numerical reports whether the scheme is a numerical one (not exact).
func (s Scheme) Numerical() bool { return s.Kind != SchemeExact }

func (s Scheme) String() string {
	if s.Kind == SchemeGH {
		return fmt.Sprintf("gh(n = %d)", s.N)
	}
	return s.Kind.String()
}

// MaxQuadDim is the largest block dimension exact's "quad" integrates.
const MaxQuadDim = 3

// Family is the approximating family of EP with a numerical scheme.
type Family int

const (
	FamilyFull       Family = iota // full: Gaussian-block EP
	FamilyFactorized               // factorized: fully factorised EP (infer/ffep)
)

// MCMCSpec are the run lengths of infer mcmc: Samples kept draws and Burnin
// discarded sweeps per chain, Chains independent chains.
type MCMCSpec struct {
	Samples, Burnin, Chains int
}

// Check checks the run lengths (CheckSamples, CheckBurnin, CheckChains).
func (s MCMCSpec) Check() error {
	if err := CheckSamples(s.Samples); err != nil {
		return err
	}
	if err := CheckBurnin(s.Burnin); err != nil {
		return err
	}
	return CheckChains(s.Chains)
}

// CheckSamples checks the draws per chain: n ≥ MinSamples (the draws kept
// over all chains are bounded by KeptDrawsLimit, checked with the model's
// size).
func CheckSamples(n int) error {
	if err := checkCount("samples", n, MinSamples, math.MaxInt); err != nil {
		return fmt.Errorf("%w (split-chain diagnostics need %d draws per chain)", err, MinSamples)
	}
	return nil
}

// CheckBurnin checks the discarded sweeps per chain: 0 ≤ n ≤ MaxBurnin.
func CheckBurnin(n int) error { return checkCount("burnin", n, 0, MaxBurnin) }

// CheckChains checks the number of chains: 1 ≤ n ≤ MaxChains, the
// sampler's limit (a LimitError above it).
func CheckChains(n int) error {
	if n > MaxChains {
		return &LimitError{Msg: fmt.Sprintf("chains = %d, at most %d", n, MaxChains)}
	}
	return checkCount("chains", n, 1, MaxChains)
}

// LimitError is a range check's refusal of a value above a limit of the
// engine (chains above MaxChains) rather than outside what the option
// means: compile reports it at the whole option, naming the line
// ("infer mcmc: chains = 1000, at most 256"), as it reports the memory
// budget of the draws.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// Optimizer is the optimiser of a learn line (gonum/optimize).
type Optimizer string

// The optimisers of a learn line.
const (
	LBFGS Optimizer = "lbfgs"
	BFGS  Optimizer = "bfgs"
	CG    Optimizer = "cg"
)

// Optimizers lists the optimisers; the first is the default.
var Optimizers = []Optimizer{LBFGS, BFGS, CG}

// ParseOptimizer returns the optimiser called name.
func ParseOptimizer(name string) (Optimizer, error) {
	if o := Optimizer(name); slices.Contains(Optimizers, o) {
		return o, nil
	}
	return "", fmt.Errorf("unknown learn method `%s`; methods are %s", name, joinNames(Optimizers))
}

// LearnOptions are the options of a learn line. Zero values mean the
// defaults of the optimiser (infer/learn for the KL EP evidence, whose
// tol is a gradient tolerance; Nelder–Mead for the t-EP evidence, whose
// tol is a change of −log Z and whose max_iter counts evaluations).
type LearnOptions struct {
	Method  Optimizer // "" = default
	MaxIter int       // 0 = default
	Tol     float64   // 0 = default
}

// Check checks the options: a known method, 1 ≤ MaxIter ≤ MaxLearnIter
// and a finite Tol > 0 when set.
func (s LearnOptions) Check() error {
	if s.Method != "" {
		if _, err := ParseOptimizer(string(s.Method)); err != nil {
			return err
		}
	}
	if s.MaxIter != 0 {
		if err := CheckLearnIter(s.MaxIter); err != nil {
			return err
		}
	}
	if s.Tol != 0 {
		return CheckTol(s.Tol)
	}
	return nil
}

// CheckLearnIter checks a learn line's max_iter: 1 ≤ n ≤ MaxLearnIter.
func CheckLearnIter(n int) error { return checkCount("max_iter", n, 1, MaxLearnIter) }

func joinNames[T ~string | Schedule](xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}
