package factor

import (
	"math"

	"github.com/fg-infer/fg/stdlib"
)

var isingBuiltin = stdlib.Builtin{Name: "ising", Kind: stdlib.Potential, Domains: spinDomain,
	Params: []stdlib.Param{stdlib.Required("xi", stdlib.LatentT, "spin variable"), stdlib.Required("xj", stdlib.LatentT, "spin variable"),
		stdlib.Required("J", stdlib.NumberT, "coupling")},
	Doc: "pairwise potential exp(J·xi·xj) on two spins"}

// Ising is the pairwise potential exp(J xi xj) on two spins.
type Ising struct{ J float64 }

func (Ising) Name() string             { return "ising" }
func (Ising) Role() Role               { return Potential }
func (Ising) Builtin() *stdlib.Builtin { return &isingBuiltin }

// Table is in libDAI order (first variable fastest, state 0 = −1):
// [e^J, e^−J, e^−J, e^J].
func (f Ising) Table() []float64 {
	return []float64{math.Exp(f.J), math.Exp(-f.J), math.Exp(-f.J), math.Exp(f.J)}
}
