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
	return []EdgeSpec{{Name: "x", Required: true, Families: []graph.Family{graph.InvGamma}, Doc: "the inverse-Gamma variable", EP: ruleConjugate, VMP: ruleConjugate},
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

// expForm: in x the factor is exp(a log b − log Γ(a) + (−a−1, −b)·(log x, 1/x)).
func (InvGamma) expForm(y []float64, in []In) (int, []float64, float64, error) {
	a, b := dataOf(in, "shape")[0], dataOf(in, "scale")[0]
	la, _ := math.Lgamma(a)
	c := a*math.Log(b) - la
	e, err := latentEdge(in)
	if e < 0 || err != nil {
		x := dataOf(in, "x")[0]
		return -1, nil, c - (a+1)*math.Log(x) - b/x, err
	}
	return e, []float64{-a - 1, -b}, c, nil
}

// EP is exact: the message to x is InvGamma(shape, scale) itself.
func (k InvGamma) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return conjugateEP(k, y, in, u, out)
}

// VMP: the message to x is (−shape − 1, −scale).
func (k InvGamma) VMP(y []float64, in []In, out []Out) (float64, error) {
	return conjugateVMP(k, y, in, out)
}
