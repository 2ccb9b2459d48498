package fg

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fg-infer/fg/expect"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/session"
)

// Results are the outcomes of a model's infer lines, one Result per label,
// in the order they ran.
type Results struct {
	s    *session.Results
	list []*Result
}

func newResults(s *session.Results) *Results {
	r := &Results{s: s}
	for _, x := range s.List {
		r.list = append(r.list, &Result{r: x})
	}
	return r
}

// Get returns the result labelled label. When no infer line has that label
// it returns a failed result whose Message names the labels that exist, so
// that chained accessors (res.Get("ep").Mean("w", 0)) return that error
// instead of panicking on nil; Lookup tells the two cases apart.
func (r *Results) Get(label string) *Result {
	if x, ok := r.Lookup(label); ok {
		return x
	}
	return &Result{r: &infer.Result{Label: label, Status: infer.Failed,
		Message: fmt.Sprintf("no infer line labelled %q (labels: %s)", label, strings.Join(r.Labels(), ", "))}}
}

// Lookup returns the result labelled label and whether an infer line with
// that label ran.
func (r *Results) Lookup(label string) (*Result, bool) {
	for _, x := range r.list {
		if x.r.Label == label {
			return x, true
		}
	}
	return nil, false
}

// All returns the results in the order they ran.
func (r *Results) All() []*Result { return append([]*Result(nil), r.list...) }

// Labels lists the result labels in order.
func (r *Results) Labels() []string { return r.s.Labels() }

// Expects evaluates the model's expect statements against the results.
func (r *Results) Expects() []ExpectResult { return r.s.Expects() }

// ExpectResult is the outcome of one `expect` statement evaluated against
// one result.
type ExpectResult = expect.Result

// Failed reports whether any expect result failed (a skipped one does not).
func Failed(es []ExpectResult) bool { return expect.Failed(es) }

// Status says how an infer line ended.
type Status string

// The statuses of a result (docs/cli.md, "Reading the output").
const (
	StatusConverged      Status = "converged"       // the convergence measure fell below tol
	StatusIterationLimit Status = "iteration_limit" // max_iter sweeps ran first
	StatusDiverged       Status = "diverged"        // non-finite or exploding state
	StatusFailed         Status = "failed"          // the method could not run; no numbers
	StatusCanceled       Status = "canceled"        // the context was canceled; partial state
	StatusDone           Status = "done"            // a non-iterative method (exact, mcmc) finished
	StatusStalled        Status = "stalled"         // below tol, but updates were skipped in the last sweep
)

// OK reports whether the status is converged or done.
func (s Status) OK() bool { return s == StatusConverged || s == StatusDone }

// Succeeded reports whether every method succeeded: converged, done or
// iteration_limit (the sweep budget ran out; the numbers are reported).
// fg run exits 3 when it is false. Warnings do not count: read each
// result's Warnings.
func (r *Results) Succeeded() bool { return r.s.Succeeded() }

// Warning is a run-time caveat of a result (docs/json.md, "warnings"):
// skipped updates, MCMC diagnostics outside Stan's thresholds, a
// quadrature error above tol, a degenerate setting replaced by its limit.
// Pos is the infer line's file:line:col.
type Warning struct{ Pos, Message string }

func (w Warning) String() string { return infer.Warning{Pos: w.Pos, Message: w.Message}.String() }

// Warnings lists the result's run-time warnings (nil when there are none).
func (r *Result) Warnings() []Warning {
	var out []Warning
	for _, w := range r.r.Warnings {
		out = append(out, Warning{Pos: w.Pos, Message: w.Message})
	}
	return out
}

// Result is the outcome of one infer line. Latent variables are read by
// name and element: i is the row-major index of the element (0 for a
// scalar latent; Shape gives the dimensions), as `w[i]` in the results
// table.
type Result struct {
	r *infer.Result
	// byName indexes the latents by name once a result of many is looked
	// up (indexedLatents): a libDAI file has 10⁶, and a scan per Prob
	// would make reading them all quadratic.
	indexOnce sync.Once
	byName    map[string]int
}

// indexedLatents is the number of latents from which lookups by name go
// through an index.
const indexedLatents = 64

// Label is the infer line's label (docs/language.md, "Labels").
func (r *Result) Label() string { return r.r.Label }

