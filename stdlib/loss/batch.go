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
// same expression (tested). compile builds a Batch for the user potential
// `factor exp(-beta * sum(LOSS(y[b] * (X[b] @ w))))` (compile/lossbatch.go).
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
		c += b.Loss.Value(b.Y[k] * dot(x, w))
	}
	return c
}

// LogFAxes returns log f(w) and fills lp[i] = log f(w + step_i e_i) and
// lm[i] = log f(w − step_i e_i) for every coordinate i: the 2d+1 points of
// the precision-3 rule (infer/ffep). The margins are computed once, then
// shifted by ±step_i y_k x_ki, so the cost is O(s·d) loss evaluations
// instead of O(s·d²) arithmetic for 2d+1 separate LogF calls.
func (b *Batch) LogFAxes(w, step, lp, lm []float64) float64 {
	var buf [64]float64
	m := buf[:0]
	if len(b.X) > len(buf) {
		m = make([]float64, 0, len(b.X))
	}
	var c float64
	for k, x := range b.X {
		mk := b.Y[k] * dot(x, w)
		m = append(m, mk)
		c += b.Loss.Value(mk)
	}
	for i := range w {
		var cp, cm float64
		for k, x := range b.X {
			dm := b.Y[k] * step[i] * x[i]
			if dm == 0 {
				v := b.Loss.Value(m[k])
				cp += v
				cm += v
				continue
			}
			cp += b.Loss.Value(m[k] + dm)
			cm += b.Loss.Value(m[k] - dm)
		}
		lp[i], lm[i] = -b.Beta*cp, -b.Beta*cm
	}
	return -b.Beta * c
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
