package factor

import (
	"fmt"
	"math"
)

// quadNodes is the number of trapezoid cells logQuad settles on across the
// integrand's mass.
const quadNodes = 400

// logQuad integrates exp(lw(t)) over the real line by the trapezoid rule
// — spectrally accurate on the smooth, exponentially decaying integrands
// of the rules (a positive variable in log coordinates) — on a grid it
// fits to the integrand: starting from [t0 − 40 s0, t0 + 40 s0] (s0 the
// cavity's spread), it widens a side where the integrand is not below
// e^−46 of its maximum and narrows onto the span above that, until that
// span covers at least quadNodes/4 cells. It returns log ∫ exp(lw) and
// calls visit(t, w) for every node with weights w summing to one, so that
// Σ w·g(t) is the expectation of g under the normalised integrand.
func logQuad(lw func(t float64) float64, t0, s0 float64, visit func(t, w float64)) (float64, error) {
	if !(s0 > 0) || math.IsInf(s0, 1) || math.IsNaN(t0) || math.IsInf(t0, 0) {
		return 0, fmt.Errorf("quadrature: cavity spread %g around %g", s0, t0)
	}
	lo, hi := t0-40*s0, t0+40*s0
	vals := make([]float64, quadNodes+1)
	for range 12 {
		h := (hi - lo) / quadNodes
		m := math.Inf(-1)
		for i := range vals {
			vals[i] = lw(lo + float64(i)*h)
			if math.IsNaN(vals[i]) || math.IsInf(vals[i], 1) {
				return 0, fmt.Errorf("quadrature: integrand %g at %g", vals[i], lo+float64(i)*h)
			}
			m = max(m, vals[i])
		}
		if math.IsInf(m, -1) {
			return 0, fmt.Errorf("quadrature: the integrand vanishes on [%g, %g]", lo, hi)
		}
		first, last := -1, -1
		for i, v := range vals {
			if v >= m-46 {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		switch {
		case first == 0 || last == quadNodes:
			w := hi - lo
			if first == 0 {
				lo -= w
			}
			if last == quadNodes {
				hi += w
			}
		case last-first < quadNodes/4:
			lo, hi = lo+float64(first-1)*h, lo+float64(last+1)*h
		default:
			var s float64
			for _, v := range vals {
				s += math.Exp(v - m)
			}
			s -= 0.5 * (math.Exp(vals[0]-m) + math.Exp(vals[quadNodes]-m))
			for i, v := range vals {
				w := math.Exp(v-m) / s
				if i == 0 || i == quadNodes {
					w /= 2
				}
				visit(lo+float64(i)*h, w)
			}
			return m + math.Log(s*h), nil
		}
	}
	return 0, fmt.Errorf("quadrature: no grid holds the integrand's mass (last [%g, %g])", lo, hi)
}
