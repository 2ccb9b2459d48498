package factor

import (
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var betaBuiltin = stdlib.Builtin{Name: "beta", Kind: stdlib.Distribution, Domains: realDomain, Prior: true,
	Params: []stdlib.Param{stdlib.Required("a", stdlib.NumberT, "first shape a > 0 (pseudo-count of successes + 1)"),
		stdlib.Required("b", stdlib.NumberT, "second shape b > 0 (pseudo-count of failures + 1)")},
	Doc: "Beta prior p(x) = x^(a−1) (1−x)^(b−1) / B(a, b) on a probability x ∈ (0, 1): the conjugate prior of bernoulli and binomial"}

// Beta is the prior Beta(x; a, b) = x^{a−1}(1−x)^{b−1}/B(a, b) on a
// variable of the Beta family. Edges: x (the Beta variable), a and b
// (data, > 0). In natural parameters (log x, log(1−x)) the factor is
// (a − 1, b − 1), so its EP and VMP messages to x are that, exactly.
type Beta struct{}

func (Beta) Name() string             { return "beta" }
func (Beta) Role() Role               { return Prior }
func (Beta) Builtin() *stdlib.Builtin { return &betaBuiltin }

func (Beta) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "x", Required: true, Families: []graph.Family{graph.Beta}, Doc: "the Beta variable", EP: ruleConjugate, VMP: ruleConjugate},
		{Name: "a", Required: true, Doc: "first shape (data)"}, {Name: "b", Required: true, Doc: "second shape (data)"}}
}

func (k Beta) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if name == "x" {
			return checkProb("beta", name, v)
		}
		if err := scalarData("beta", name, v); err != nil {
			return err
		}
		return positive("beta", name, v)
	})
}

// LogDensityEdges is log Beta(x; a, b).
func (Beta) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	x, a, b := scalarEdge(f, vals, "x"), scalarEdge(f, vals, "a"), scalarEdge(f, vals, "b")
	return (a-1)*math.Log(x) + (b-1)*math.Log1p(-x) - lbeta(a, b)
}

// lbeta is log B(a, b).
func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// checkProb checks that every element of v is in [0, 1].
func checkProb(kind, name string, v []float64) error {
	for i, x := range v {
		if !(x >= 0 && x <= 1) {
			return elemError(kind, name, i, len(v), x, "must be a probability in [0, 1]")
		}
	}
	return nil
}

// expForm: in x the factor is exp(−log B(a, b) + (a−1, b−1)·(log x, log(1−x))).
func (Beta) expForm(y []float64, in []In) (int, []float64, float64, error) {
	a, b := dataOf(in, "a")[0], dataOf(in, "b")[0]
	e, err := latentEdge(in)
	if e < 0 || err != nil {
		x := dataOf(in, "x")[0]
		return -1, nil, (a-1)*math.Log(x) + (b-1)*math.Log1p(-x) - lbeta(a, b), err
	}
	return e, []float64{a - 1, b - 1}, -lbeta(a, b), nil
}

// EP is exact: the message to x is Beta(a, b) itself (conjugateEP).
func (k Beta) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return conjugateEP(k, y, in, u, out)
}

// VMP: the message to x is (a − 1, b − 1).
func (k Beta) VMP(y []float64, in []In, out []Out) (float64, error) {
	return conjugateVMP(k, y, in, out)
}
