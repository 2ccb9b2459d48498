package factor

import (
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var invGammaBuiltin = stdlib.Builtin{Name: "inv_gamma", Kind: stdlib.Distribution, Domains: realDomain, Prior: true,
	Params: []stdlib.Param{stdlib.Required("shape", stdlib.NumberT, "shape a > 0"),
		stdlib.Required("scale", stdlib.NumberT, "scale b > 0")},
	Doc: "inverse-Gamma prior p(x) = b^a x^(−a−1) e^(−b/x) / Γ(a) on a positive x (mean b/(a−1) for a > 1): the conjugate prior of a variance"}

// InvGamma is the prior InvGamma(x; a, b) = bᵃ x^{−a−1} e^{−b/x}/Γ(a) on a
// variable of the inverse-Gamma family (1/x is Gamma(a, b)). Edges: x
// (the variable), shape and scale (data, > 0). In the natural parameters
// (log x, 1/x) of x the factor is (−a − 1, −b).
type InvGamma struct{}

func (InvGamma) Name() string             { return "inv_gamma" }
func (InvGamma) Role() Role               { return Prior }
func (InvGamma) Builtin() *stdlib.Builtin { return &invGammaBuiltin }

func (InvGamma) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "x", Required: true, Families: []graph.Family{graph.InvGamma}, Doc: "the inverse-Gamma variable"},
		{Name: "shape", Required: true, Doc: "shape (data)"}, {Name: "scale", Required: true, Doc: "scale (data)"}}
}

func (k InvGamma) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if err := scalarData("inv_gamma", name, v); err != nil {
			return err
		}
		return positive("inv_gamma", name, v)
	})
}

// LogDensityEdges is log InvGamma(x; shape, scale).
func (InvGamma) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	x, a, b := scalarEdge(f, vals, "x"), scalarEdge(f, vals, "shape"), scalarEdge(f, vals, "scale")
	la, _ := math.Lgamma(a)
	return a*math.Log(b) - (a+1)*math.Log(x) - b/x - la
}
