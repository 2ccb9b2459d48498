package loss

// Batch is the mini-batch factor of Roche's linear classifiers
// (roche-numerical-ep.txt eq. 2 and §3.2):
//
//	f(w) = exp(−β Σ_k ℓ(y_k x_kᵀw)),
//	∇ log f = −β Σ_k ℓ'(m_k) y_k x_k,
//	diag ∇∇ᵀ log f = −β Σ_k ℓ''(m_k) x_k∘x_k      (y_k² = 1 not assumed: y_k² kept).
//
// It implements the engines' potential interface (LogF, Derivs) directly,
// O(s·d) per call, without jets; it must agree with the ad version of the
// same expression (tested).
type Batch struct {
	X    [][]float64 // rows x_k, each of length d
	Y    []float64   // labels y_k (±1)
	Beta float64     // inverse temperature β
	Loss Loss
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// Cost returns Σ_k ℓ(y_k x_kᵀw) (without β).
func (b *Batch) Cost(w []float64) float64 {
	var c float64
	for k, x := range b.X {
		v, _, _ := b.Loss.Eval(b.Y[k] * dot(x, w))
		c += v
	}
	return c
}

// LogF returns −β Σ_k ℓ(y_k x_kᵀw).
func (b *Batch) LogF(w []float64) float64 { return -b.Beta * b.Cost(w) }

// Derivs fills grad and hdiag with the gradient and diagonal Hessian of
// log f at w and returns log f(w).
func (b *Batch) Derivs(w, grad, hdiag []float64) float64 {
	clear(grad)
	clear(hdiag)
	var c float64
	for k, x := range b.X {
		y := b.Y[k]
		v, d1, d2 := b.Loss.Eval(y * dot(x, w))
		c += v
		g1, h1 := -b.Beta*d1*y, -b.Beta*d2*y*y
		for j, xj := range x {
			grad[j] += g1 * xj
			hdiag[j] += h1 * xj * xj
		}
	}
	return -b.Beta * c
}
