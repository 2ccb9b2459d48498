package factor

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

var tpBuiltin = stdlib.Builtin{Name: "tp", Kind: stdlib.Distribution, Domains: realDomain, Prior: true,
	Params: []stdlib.Param{stdlib.Required("nu", stdlib.NumberT, "degrees of freedom (> 0)"),
		stdlib.Required("kernel", stdlib.KernelT, "scale function"), stdlib.Required("X", stdlib.MatrixT, "inputs")},
	Doc: "Student-t process prior: f ~ St(nu, 0, K) with K[i, j] = kernel(X[i], X[j])"}

// TP is the Student-t process prior f ~ St(ν, 0, K), the prior of t-EP
// (futami §5). Gaussian EP uses its ν → ∞ limit N(0, K), an approximation.
type TP struct{}

func (TP) Name() string             { return "tp" }
func (TP) Role() Role               { return Prior }
func (TP) Builtin() *stdlib.Builtin { return &tpBuiltin }
func (TP) Family() graph.Family     { return graph.StudentT }
func (TP) Process() bool            { return true }
func (TP) Independent() bool        { return false }

// Quality: the Gaussian limit under ep kl has no reference.
func (TP) Quality(c Column) Quality { return limitQuality(c) }

func limitQuality(c Column) Quality {
	if c == epKL {
		return Experimental
	}
	return Stable
}
