package factor

import (
	"math"

	"github.com/fg-infer/fg/stdlib"
)

var fieldBuiltin = stdlib.Builtin{Name: "field", Kind: stdlib.Potential, Domains: spinDomain,
	Params: []stdlib.Param{stdlib.Required("x", stdlib.LatentT, "spin variable"), stdlib.Required("h", stdlib.NumberT, "field")},
	Doc:    "single-spin potential exp(h·x)"}

// Field is the single-spin potential exp(h x).
type Field struct{ H float64 }

func (Field) Name() string             { return "field" }
func (Field) Role() Role               { return Potential }
func (Field) Builtin() *stdlib.Builtin { return &fieldBuiltin }

// Table is [e^−h, e^h] (state 0 = −1).
func (f Field) Table() []float64 { return []float64{math.Exp(-f.H), math.Exp(f.H)} }
