package infer

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Result is the engine-neutral outcome of one infer line: what the CLI, the
// REPL, the Go API and `expect` statements read. Arrays of a variable are
// flattened row-major over its Shape.
type Result struct {
	Method     string            // "ep", "bp", "exact", "mcmc", ...
	Label      string            // unique column name in a comparison, e.g. "ep relaxed_kl(c = 20)"
	Divergence Divergence        // nil where the method has none (exact, mcmc)
	Options    map[string]string // the infer line's options as written, for reporting
	Status     Status
	Stats
	// LogEvidence is log Z (log Z_EP, the Bethe free energy, the exact log
	// partition function, ...). HasEvidence is false when the method defines
	// none; LogEvidence is then 0 and must not be reported.
	LogEvidence float64
	HasEvidence bool
	// ELBO marks LogEvidence as an evidence lower bound (variational
	// message passing, divergence alpha(0)), not log Z.
	ELBO bool
	// Trace is the convergence measure after each sweep, e.g.
	// R(iter) = ‖m_iter − m_iter−1‖₂ for EP, the largest belief change for BP.
	Trace       []float64
	Variables   Variables    // one per latent, in the model's order
	Relaxation  []Relaxation // relaxed divergences: factors with b ≠ 0
	Predictions []Prediction
	Learned     []Learned // hyperparameters learned by a `learn` statement
	Errors      *Errors   // approximation error against the model's gold standard, if any
	Message     string    // human-readable reason for a non-converged status
	// Warnings are run-time caveats on the numbers (see Warning); a result
	// can be converged or done and still carry warnings.
	Warnings []Warning
}

// Warning is a run-time caveat of a result: the numbers are reported, but
// they should be read with it in mind — updates skipped during the run, a
// sampler whose split R-hat exceeds 1.01 or whose bulk ESS is below 400
// (Stan's thresholds), a quadrature error estimate above the tolerance, a
// degenerate setting replaced by its limit. Pos is the file:line:col of the
// infer line that produced it (empty when unknown). Compile-time warnings
// of a model are shown the same way: "pos: warning: message".
type Warning struct {
	Pos     string
	Message string
}

func (w Warning) String() string {
	if w.Pos == "" {
		return "warning: " + w.Message
	}
	return w.Pos + ": warning: " + w.Message
}

