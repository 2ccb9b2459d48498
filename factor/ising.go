package factor

import (
	"github.com/fg-infer/fg/graph"
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
// [e^J, e^−J, e^−J, e^J] = exp(J·φ).
func (f Ising) Table() []float64 { return graph.LogLinearTable(f.J, isingStat) }

// Param is the coupling J.
func (f Ising) Param() float64 { return f.J }

// Stat is the statistic φ = x_i·x_j in libDAI order: [1, −1, −1, 1].
func (Ising) Stat() []float64 { return isingStat }

var isingStat = []float64{1, -1, -1, 1}
