package testkit

import (
	"math"
	"testing"
)

// The grid smoother is itself checked: on one step, whose posterior
// N(0, 1)·Φ(y x) has closed-form moments (mean y·√(1/π), variance 1 − 1/π),
// to 1e-9; on a 60-step walk, halving the grid step changes no mean or
// variance by more than 1e-5.
func TestGridSmoother(t *testing.T) {
	for _, y := range []float64{1, -1} {
		m, v := GridSmoother([]float64{y}, 0.1, -12, 12, 0.01)
		if !(math.Abs(m[0]-y*math.Sqrt(1/math.Pi)) <= 1e-9) || !(math.Abs(v[0]-(1-1/math.Pi)) <= 1e-9) {
			t.Errorf("y = %g: grid %.12f ± %.12f, closed form %.12f ± %.12f", y, m[0], v[0], y*math.Sqrt(1/math.Pi), 1-1/math.Pi)
		}
	}
	ys := ProbitWalkLabels(60, 0.1)
	m1, v1 := GridSmoother(ys, 0.1, -15, 15, 0.02)
	m2, v2 := GridSmoother(ys, 0.1, -15, 15, 0.01)
	for i := range m1 {
		if !(math.Abs(m1[i]-m2[i]) <= 1e-5) || !(math.Abs(v1[i]-v2[i]) <= 1e-5) {
			t.Errorf("x[%d]: h = 0.02 %.7f ± %.7f, h = 0.01 %.7f ± %.7f", i, m1[i], v1[i], m2[i], v2[i])
		}
	}
}
