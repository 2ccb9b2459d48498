package factor

import (
	"github.com/fg-infer/fg/graph"
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

// Table is [e^−h, e^h] = exp(h·φ) (state 0 = −1).
func (f Field) Table() []float64 { return graph.LogLinearTable(f.H, fieldStat) }

// Param is the field h.
func (f Field) Param() float64 { return f.H }

// Stat is the statistic φ = x_i: [−1, 1].
func (Field) Stat() []float64 { return fieldStat }

var fieldStat = []float64{-1, 1}
