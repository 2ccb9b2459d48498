package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var binomialBuiltin = stdlib.Builtin{Name: "binomial", Kind: stdlib.Distribution, Domains: []graph.Domain{graph.Int, graph.Real}, Observed: true,
	Params: []stdlib.Param{stdlib.Required("n", stdlib.NumericT, "number of trials: an integer ≥ 0"),
		stdlib.Required("p", stdlib.LatentT, "success probability: a beta latent or a number in [0, 1]")},
	Doc: "binomial likelihood p(y | n, p) = C(n, y) p^y (1−p)^(n−y) of a count y ∈ {0, …, n}"}

// Binomial is the likelihood C(n, y) p^y (1−p)^{n−y} of a count
// y ∈ {0, …, n}. Edges: n (data, an integer ≥ 0), p (data in [0, 1] or a
// Beta variable). In the natural parameters (log p, log(1−p)) of a Beta
// variable the factor is (y, n − y): conjugate.
type Binomial struct{}

func (Binomial) Name() string             { return "binomial" }
func (Binomial) Role() Role               { return Likelihood }
func (Binomial) Builtin() *stdlib.Builtin { return &binomialBuiltin }

func (Binomial) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "n", Required: true, Doc: "number of trials (data)"},
		{Name: "p", Required: true, Families: []graph.Family{graph.Beta}, Doc: "success probability (data or a Beta variable)", EP: ruleConjugate, VMP: ruleConjugate}}
}

func (k Binomial) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	if err := observation("binomial", f); err != nil {
		return err
	}
	n := math.NaN()
	if e, ok := f.Edge("n"); ok && e.IsData() && len(e.Value) == 1 {
		n = e.Value[0]
		if !(n >= 0) || n != math.Floor(n) || n > maxCount {
			return &EdgeError{Edge: "n", Elem: -1, Branch: -1, Msg: fmt.Sprintf("binomial: `n` must be an integer ≥ 0, got %g", n)}
		}
	}
	if err := checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if err := scalarData("binomial", name, v); err != nil {
			return err
		}
		if name == "p" {
			return checkProb("binomial", name, v)
		}
		return nil
	}); err != nil {
		return err
	}
	return checkCount("binomial", f.Y[0], n)
}

// LogDensityEdges is log C(n, y) + y log p + (n − y) log(1 − p).
func (Binomial) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	y, n, p := f.Y[0], scalarEdge(f, vals, "n"), scalarEdge(f, vals, "p")
	return logChoose(n, y) + xlogy(y, p) + xlogy(n-y, 1-p)
}

// logChoose is log C(n, k).
func logChoose(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// expForm: in p the factor is exp(log C(n, y) + (y, n − y)·(log p, log(1 − p))).
func (Binomial) expForm(y []float64, in []In) (int, []float64, float64, error) {
	n := dataOf(in, "n")
	if n == nil {
		return 0, nil, 0, fmt.Errorf("binomial: n must be data")
	}
	c := logChoose(n[0], y[0])
	e, err := latentEdge(in)
	if e < 0 || err != nil {
		p := dataOf(in, "p")[0]
		return -1, nil, c + xlogy(y[0], p) + xlogy(n[0]-y[0], 1-p), err
	}
	return e, []float64{y[0], n[0] - y[0]}, c, nil
}

// EP is exact on a Beta p: Beta(a, b) → Beta(a + uy, b + u(n − y)).
func (k Binomial) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return conjugateEP(k, y, in, u, out)
}

// VMP: the message to p is (y, n − y).
func (k Binomial) VMP(y []float64, in []In, out []Out) (float64, error) {
	return conjugateVMP(k, y, in, out)
}
