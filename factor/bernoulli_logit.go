package factor

import (
	"fmt"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var bernoulliLogitBuiltin = stdlib.Builtin{Name: "bernoulli_logit", Kind: stdlib.Distribution,
	Domains: []graph.Domain{graph.Bool, graph.Int}, Observed: true,
	Params: []stdlib.Param{stdlib.Required("a", stdlib.LatentT, "latent projection: the log-odds of y = 1")},
	Doc:    "Bernoulli likelihood with log-odds a (Stan's bernoulli_logit): p(y = 1|a) = 1/(1 + exp(−a)), log p(y|a) = y·a − log(1 + e^a) for y ∈ {0, 1} (or a bool); logistic on 0/1 labels"}

// BernoulliLogit is the Bernoulli likelihood with log-odds f (Stan's
// bernoulli_logit),
//
//	log p(y | f) = y f − log(1 + e^f),   g = y − σ(f),   h = −σ(f) σ(−f),
//
// for y ∈ {0, 1}. It is the logistic likelihood σ(s f) on the spin
// s = 2y − 1, and its log-density, class probability and point
// probability are Logistic's at that spin (one copy of the maths). Unlike
// Logistic it has a Tilted rule: it is log-concave, so EP site precisions
// stay positive, and its tilted moments come from quadTilted (composite
// Gauss–Legendre around the cavity, the tilted mode and f = 0, where the
// sigmoid bends), as poisson_log's do. An `approx` written on the infer
// line integrates its LogDensity with that scheme instead, exactly as for
// logistic. Every rule is stable: infer/run's TestStableRules checks EP,
// power EP, relaxed EP, exact, mcmc and the prediction against Simpson's
// rule, and the kind's run test checks `learn` against the evidence at
// fixed kernel parameters.
type BernoulliLogit struct{}

func (BernoulliLogit) Name() string               { return "bernoulli_logit" }
func (BernoulliLogit) Role() Role                 { return Likelihood }
func (BernoulliLogit) Builtin() *stdlib.Builtin   { return &bernoulliLogitBuiltin }
func (BernoulliLogit) Params() map[string]float64 { return nil }
func (BernoulliLogit) Projection() string         { return "a" }
func (BernoulliLogit) Support() string            { return "0 or 1 (false or true)" }

// New is the bernoulli_logit likelihood; it has no parameters.
func (BernoulliLogit) New(map[string]float64) (Site, error) { return BernoulliLogit{}, nil }

// CheckY accepts 0 and 1 (false and true).
func (BernoulliLogit) CheckY(y float64) error {
	if y != 0 && y != 1 {
		return fmt.Errorf("observation %g, want 0 or 1 (false or true)", y)
	}
	return nil
}

// spinOf maps an observation y ∈ {0, 1} to Logistic's spin 2y − 1.
func spinOf(y float64) float64 { return 2*y - 1 }

// LogLik is Logistic's at the spin 2y − 1: y f − log(1 + e^f).
func (BernoulliLogit) LogLik(y, f float64) (v, g, h float64) {
	return Logistic{}.LogLik(spinOf(y), f)
}

// LogValueAt is LogLik's value alone, Logistic's at the spin 2y − 1.
func (BernoulliLogit) LogValueAt(y float64) func(f float64) float64 {
	return Logistic{}.LogValueAt(spinOf(y))
}

func (l BernoulliLogit) logp(y float64) func(f float64) (float64, float64, float64) {
	s := spinOf(y)
	return func(f float64) (float64, float64, float64) { return Logistic{}.LogLik(s, f) }
}

// logitWindow is where log σ(±f) bends: its poles at f = ±iπ make
// Gauss–Legendre pieces much wider than 1 around 0 converge slowly (a
// wide cavity's pieces are), so quadTilted also cuts [−12, 12] into
// pieces of width 2.
var logitWindow = window{0, 1}

func (l BernoulliLogit) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	logZ, d1, d2, _ = quadTilted(l.logp(y), m, v, u, logitWindow)
	return logZ, d1, d2
}

func (l BernoulliLogit) ExpLogLik(y, m, v float64) float64 {
	_, _, _, e := quadTilted(l.logp(y), m, v, 1, logitWindow)
	return e
}

// Prob is p(y = 1) = ∫ σ(f) N(f; m, v) df, Logistic's class probability.
func (BernoulliLogit) Prob(m, v float64) (float64, bool) { return Logistic{}.Prob(m, v) }

// ProbAt is σ(f), the probability of y = 1 given f.
func (BernoulliLogit) ProbAt(f float64) float64 { return Logistic{}.ProbAt(f) }
