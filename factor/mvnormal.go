package factor

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var mvnormalBuiltin = stdlib.Builtin{Name: "mvnormal", Kind: stdlib.Distribution, Domains: realDomain, Prior: true,
	Params: []stdlib.Param{stdlib.Required("mean", stdlib.NumericT, "mean vector (or scalar)"),
		stdlib.Required("cov", stdlib.MatrixT, "covariance matrix (symmetric positive definite)")},
	Doc: "multivariate Gaussian prior N(mean, cov) on a real vector latent"}

// MVNormal is the multivariate Gaussian prior N(mean, cov) on a real
// vector latent; compile checks that cov is symmetric positive definite.
type MVNormal struct{}

func (MVNormal) Name() string             { return "mvnormal" }
func (MVNormal) Role() Role               { return Prior }
func (MVNormal) Builtin() *stdlib.Builtin { return &mvnormalBuiltin }
func (MVNormal) Family() graph.Family     { return graph.Gaussian }
func (MVNormal) Process() bool            { return false }
func (MVNormal) Independent() bool        { return false }
