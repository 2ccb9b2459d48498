// Package infer holds what every inference engine of fg shares: divergences as
// parameterised value types, schedules, run status and statistics, the
// engine-neutral Result that the CLI, the REPL and the Go API present, and
// the memory budget that bounds allocations a model controls (budget.go).
//
// It is also the method registry: names.go is the one file that spells
// method, divergence, schedule, scheme and family names (everything else
// compares typed values), and methods.go says, per method, which options it
// takes with their defaults and which Engine serves each model Structure, so
// that compile's checks and infer/run's dispatch cannot disagree. The one
// iteration driver of the message-passing engines is Iterate (iterate.go):
// sweeps, the convergence test on change per step, the damping schedule
// (adapt.go) and the loop's status (converged, stalled, failed, diverged,
// iteration limit, canceled) are decided there, not in each engine.
//
// Engines live in sub-packages (infer/ep for Gaussian blocks, infer/fgraph
// for factor graphs of Gaussian latents, infer/mp for typed factor graphs,
// infer/bp and infer/jtree for discrete graphs, infer/tep for the
// t-exponential family, infer/ffep for fully factorised EP with numerical
// moment schemes, infer/stream and infer/shard for streamed and sharded
// data, infer/exact and infer/mcmc for gold standards). Each takes its own
// problem type and a context.Context and returns its own result; the adapter
// in infer/run turns a compiled model into engine problems and engine results
// into a Result.
package infer

import (
	"fmt"
	"time"

	// The dense linear algebra of the build (pure Go, or OpenBLAS with
	// -tags openblas) is installed for every engine here.
	_ "github.com/fg-infer/fg/internal/openblas"
)

// Divergence selects the projection an engine performs. The concrete types are
// KL, RelaxedKL, Alpha and T; they are values, compared with ==.
type Divergence interface {
	fmt.Stringer
	divergence()
}

// KL is the inclusive Kullback–Leibler divergence: EP on continuous models,
// BP on discrete ones.
type KL struct{}

// RelaxedKL is the l1-penalised relaxation of moment matching (relaxed EP and
// relaxed BP, Qi & Guo): per factor a relaxation weight b ≥ 0 is chosen by a
// line search on KL + C·|b|. C → ∞ recovers KL.
type RelaxedKL struct{ C float64 }

// Alpha is the α-divergence of power EP and fractional BP. A = 1 is KL.
type Alpha struct{ A float64 }

// VMP reports whether the divergence is alpha(0): the exclusive-KL limit
// of power EP, which is variational message passing (mean field over the
// continuous variables, sum-product on the discrete ones; Minka 2005). It
// runs on typed factor graphs (infer/mp) and reports an evidence lower
// bound instead of log Z.
func (d Alpha) VMP() bool { return d.A == 0 }

// T is the t-divergence of EP for the t-exponential family (Futami et al.):
// Student-t approximating family with Nu degrees of freedom.
type T struct{ Nu float64 }

func (KL) divergence()        {}
func (RelaxedKL) divergence() {}
func (Alpha) divergence()     {}
func (T) divergence()         {}

// Schedule is the order in which an engine visits factors.
type Schedule int

const (
	// Sequential visits factors one at a time in a fixed order.
	Sequential Schedule = iota
	// Parallel updates every factor from the same state, then recombines.
	Parallel
	// Random visits factors one at a time in a fresh random order each sweep.
	Random
	// Residual visits the factor with the largest pending change first
	// (libDAI's SEQMAX).
	Residual
)

// Status says how a run ended.
type Status int

const (
	// Converged: the convergence measure fell below the tolerance.
	Converged Status = iota
	// IterationLimit: the sweep budget ran out first.
	IterationLimit
	// Diverged: the iteration produced non-finite or exploding state.
	Diverged
	// Failed: the engine could not run (e.g. a non-PD matrix that could not be repaired).
	Failed
	// Canceled: the context was canceled; the state is partial.
	Canceled
	// Done: a non-iterative method (exact, sampling, a single ADF pass) finished.
	Done
	// Stalled: the convergence measure fell below the tolerance but the
	// state is not a fixed point: updates were skipped (improper cavity,
	// improper or non-finite tilted approximation) in the last sweep, so
	// those factors do not satisfy the moment-matching condition.
	Stalled
)

var statusNames = [...]string{"converged", "iteration_limit", "diverged", "failed", "canceled", "done", "stalled"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Succeeded reports whether a run ended in a state whose numbers answer
// the question asked: Converged, Done, or IterationLimit (the budget the
// user chose ran out; the last convergence measure says how far off the
// state is). Failed, Diverged, Canceled and Stalled did not succeed.
func (s Status) Succeeded() bool {
	return s == Converged || s == Done || s == IterationLimit
}

// HasNumbers reports whether a result with this status may carry
// estimates: Failed and Diverged results carry none (their state is
// missing or non-finite), so presenters print — and JSON null.
func (s Status) HasNumbers() bool {
	return s != Failed && s != Diverged
}

// Stats are the counters every engine reports.
type Stats struct {
	Iterations int           // sweeps (passes over all factors)
	Updates    int           // factor updates performed
	Skipped    int           // updates skipped (e.g. non-positive cavity variance)
	Runtime    time.Duration // wall time of the run
	// Adapted are the changes of the damping step that Iterate made
	// (adapt.go); the result carries a warning naming them.
	Adapted []Adaptation
}

// Settings are the options shared by iterative engines.
type Settings struct {
	Divergence Divergence
	Schedule   Schedule
	Seed       uint64  // for Random schedules and samplers
	Damping    float64 // step size on messages in natural parameters; 1 = undamped
	// FixedDamping keeps the step at Damping for the whole run (the infer
	// option adapt_damping = false); by default Iterate halves it while the
	// residual stops decreasing (adapt.go).
	FixedDamping bool
	Tol          float64 // convergence tolerance
	MaxIter      int     // maximum number of sweeps
	// Progress, when non-nil, is called after every sweep with the sweep
	// number and the convergence measure.
	Progress func(iter int, r float64)
}
