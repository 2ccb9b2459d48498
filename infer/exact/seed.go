package exact

// maxSeedDepth bounds the bisections of seedCell.
const maxSeedDepth = 80

// seedCell evaluates and pushes c; if c contains the seed's mode and is
// wider than 2 s_i (half-width) along some axis, it is first bisected along
// the axis with the largest h_i/s_i, the half without the mode pushed and
// the other seeded again. This resolves a posterior far narrower than the
// initial cells before the adaptive phase.
func (it *integrator) seedCell(c *cell, depth int) error {
	ax, ratio := 0, 0.0
	if it.seed != nil && depth < maxSeedDepth && it.contains(c, it.seed.u) {
		for i := 0; i < it.d; i++ {
			if r := c.h[i] / (2 * it.seed.s[i]); r > ratio {
				ax, ratio = i, r
			}
		}
	}
	if ratio <= 1 {
		if err := it.evalCell(c); err != nil {
			return err
		}
		it.push(c)
		return nil
	}
	a, b := *c, *c
	a.h[ax], b.h[ax] = c.h[ax]/2, c.h[ax]/2
	a.c[ax], b.c[ax] = c.c[ax]-c.h[ax]/2, c.c[ax]+c.h[ax]/2
	if it.contains(&b, it.seed.u) {
		a, b = b, a
	}
	if err := it.seedCell(&b, maxSeedDepth); err != nil {
		return err
	}
	return it.seedCell(&a, depth+1)
}

// contains reports whether u lies in the closed box of c.
func (it *integrator) contains(c *cell, u []float64) bool {
	for i := 0; i < it.d; i++ {
		if u[i] < c.c[i]-c.h[i] || u[i] > c.c[i]+c.h[i] {
			return false
		}
	}
	return true
}
