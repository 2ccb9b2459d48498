package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var dirichletBuiltin = stdlib.Builtin{Name: "dirichlet", Kind: stdlib.Distribution, Domains: realDomain, Prior: true,
	Params: []stdlib.Param{stdlib.Required("alpha", stdlib.VectorT, "concentrations α_1 … α_K > 0 (K = the latent's last dimension)")},
	Doc:    "Dirichlet prior p(w) = Γ(Σα) / ΠΓ(α_k) · Π w_k^(α_k−1) on a probability vector w: real[K] (each row of a matrix latent): the conjugate prior of categorical"}

// Dirichlet is the prior Dir(w; α) = Γ(α₀)/Πₖ Γ(αₖ) · Πₖ wₖ^{αₖ−1}, α₀ = Σ αₖ,
// on a variable of the Dirichlet family (a point of the simplex; a row of
// a matrix latent is one variable). Edges: x (the variable), alpha (data,
// K entries > 0). In the natural parameters (log w₁ … log w_K) the factor
// is α − 1.
type Dirichlet struct{}

func (Dirichlet) Name() string             { return "dirichlet" }
func (Dirichlet) Role() Role               { return Prior }
func (Dirichlet) Builtin() *stdlib.Builtin { return &dirichletBuiltin }

func (Dirichlet) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "x", Required: true, Families: []graph.Family{graph.Dirichlet}, Doc: "the Dirichlet variable", EP: ruleConjugate, VMP: ruleConjugate},
		{Name: "alpha", Required: true, Doc: "concentrations (data)"}}
}

// MaxDim bounds the number of components of a Dirichlet or a categorical
// variable: its messages and tables are allocated per component.
const MaxDim = 1 << 16

func (k Dirichlet) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if len(v) < 2 || len(v) > MaxDim {
			return &EdgeError{Edge: name, Elem: -1, Branch: -1, Msg: fmt.Sprintf("dirichlet: `%s` needs 2 … %d entries, got %d", name, MaxDim, len(v))}
		}
		return positive("dirichlet", name, v)
	})
}

// LogDensityEdges is log Dir(x; alpha).
func (Dirichlet) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	x, _ := edgeValue(f, vals, "x")
	alpha, _ := edgeValue(f, vals, "alpha")
	return logDirichlet(x, alpha)
}

func logDirichlet(x, alpha []float64) float64 {
	var s, a0 float64
	for k, a := range alpha {
		la, _ := math.Lgamma(a)
		s += (a-1)*math.Log(x[k]) - la
		a0 += a
	}
	l0, _ := math.Lgamma(a0)
	return s + l0
}

// expForm: in x the factor is exp(log Γ(α₀) − Σ log Γ(αₖ) + (α − 1)·log x).
func (Dirichlet) expForm(y []float64, in []In) (int, []float64, float64, error) {
	alpha := dataOf(in, "alpha")
	c := -logDirichletNorm(alpha)
	e, err := latentEdge(in)
	if e < 0 || err != nil {
		return -1, nil, logDirichlet(dataOf(in, "x"), alpha), err
	}
	if len(in[e].Nat) != len(alpha) {
		return 0, nil, 0, fmt.Errorf("dirichlet: alpha has %d entries, the variable %d components", len(alpha), len(in[e].Nat))
	}
	zeta := make([]float64, len(alpha))
	for k, a := range alpha {
		zeta[k] = a - 1
	}
	return e, zeta, c, nil
}

// logDirichletNorm is Σ log Γ(αₖ) − log Γ(α₀).
func logDirichletNorm(alpha []float64) float64 {
	var s, a0 float64
	for _, a := range alpha {
		la, _ := math.Lgamma(a)
		s += la
		a0 += a
	}
	l0, _ := math.Lgamma(a0)
	return s - l0
}

// EP is exact: the message to x is Dir(alpha) itself.
func (k Dirichlet) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return conjugateEP(k, y, in, u, out)
}

// VMP: the message to x is alpha − 1.
func (k Dirichlet) VMP(y []float64, in []In, out []Out) (float64, error) {
	return conjugateVMP(k, y, in, out)
}