// Warn appends a warning at pos.
func (r *Result) Warn(pos, format string, args ...any) {
	r.Warnings = append(r.Warnings, Warning{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// ClearNumbers removes every estimate from a result whose status carries
// none (Status.HasNumbers): marginals, evidence, relaxation weights,
// predictions, learned values and error columns. Counters, the trace and
// the message stay: they say what happened.
func (r *Result) ClearNumbers() {
	if r.Status.HasNumbers() {
		return
	}
	r.Variables, r.Relaxation, r.Predictions, r.Learned, r.Errors = Variables{}, nil, nil, nil, nil
	r.LogEvidence, r.HasEvidence = 0, false
}

// Variable is the posterior summary of one latent variable.
type Variable struct {
	Name     string
	Shape    []int
	Discrete bool
	// Streamed marks the weights of a libsvm plate, fitted by streaming EP
	// (infer/stream): the model a libsvm run is for, written by
	// `fg run --weights FILE`.
	Streamed bool
	// Continuous variables: marginal means and variances per element.
	Mean, Var []float64
	// Family is the exponential family of the elements' marginals when it
	// is not the Gaussian ("gamma", "inv_gamma", "beta", "dirichlet"; empty
	// otherwise), and Dist each element's marginal with its parameters,
	// e.g. "Beta(10, 6)" (a Dirichlet row's for each of its components).
	Family string
	Dist   []string
	// Discrete variables: state labels (e.g. "-1", "+1") and per element the
	// marginal probability of each state.
	States []string
	Probs  [][]float64
	// Sampling methods: Monte Carlo standard errors, effective sample size
	// and split R-hat per element (nil otherwise).
	MeanSE, VarSE []float64
	ProbsSE       [][]float64
	ESS, RHat     []float64
}

// Relaxation is the relaxation weight b of one factor under a relaxed divergence.
type Relaxation struct {
	Factor string // the factor's name, e.g. "step(y[4])"
	Pos    string // file:line:col of the statement that produced it
	B      float64
}

// Prediction holds a `predict` quantity at new inputs.
type Prediction struct {
	Name  string
	Shape []int
	Mean  []float64  // predictive latent mean
	Var   []float64  // predictive latent variance
	Prob  []float64  // p(y = +1) (spin labels) or p(y = 1) (0/1 labels) where the likelihood defines it (nil otherwise)
	Event string     // the event Prob is the probability of: "y = +1" or "y = 1" (factor.ProbEvent), "" without Prob
	MeanY []float64  // E[y*] for a count likelihood (poisson_log: the expected count), nil otherwise
	Test  *TestScore // scores against the labels of a test file (fg run --test), nil otherwise
}

// Point is the prediction's point value per element: p(y = +1) where the
// likelihood defines it, else the expected observation E[y*] (counts),
// else the predictive latent mean.
func (p *Prediction) Point() []float64 {
	switch {
	case p.Prob != nil:
		return p.Prob
	case p.MeanY != nil:
		return p.MeanY
	}
	return p.Mean
}

// Learned is a hyperparameter value found by evidence maximisation.
// Warning, when not empty, says why Value is not a maximum of the
// evidence (the optimiser made no progress or stopped away from a
// stationary point); Pos is the param's place in the learn statement.
type Learned struct {
	Name    string
	Initial float64
	Value   float64
	Pos     string
	Warning string
}

// Errors measures a result against the gold standard of the same model
// (a method labelled exact or mcmc). A field is meaningful only if its Has flag is set.
type Errors struct {
	Reference string // label of the gold-standard result
	// ReferenceWarnings is the number of warnings the gold standard carries
	// (e.g. MCMC below Stan's R-hat/ESS thresholds): presenters say so next
	// to the error columns it feeds.
	ReferenceWarnings int
	MeanMAE, VarMAE   float64 // mean absolute error of marginal means / variances
	ProbMAE           float64 // mean absolute error of marginal probabilities
	LogZAbs           float64 // |log Z − log Z_ref|
	HasMean, HasVar   bool
	HasProb, HasLogZ  bool
}

// TestScore scores a class-probability prediction against observed labels
// y ∈ {−1, +1} or {0, 1} (y > 0 is the positive class, p(y = +1) or
// p(y = 1)): the error rate of the decision p > ½ and the mean log
// predictive probability (1/N) Σ log p(y_i | x_i).
type TestScore struct {
	N           int
	ErrorRate   float64
	MeanLogProb float64
}

// Score returns the prediction's TestScore against labels y, or nil when
// the prediction has no class probabilities or y has another length.
func (p *Prediction) Score(y []float64) *TestScore {
	if p.Prob == nil || len(p.Prob) != len(y) || len(y) == 0 {
		return nil
	}
	s := &TestScore{N: len(y)}
	for i, pp := range p.Prob {
		q := pp
		if !(y[i] > 0) {
			q = 1 - pp
		}
		if q < 0.5 || (q == 0.5 && y[i] > 0) {
			s.ErrorRate++
		}
		s.MeanLogProb += math.Log(q)
	}
	s.ErrorRate /= float64(len(y))
	s.MeanLogProb /= float64(len(y))
	return s
}

// ElementName renders element i (row-major) of an array with the given
// shape as name[i, j], or name for a scalar: the names of the table, CSV,
// plots and warnings.
func ElementName(name string, shape []int, i int) string {
	if len(shape) == 0 {
		return name
	}
	idx := make([]string, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] <= 0 {
			idx[k] = "?"
			continue
		}
		idx[k] = strconv.Itoa(i % shape[k])
		i /= shape[k]
	}
	return name + "[" + strings.Join(idx, ", ") + "]"
}

// SkipReasons renders counts of skipped updates by reason for a message,
// sorted by reason: "cavity: 3, non-finite: 1".
func SkipReasons(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}
