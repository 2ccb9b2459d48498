package compile

import (
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/lang/ast"
)

// A statement inside a plate is compiled once per iteration. Its
// likelihood parameters and a conditional's variance are usually the same
// at every iteration (y[t] ~ normal(x[t], r)), so the site, its parameter
// map and the conditional's map made at one iteration serve the next ones
// while the values stay the same, bit for bit: one map per statement
// rather than one per element (a map costs a few hundred bytes; the
// values are read only).

// madeSite is the last likelihood site made by one call: the values of its
// parameters (the projection left out), the site and the map it was made
// from.
type madeSite struct {
	vals   []float64
	lik    factor.Site
	params map[string]float64
}

// rememberSite records the site a call made from vals.
func (c *compiler) rememberSite(call *ast.CallExpr, vals []float64, lik factor.Site, params map[string]float64) {
	if c.sitesMade == nil {
		c.sitesMade = map[*ast.CallExpr]*madeSite{}
	}
	c.sitesMade[call] = &madeSite{vals: append([]float64(nil), vals...), lik: lik, params: params}
}

// sameBits reports whether a and b hold the same float64s bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
