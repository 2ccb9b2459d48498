package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var poissonLogBuiltin = stdlib.Builtin{Name: "poisson_log", Kind: stdlib.Distribution,
	Domains: []graph.Domain{graph.Int, graph.Real}, Observed: true,
	Params: []stdlib.Param{stdlib.Required("a", stdlib.LatentT, "latent projection: the log rate")},
	Doc:    "Poisson likelihood with log rate a (Stan's poisson_log): p(y|a) = exp(y·a − e^a)/y! for a count y ∈ {0, 1, 2, …}"}

// PoissonLog is the count likelihood with rate e^f (Stan's poisson_log),
//
//	log p(y | f) = y f − e^f − log y!,   g = y − e^f,   h = −e^f,
//
// for y ∈ {0, 1, 2, …}. It is log-concave, so EP site precisions stay
// positive; the tilted moments have no closed form and come from
// quadTilted (composite Gauss–Legendre around the cavity and the tilted
// mode). The predictive mean of the count is E[e^f] = e^{m + v/2}.
type PoissonLog struct{}

func (PoissonLog) Name() string               { return "poisson_log" }
func (PoissonLog) Role() Role                 { return Likelihood }
func (PoissonLog) Builtin() *stdlib.Builtin   { return &poissonLogBuiltin }
func (PoissonLog) Params() map[string]float64 { return nil }
func (PoissonLog) Projection() string         { return "a" }
func (PoissonLog) Support() string            { return "a count (0, 1, 2, …)" }

// New is the poisson_log likelihood; it has no parameters.
func (PoissonLog) New(map[string]float64) (Site, error) { return PoissonLog{}, nil }

// Quality: power and relaxed EP on quadrature moments, and evidence
// maximisation with count sites, have no reference yet.
func (PoissonLog) Quality(c Column) Quality {
	if c.PowerOrRelaxed() || c == learn {
		return Experimental
	}
	return Stable
}

// maxCount bounds a count so that y f and log y! stay exact in float64.
const maxCount = 1 << 52

func (PoissonLog) CheckY(y float64) error {
	if !(y >= 0) || y != math.Floor(y) || y > maxCount {
		return fmt.Errorf("count %g, want 0, 1, 2, …", y)
	}
	return nil
}

func (PoissonLog) LogLik(y, f float64) (v, g, h float64) {
	lf, _ := math.Lgamma(y + 1)
	return poissonLogLik(y, lf, f)
}

// poissonLogLik is LogLik with log y! = lf computed by the caller, once
// per count rather than once per quadrature node.
func poissonLogLik(y, lf, f float64) (v, g, h float64) {
	e := math.Exp(f)
	if y == 0 {
		return -e, -e, -e // 0·f is 0 even where f = −Inf
	}
	return y*f - e - lf, y - e, -e
}

func (l PoissonLog) logp(y float64) func(f float64) (float64, float64, float64) {
	lf, _ := math.Lgamma(y + 1)
	return func(f float64) (float64, float64, float64) { return poissonLogLik(y, lf, f) }
}

func (l PoissonLog) Tilted(y, m, v, u float64) (logZ, d1, d2 float64) {
	logZ, d1, d2, _ = quadTilted(l.logp(y), m, v, u)
	return logZ, d1, d2
}

func (l PoissonLog) ExpLogLik(y, m, v float64) float64 {
	_, _, _, e := quadTilted(l.logp(y), m, v, 1)
	return e
}

// Prob: a count likelihood has no class probability.
func (PoissonLog) Prob(m, v float64) (float64, bool) { return 0, false }

// MeanObs is the expected count E[e^f] = e^{m + v/2}.
func (PoissonLog) MeanObs(m, v float64) float64 { return math.Exp(m + v/2) }
