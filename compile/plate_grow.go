package compile

import (
	"slices"

	"github.com/fg-infer/fg/lang/ast"
)

// plateAt is a plate being unrolled: n iterations, at iteration it; at is
// its for statement's position.
type plateAt struct {
	n, it int
	at    ast.Pos
}

// plateLeft is the number of times the current statement will still run
// in the plates being unrolled, this time included (1 outside plates):
// Σ_k (n_k − it_k − 1)·Π_{j>k} n_j + 1 over the plates, outermost first.
func (c *compiler) plateLeft() int {
	left, inner := 1, 1
	for k := len(c.plates) - 1; k >= 0; k-- {
		p := c.plates[k]
		left += (p.n - p.it - 1) * inner
		inner *= p.n
	}
	return left
}

// growFor makes room in s for the per elements a statement adds now and
// at each of its runs left in the plates (bounded by the factor budget
// left: each element is a factor), so that the compiler's lists of sites and conditionals of a
// plate of 10⁶ steps are allocated once instead of growing by a quarter
// at a time (a copy of the list each time, several times its final size
// in all). Past that it grows as append does.
func growFor[T any](c *compiler, s []T, per int) []T {
	if len(s)+per <= cap(s) {
		return s
	}
	want := min(float64(per)*float64(c.plateLeft()), float64(maxFactors-c.nUnroll))
	return slices.Grow(s, max(int(want), per))
}
