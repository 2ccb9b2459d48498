package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var bernoulliBuiltin = stdlib.Builtin{Name: "bernoulli", Kind: stdlib.Distribution, Domains: []graph.Domain{graph.Bool, graph.Int}, Observed: true,
	Params: []stdlib.Param{stdlib.Required("p", stdlib.LatentT, "probability of y = 1 (true): a beta latent or a number in [0, 1]")},
	Doc:    "Bernoulli likelihood p(y | p) = p^y (1−p)^(1−y) of a bool (or 0/1) observation y"}

// Bernoulli is the likelihood p^y (1−p)^{1−y} of an observation y ∈ {0, 1}
// (false/true). Edges: p (data in [0, 1] or a Beta variable). In the
// natural parameters (log p, log(1−p)) of a Beta variable the factor is
// (y, 1 − y): conjugate, so EP and VMP are exact on it.
type Bernoulli struct{}

func (Bernoulli) Name() string             { return "bernoulli" }
func (Bernoulli) Role() Role               { return Likelihood }
func (Bernoulli) Builtin() *stdlib.Builtin { return &bernoulliBuiltin }

func (Bernoulli) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "p", Required: true, Families: []graph.Family{graph.Beta}, Doc: "probability of y = 1 (data or a Beta variable)", EP: ruleConjugate, VMP: ruleConjugate}}
}

func (k Bernoulli) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	if err := observation("bernoulli", f); err != nil {
		return err
	}
	if y := f.Y[0]; y != 0 && y != 1 {
		return &EdgeError{Elem: -1, Branch: -1, Msg: fmt.Sprintf("bernoulli: observation %g, want 0 or 1 (false or true)", y)}
	}
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if err := scalarData("bernoulli", name, v); err != nil {
			return err
		}
		return checkProb("bernoulli", name, v)
	})
}

// LogDensityEdges is y log p + (1 − y) log(1 − p).
func (Bernoulli) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	return xlogy(f.Y[0], scalarEdge(f, vals, "p")) + xlogy(1-f.Y[0], 1-scalarEdge(f, vals, "p"))
}

// xlogy is x log y with 0 log 0 = 0.
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

// expForm: in p the factor is exp((y, 1 − y)·(log p, log(1 − p))).
func (Bernoulli) expForm(y []float64, in []In) (int, []float64, float64, error) {
	e, err := latentEdge(in)
	if e < 0 || err != nil {
		p := dataOf(in, "p")[0]
		return -1, nil, xlogy(y[0], p) + xlogy(1-y[0], 1-p), err
	}
	return e, []float64{y[0], 1 - y[0]}, 0, nil
}

// EP is exact on a Beta p: Beta(a, b) → Beta(a + uy, b + u(1 − y)), and
// log Z = log B(a + uy, b + u(1−y)) − log B(a, b).
func (k Bernoulli) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return conjugateEP(k, y, in, u, out)
}

// VMP: the message to p is (y, 1 − y); E log f = y E log p + (1−y) E log(1−p).
func (k Bernoulli) VMP(y []float64, in []In, out []Out) (float64, error) {
	return conjugateVMP(k, y, in, out)
}