// Method is the inference method: ep, bp, exact or mcmc.
func (r *Result) Method() string { return r.r.Method }

// Divergence is the divergence as written, e.g. "alpha(0.8)"; "" for
// methods without one (exact, mcmc).
func (r *Result) Divergence() string {
	if r.r.Divergence == nil {
		return ""
	}
	return r.r.Divergence.String()
}

// Status says how the method ended; Message gives the reason when it is not OK.
func (r *Result) Status() Status { return Status(r.r.Status.String()) }

// Message is the reason for a status other than converged or done.
func (r *Result) Message() string { return r.r.Message }

// Iterations is the number of sweeps (draws for mcmc).
func (r *Result) Iterations() int { return r.r.Iterations }

// Runtime is the wall time of the method.
func (r *Result) Runtime() time.Duration { return r.r.Runtime }

// LogZ is the log evidence log Z (log Z_EP, the Bethe free energy, the
// exact log partition function); ok is false when the method defines none
// or did not finish.
func (r *Result) LogZ() (logZ float64, ok bool) { return r.r.LogEvidence, r.r.HasEvidence }

// ELBO reports whether LogZ is an evidence lower bound (variational
// message passing, divergence alpha(0)) rather than log Z.
func (r *Result) ELBO() bool { return r.r.ELBO }

// Dist is the marginal of element i of the continuous latent name with its
// family's parameters, e.g. "Beta(9, 5)" or "Gamma(6, 3.96789)"; "" for a
// Gaussian latent (its Mean and Variance say everything).
func (r *Result) Dist(name string, i int) (string, error) {
	v, err := r.continuous(name)
	if err != nil {
		return "", err
	}
	if _, err := element(v, v.Mean, i); err != nil {
		return "", err
	}
	if i >= len(v.Dist) {
		return "", nil
	}
	return v.Dist[i], nil
}

// Variables lists the names of the latent variables the result summarises.
func (r *Result) Variables() []string {
	if r.r.Variables.Len() == 0 {
		return nil
	}
	return r.r.Variables.Names()
}

// Shape is the shape of latent name (nil for a scalar).
func (r *Result) Shape(name string) ([]int, error) {
	v, err := r.variable(name)
	if err != nil {
		return nil, err
	}
	return append([]int(nil), v.Shape...), nil
}

// Mean is the posterior mean of element i of the continuous latent name.
func (r *Result) Mean(name string, i int) (float64, error) {
	v, err := r.continuous(name)
	if err != nil {
		return 0, err
	}
	return element(v, v.Mean, i)
}

// Variance is the posterior marginal variance of element i of the
// continuous latent name.
func (r *Result) Variance(name string, i int) (float64, error) {
	v, err := r.continuous(name)
	if err != nil {
		return 0, err
	}
	return element(v, v.Var, i)
}

// States lists the state labels of the discrete latent name, e.g. -1, +1.
func (r *Result) States(name string) ([]string, error) {
	v, err := r.discrete(name)
	if err != nil {
		return nil, err
	}
	return append([]string(nil), v.States...), nil
}

// Prob is the posterior marginal probability that element i of the
// discrete latent name is in state (a state label as States lists it, or
// the same number written differently: "1" for "+1").
func (r *Result) Prob(name string, i int, state string) (float64, error) {
	v, err := r.discrete(name)
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= len(v.Probs) {
		return 0, fmt.Errorf("%s: %s has %d elements; index %d out of range", r.r.Label, name, len(v.Probs), i)
	}
	s, err := stateIndex(v, state)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", r.r.Label, err)
	}
	return v.Probs[i][s], nil
}

// Prediction is element i of the `predict` statement name: p(y = +1) where
// the likelihood defines it, else the expected count (poisson_log; poisson
// and binomial in predictive(DIST(args))), else the predictive mean (of the
// latent, or of a new observation y* for predictive(DIST(args))).
func (r *Result) Prediction(name string, i int) (float64, error) {
	p, err := r.prediction(name)
	if err != nil {
		return 0, err
	}
	xs := p.Point()
	if i < 0 || i >= len(xs) {
		return 0, fmt.Errorf("%s: prediction %s has %d values; index %d out of range", r.r.Label, name, len(xs), i)
	}
	return xs[i], nil
}

