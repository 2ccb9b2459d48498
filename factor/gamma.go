package factor

import (
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var gammaBuiltin = stdlib.Builtin{Name: "gamma", Kind: stdlib.Distribution, Domains: realDomain, Prior: true,
	Params: []stdlib.Param{stdlib.Required("shape", stdlib.NumberT, "shape a > 0"),
		stdlib.Required("rate", stdlib.NumericT, "rate b > 0, or a gamma latent (a hierarchical rate)")},
	Doc: "Gamma prior p(x) = b^a x^(a−1) e^(−b x) / Γ(a) on a positive x (shape a, rate b; mean a/b): the conjugate prior of a precision and of a poisson rate"}

// Gamma is the prior Gamma(x; a, b) = bᵃ x^{a−1} e^{−bx}/Γ(a) on a
// variable of the Gamma family (shape a, rate b). Edges: x (the Gamma
// variable), shape (data, > 0), rate (data > 0, or a Gamma variable: a
// hierarchical rate, to which the factor is conjugate as well). In the
// natural parameters (log x, x) of x the factor is (a − 1, −b); in those of
// the rate, (a, −x).
type Gamma struct{}

func (Gamma) Name() string             { return "gamma" }
func (Gamma) Role() Role               { return Prior }
func (Gamma) Builtin() *stdlib.Builtin { return &gammaBuiltin }

func (Gamma) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "x", Required: true, Families: []graph.Family{graph.Gamma}, Doc: "the Gamma variable"},
		{Name: "shape", Required: true, Doc: "shape (data)"},
		{Name: "rate", Required: true, Families: []graph.Family{graph.Gamma}, Doc: "rate (data or a Gamma variable)"}}
}

func (k Gamma) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if err := scalarData("gamma", name, v); err != nil {
			return err
		}
		return positive("gamma", name, v)
	})
}

// LogDensityEdges is log Gamma(x; shape, rate).
func (Gamma) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	return logGamma(scalarEdge(f, vals, "x"), scalarEdge(f, vals, "shape"), scalarEdge(f, vals, "rate"))
}

// logGamma is log Gamma(x; a, b) (shape a, rate b).
func logGamma(x, a, b float64) float64 {
	la, _ := math.Lgamma(a)
	return a*math.Log(b) + (a-1)*math.Log(x) - b*x - la
}
