package mathx

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"
)

var hermiteRules sync.Map // n → [2][]float64{nodes, weights}

// Hermite returns the n-point Gauss–Hermite rule for the weight e^{−x²}
// (gonum's integrate/quad), computed once per n and shared by the whole
// project: ∫ g(x) e^{−x²} dx ≈ Σ_k w_k g(x_k), and for f ~ N(m, v),
// E[g(f)] ≈ Σ_k w_k g(m + √(2v) x_k)/√π. The slices must not be modified.
func Hermite(n int) (x, w []float64) {
	if r, ok := hermiteRules.Load(n); ok {
		p := r.([2][]float64)
		return p[0], p[1]
	}
	x, w = make([]float64, n), make([]float64, n)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	r, _ := hermiteRules.LoadOrStore(n, [2][]float64{x, w})
	p := r.([2][]float64)
	return p[0], p[1]
}
