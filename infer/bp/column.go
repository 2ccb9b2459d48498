package bp

// column is a per-factor (or per-variable) value that often follows a
// rule: value(a) = base + step·a, the rule set by the first two values (a
// constant θ shared by every factor of a grid; the graph index of engine
// factor a, a + the number of factors before the first pairwise one; the
// offset 2a of factor a's edges when every factor is pairwise; the offset
// 4a of its table when every table is its own). It keeps no array while
// every value added follows the rule exactly, and turns into one (vals)
// at the first that does not, so that a 10⁶-factor grid pays nothing for
// these.
type column[T int32 | float64] struct {
	vals       []T // nil while the rule holds
	base, step T
	n          int // values added
}

// at is value a.
func (c *column[T]) at(a int32) T {
	if c.vals == nil {
		return c.base + T(a)*c.step
	}
	return c.vals[a]
}

// add appends v; capHint is the expected number of values (for the array,
// if one is needed).
func (c *column[T]) add(v T, capHint int) {
	switch {
	case c.vals != nil:
		c.vals = append(c.vals, v)
	case c.n == 0:
		c.base = v
	case c.n == 1 && c.base+(v-c.base) == v:
		c.step = v - c.base
	case c.base+T(c.n)*c.step != v:
		c.vals = make([]T, c.n, max(capHint, c.n+1))
		for a := range c.vals {
			c.vals[a] = c.base + T(a)*c.step
		}
		c.vals = append(c.vals, v)
	}
	c.n++
}

// last is the last value added (n > 0).
func (c *column[T]) last() T { return c.at(int32(c.n - 1)) }
