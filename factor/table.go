package factor

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/stdlib"
)

var tableBuiltin = stdlib.Builtin{Name: "table", Kind: stdlib.Potential, Domains: discDomain, Variadic: true,
	Params: []stdlib.Param{stdlib.Required("x", stdlib.LatentT, "discrete variables (one or more)"),
		stdlib.Required("T", stdlib.VectorT, "non-negative table, libDAI order: the first variable changes fastest")},
	Doc: "a discrete factor given by its table over the joint states"}

var factorsBuiltin = stdlib.Builtin{Name: "factors", Kind: stdlib.Potential, Domains: discDomain,
	Params: []stdlib.Param{stdlib.Required("G", stdlib.GraphT, "a libdai() graph"),
		stdlib.Required("x", stdlib.LatentT, "a discrete latent vector with one element per variable of G")},
	Doc: "every factor of a libDAI graph, variable k of G (ascending label) on x[k]; cardinalities must match"}

// Table is a discrete factor given by its table T over the joint states of
// its variables, libDAI order.
type Table struct{ T []float64 }

func (Table) Name() string             { return "table" }
func (Table) Role() Role               { return Potential }
func (Table) Builtin() *stdlib.Builtin { return &tableBuiltin }
func (f Table) Table() []float64       { return f.T }

// NewTable validates a table of size entries: finite and ≥ 0.
func NewTable(t []float64, size int) (Table, error) {
	if len(t) != size {
		return Table{}, fmt.Errorf("table: T must hold %d entries (the product of the cardinalities), got %d", size, len(t))
	}
	for k, x := range t {
		if !(x >= 0) || math.IsInf(x, 0) {
			return Table{}, fmt.Errorf("table: entry %d is %g; entries must be finite and ≥ 0", k, x)
		}
	}
	return Table{T: append([]float64(nil), t...)}, nil
}

// Factors is every factor of a libDAI graph, each a Table on the matching
// elements of a discrete latent vector: its rules are Table's.
type Factors struct{}

func (Factors) Name() string             { return "factors" }
func (Factors) Role() Role               { return Potential }
func (Factors) Builtin() *stdlib.Builtin { return &factorsBuiltin }
func (Factors) Expands() Kind            { return Table{} }
