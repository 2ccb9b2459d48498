package factor

import (
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var poissonBuiltin = stdlib.Builtin{Name: "poisson", Kind: stdlib.Distribution, Domains: []graph.Domain{graph.Int, graph.Real}, Observed: true,
	Params: []stdlib.Param{stdlib.Required("rate", stdlib.LatentT, "rate λ: a gamma latent or a number > 0")},
	Doc:    "Poisson likelihood p(y | λ) = λ^y e^(−λ) / y! of a count y ∈ {0, 1, 2, …} with rate λ (for a log-rate on a Gaussian latent use poisson_log)"}

// Poisson is the count likelihood λʸ e^{−λ}/y! with rate λ. Edges: rate
// (data > 0 or a Gamma variable). In the natural parameters (log λ, λ) of a
// Gamma variable the factor is (y, −1): conjugate.
type Poisson struct{}

func (Poisson) Name() string             { return "poisson" }
func (Poisson) Role() Role               { return Likelihood }
func (Poisson) Builtin() *stdlib.Builtin { return &poissonBuiltin }

func (Poisson) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "rate", Required: true, Families: []graph.Family{graph.Gamma}, Doc: "rate (data or a Gamma variable)", EP: ruleConjugate, VMP: ruleConjugate}}
}

func (k Poisson) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	if err := observation("poisson", f); err != nil {
		return err
	}
	if err := checkCount("poisson", f.Y[0], maxCount); err != nil {
		return err
	}
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if err := scalarData("poisson", name, v); err != nil {
			return err
		}
		return positive("poisson", name, v)
	})
}

// LogDensityEdges is y log λ − λ − log y!.
func (Poisson) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	y, r := f.Y[0], scalarEdge(f, vals, "rate")
	ly, _ := math.Lgamma(y + 1)
	return xlogy(y, r) - r - ly
}

// expForm: in the rate the factor is exp(−log y! + (y, −1)·(log λ, λ)).
func (Poisson) expForm(y []float64, in []In) (int, []float64, float64, error) {
	ly, _ := math.Lgamma(y[0] + 1)
	e, err := latentEdge(in)
	if e < 0 || err != nil {
		r := dataOf(in, "rate")[0]
		return -1, nil, xlogy(y[0], r) - r - ly, err
	}
	return e, []float64{y[0], -1}, -ly, nil
}

// EP is exact on a Gamma rate: Gamma(a, b) → Gamma(a + uy, b + u).
func (k Poisson) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return conjugateEP(k, y, in, u, out)
}

// VMP: the message to the rate is (y, −1).
func (k Poisson) VMP(y []float64, in []In, out []Out) (float64, error) {
	return conjugateVMP(k, y, in, out)
}
