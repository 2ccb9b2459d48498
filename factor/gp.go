package factor

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var gpBuiltin = stdlib.Builtin{Name: "gp", Kind: stdlib.Distribution, Domains: realDomain, Prior: true,
	Params: []stdlib.Param{stdlib.Required("kernel", stdlib.KernelT, "covariance function"),
		stdlib.Required("X", stdlib.MatrixT, "inputs, one row per latent element"),
		stdlib.Optional("inducing", stdlib.MatrixT, "none (dense)", "FITC inducing inputs Z, one row each (same columns as X)"),
		stdlib.Optional("jitter", stdlib.NumberT, "1e-6·trace(K_uu)/m", "FITC: added to K_uu's diagonal (GPML's default)")},
	Doc: "Gaussian-process prior: f ~ N(0, K) with K[i, j] = kernel(X[i], X[j]); with inducing = Z the FITC sparse prior Q + diag(K − Q)"}

// GP is the Gaussian-process prior f ~ N(0, K), K = kernel(X, X), or with
// inducing inputs Z the FITC sparse prior; its kernel and inputs also
// serve prediction at new inputs and learning.
type GP struct{}

func (GP) Name() string             { return "gp" }
func (GP) Role() Role               { return Prior }
func (GP) Builtin() *stdlib.Builtin { return &gpBuiltin }
func (GP) Family() graph.Family     { return graph.Gaussian }
func (GP) Process() bool            { return true }
func (GP) Independent() bool        { return false }
