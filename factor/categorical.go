package factor

import (
	"fmt"

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
