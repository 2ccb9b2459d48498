package exact

// coverFrac is the share of the stage-1 mass, relative to Settings.Tol, above
// which a stage-1 cell must lie inside the posterior-whitened box.
const coverFrac = 1e-3

// massCorners returns, in w coordinates, the corners of the cells that
// carry more than frac of the integral. A later stage, whitened by the
// posterior's first two moments, integrates only ±R of its standard
// deviations around the mean; a second mode farther out (the clutter
// problem's, minka-ep section 3.3, 5·10⁻⁶ of the mass 20 posterior sds
// away) would be lost without an error estimate saying so. The stage's box
// is therefore widened to contain these corners (see integrator.box).
func (it *integrator) massCorners(frac float64) [][]float64 {
	var out [][]float64
	if !(it.total[0] > 0) {
		return nil
	}
	n := 1 << it.d
	for _, c := range it.cells {
		if c.val[0] <= frac*it.total[0] {
			continue
		}
		for m := 0; m < n; m++ {
			for i := 0; i < it.d; i++ {
				s := -1.0
				if m>>i&1 == 1 {
					s = 1
				}
				it.u[i] = c.c[i] + s*c.h[i]
			}
			w := make([]float64, it.d)
			it.fr.toW(it.u, w)
			out = append(out, w)
		}
	}
	return out
}

// cover widens [lo, hi] (u coordinates of it.fr) to contain the points
// of it.covered (w coordinates).
func (it *integrator) cover(lo, hi []float64) {
	u := make([]float64, it.d)
	for _, w := range it.covered {
		it.fr.toU(w, u)
		for i := range lo {
			lo[i] = min(lo[i], u[i])
			hi[i] = max(hi[i], u[i])
		}
	}
}
