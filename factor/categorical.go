package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var categoricalBuiltin = stdlib.Builtin{Name: "categorical", Kind: stdlib.Distribution, Domains: []graph.Domain{graph.Cat}, Prior: true,
	Params: []stdlib.Param{stdlib.Required("p", stdlib.VectorT, "state probabilities p_0 … p_{K−1} of a cat(K) latent: non-negative, summing to one")},
	Doc:    "categorical prior p(z = k) = p_k on each element of a cat(K) latent: a unary table on discrete models; the selector of gated factors such as y[i] ~ normal(mu[z[i]], 1)"}

// Categorical is the prior p(z = k) = P[k] on every element of a cat(K)
// latent. On a discrete model it is a unary table per element (Tabler); a
// discrete latent with this prior may index the parameters of a likelihood
// (y ~ normal(mu[z], s2)), which makes the likelihood a gated factor
// (Minka & Winn 2008) whose branch z selects: ep runs BP on z and EP on the
// Gaussian side (infer/fgraph).
type Categorical struct{ P []float64 }

func (Categorical) Name() string             { return "categorical" }
func (Categorical) Role() Role               { return Prior }
func (Categorical) Builtin() *stdlib.Builtin { return &categoricalBuiltin }
func (c Categorical) Table() []float64       { return c.P }
func (Categorical) selector()                {}

// NewCategorical validates the probabilities of a cat(K) prior: K entries,
// non-negative, summing to one within WeightTol.
func NewCategorical(p []float64, K int) (Categorical, error) {
	if len(p) != K {
		return Categorical{}, fmt.Errorf("categorical: p has %d entries; the latent is cat(%d)", len(p), K)
	}
	if err := CheckProbabilities(p); err != nil {
		return Categorical{}, fmt.Errorf("categorical: %w", err)
	}
	return Categorical{P: append([]float64(nil), p...)}, nil
}

// In a graph.Net, categorical is the factor p(x = k | p) = p_k on a
// discrete variable x (edge x), or on an observed state y (f.Y, no x
// edge), with edge p: a probability vector (data), a Dirichlet variable,
// or a selection of either by a discrete variable — A[z[t−1]], the
// transition of a discrete chain (a hidden Markov model), whose branches
// are the rows of A. The P field is unused there. With p a Dirichlet
// variable the factor is conjugate: e_x in its natural parameters
// (log p_1 … log p_K).

func (Categorical) NetEdges() []EdgeSpec {
	return []EdgeSpec{{Name: "x", Families: []graph.Family{graph.Discrete}, Doc: "the discrete variable (absent when observed)",
		EP: "sum-product over the enumerated states (exact)", VMP: "sum-product on exp(E log p)"},
		{Name: "p", Required: true, Families: []graph.Family{graph.Dirichlet}, Doc: "state probabilities (data, a Dirichlet variable, or a selected row)",
			EP: "exact with a known state; else the mixture over states projected (Dirichlet Newton solve)", VMP: "closed form (q of the states)"}}
}

func (k Categorical) CheckNet(f *graph.NetFactor, fam func(int) graph.Family) error {
	if _, ok := f.Edge("x"); ok == f.Observed {
		return &EdgeError{Edge: "x", Elem: -1, Branch: -1, Msg: "categorical: a factor has either an x edge or an observation"}
	}
	if f.Observed {
		if err := observation("categorical", f); err != nil {
			return err
		}
		if y := f.Y[0]; !(y >= 0) || y != math.Floor(y) || y >= MaxDim {
			return &EdgeError{Elem: -1, Branch: -1, Msg: fmt.Sprintf("categorical: observation %g, want a state 0, 1, …", y)}
		}
	}
	return checkNetEdges(k, f, fam, func(name string, v []float64) error {
		if len(v) > MaxDim {
			return &EdgeError{Edge: name, Elem: -1, Branch: -1, Msg: fmt.Sprintf("categorical: `%s` has %d entries, more than %d", name, len(v), MaxDim)}
		}
		if err := CheckProbabilities(v); err != nil {
			return &EdgeError{Edge: name, Elem: -1, Branch: -1, Msg: "categorical: " + err.Error()}
		}
		if f.Observed && int(f.Y[0]) >= len(v) {
			return &EdgeError{Elem: -1, Branch: -1, Msg: fmt.Sprintf("categorical: observation %g, but p has %d states", f.Y[0], len(v))}
		}
		return nil
	})
}

// LogDensityEdges is log p_x (x the state: the x edge's value or f.Y).
func (Categorical) LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64 {
	p, _ := edgeValue(f, vals, "p")
	x := 0.0
	if f.Observed {
		x = f.Y[0]
	} else {
		x = scalarEdge(f, vals, "x")
	}
	k := int(x)
	if k < 0 || k >= len(p) {
		return math.Inf(-1)
	}
	return math.Log(p[k])
}

// expForm: with the state k known (the x edge's value in a branch, or the
// observation), in a Dirichlet p the factor is exp(e_k·log p).
func (Categorical) expForm(y []float64, in []In) (int, []float64, float64, error) {
	k := 0
	if x := dataOf(in, "x"); x != nil {
		k = int(x[0])
	} else if y != nil {
		k = int(y[0])
	} else {
		return 0, nil, 0, fmt.Errorf("categorical: the state is latent; infer/mp enumerates it")
	}
	i := edgeIndex(in, "p")
	if in[i].IsData() {
		if k >= len(in[i].Data) {
			return -1, nil, math.Inf(-1), nil
		}
		return -1, nil, math.Log(in[i].Data[k]), nil
	}
	zeta := make([]float64, len(in[i].Nat))
	if k >= len(zeta) {
		return 0, nil, 0, fmt.Errorf("categorical: state %d, but p has %d components", k, len(zeta))
	}
	zeta[k] = 1
	return i, zeta, 0, nil
}

// EP is exact on a Dirichlet p: Dir(α) → Dir(α + u e_k), log Z = u-th
// moment log E[p_k^u]; on data p it is u log p_k (a table entry of BP).
func (k Categorical) EP(y []float64, in []In, u float64, out []Out) (float64, error) {
	return conjugateEP(k, y, in, u, out)
}

// VMP: the message to p is e_k; E log f = E log p_k = ψ(α_k) − ψ(α₀).
func (k Categorical) VMP(y []float64, in []In, out []Out) (float64, error) {
	return conjugateVMP(k, y, in, out)
}