// PredictiveLatent is element i of the `predict` statement name as the
// Gaussian predictive distribution of its latent, f* ~ N(mean, variance)
// (for a likelihood on a projection, the projection's predictive; for
// predictive(DIST(args)), the latent the distribution is placed on).
// Prediction gives the point value read from it (p(y = +1), E[y*] or the
// mean).
func (r *Result) PredictiveLatent(name string, i int) (mean, variance float64, err error) {
	p, err := r.prediction(name)
	if err != nil {
		return 0, 0, err
	}
	if i < 0 || i >= len(p.Mean) || i >= len(p.Var) {
		return 0, 0, fmt.Errorf("%s: prediction %s has %d values; index %d out of range", r.r.Label, name, len(p.Mean), i)
	}
	return p.Mean[i], p.Var[i], nil
}

// prediction finds the `predict` statement name.
func (r *Result) prediction(name string) (*infer.Prediction, error) {
	for k := range r.r.Predictions {
		if r.r.Predictions[k].Name == name {
			return &r.r.Predictions[k], nil
		}
	}
	return nil, fmt.Errorf("%s: no prediction %s", r.r.Label, name)
}

// Relaxation is the relaxation weight b of the factor labelled factor
// (e.g. "step(y[4])") under a relaxed divergence; 0 when it was not relaxed.
func (r *Result) Relaxation(factor string) float64 {
	for _, x := range r.r.Relaxation {
		if x.Factor == factor {
			return x.B
		}
	}
	return 0
}

// Learned is the value a `learn` statement found for param name.
func (r *Result) Learned(name string) (float64, bool) {
	for _, l := range r.r.Learned {
		if l.Name == name {
			return l.Value, true
		}
	}
	return 0, false
}

// variable finds latent name; a missing one is an error that says why (the
// method failed) or lists what exists.
func (r *Result) variable(name string) (*infer.Variable, error) {
	if i := r.latentIndex(name); i >= 0 {
		v := r.r.Variables.At(i)
		return &v, nil
	}
	if st := r.Status(); !st.OK() && st != StatusIterationLimit {
		return nil, fmt.Errorf("%s: %s (%s): no posterior for %s", r.r.Label, st, r.r.Message, name)
	}
	return nil, fmt.Errorf("%s: no latent %s (latents: %s)", r.r.Label, name, r.r.Variables.NameList())
}

func (r *Result) continuous(name string) (*infer.Variable, error) {
	v, err := r.variable(name)
	if err == nil && v.Discrete {
		err = fmt.Errorf("%s: %s is discrete; use Prob", r.r.Label, name)
	}
	return v, err
}

func (r *Result) discrete(name string) (*infer.Variable, error) {
	v, err := r.variable(name)
	if err == nil && !v.Discrete {
		err = fmt.Errorf("%s: %s is continuous; use Mean or Variance", r.r.Label, name)
	}
	return v, err
}

func element(v *infer.Variable, xs []float64, i int) (float64, error) {
	if i < 0 || i >= len(xs) {
		return 0, fmt.Errorf("%s has %d elements; index %d out of range", v.Name, len(xs), i)
	}
	return xs[i], nil
}

// stateIndex finds state among v's state labels, by text or by number.
func stateIndex(v *infer.Variable, state string) (int, error) {
	want, numErr := strconv.ParseFloat(state, 64)
	for i, lab := range v.States {
		if lab == state {
			return i, nil
		}
		if f, err := strconv.ParseFloat(lab, 64); err == nil && numErr == nil && f == want {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%q is not a state of %s (states: %s)", state, v.Name, strings.Join(v.States, ", "))
}

// latentIndex is the index of the first latent called name, or −1.
func (r *Result) latentIndex(name string) int {
	vs := r.r.Variables
	if vs.Len() < indexedLatents {
		return vs.Index(name)
	}
	r.indexOnce.Do(func() {
		r.byName = make(map[string]int, vs.Len())
		for i := vs.Len() - 1; i >= 0; i-- { // the first of equal names wins
			r.byName[vs.Name(i)] = i
		}
	})
	if i, ok := r.byName[name]; ok {
		return i
	}
	return -1
}
