package exact

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// gaussBlock accumulates −½ xᵀPx + bᵀx over the Gaussian latents of one
// closed-form component and integrates it:
//
//	∫ exp(−½ xᵀPx + bᵀx) dx = exp(½ bᵀP⁻¹b) (2π)^{n/2} |P|^{−1/2},
//
// with the posterior N(P⁻¹b, P⁻¹). P is stored dense, or as a band of
// half-width k when the component's factors only couple latents at most k
// apart in its variable order (a chain: k = 1); the band's Cholesky
// factor, solves and the diagonal of P⁻¹ (Takahashi, Fagan & Chen 1973:
// the band of P⁻¹ from the band of the factor) cost O(n k²) instead of
// O(n³).
type gaussBlock struct {
	n, k  int // k < 0: dense
	dense *mat.SymDense
	band  []float64 // row i holds P[i][i..i+k] (then the factor U's)
	b     []float64
}

// maxBand is the largest half-width stored as a band; a band is used when
// it is at most a quarter of the block.
const maxBand = 16

func newGaussBlock(n, k int) *gaussBlock {
	g := &gaussBlock{n: n, k: k, b: make([]float64, n)}
	if k < 0 || k > maxBand || 4*(k+1) > n {
		g.k, g.dense = -1, mat.NewSymDense(n, nil)
	} else {
		g.band = make([]float64, n*(k+1))
	}
	return g
}

func (g *gaussBlock) zero() {
	clear(g.b)
	if g.dense != nil {
		g.dense.Zero()
		return
	}
	clear(g.band)
}

// add adds v to P[i][j] and P[j][i] (i ≤ j; |i − j| ≤ k when banded).
func (g *gaussBlock) add(i, j int, v float64) {
	if g.dense != nil {
		g.dense.SetSym(i, j, g.dense.At(i, j)+v)
		return
	}
	g.band[i*(g.k+1)+j-i] += v
}

var errNotPD = errors.New("the Gaussian latents' precision is not positive definite")

// integrate returns log ∫, the posterior means and variances.
func (g *gaussBlock) integrate() (logZ float64, mean, vr []float64, err error) {
	if g.dense != nil {
		return g.integrateDense()
	}
	return g.integrateBand()
}

func (g *gaussBlock) integrateDense() (float64, []float64, []float64, error) {
	var ch mat.Cholesky
	if !ch.Factorize(g.dense) {
		return 0, nil, nil, errNotPD
	}
	var m mat.VecDense
	if err := ch.SolveVecTo(&m, mat.NewVecDense(g.n, append([]float64(nil), g.b...))); err != nil {
		return 0, nil, nil, errNotPD
	}
	var cov mat.SymDense
	if err := ch.InverseTo(&cov); err != nil {
		return 0, nil, nil, errNotPD
	}
	mean, vr := make([]float64, g.n), make([]float64, g.n)
	for i := range mean {
		mean[i], vr[i] = m.AtVec(i), cov.At(i, i)
	}
	return g.logZ(mean, ch.LogDet()), mean, vr, nil
}

func (g *gaussBlock) logZ(mean []float64, logDet float64) float64 {
	q := 0.0
	for i, m := range mean {
		q += m * g.b[i]
	}
	return 0.5*q + 0.5*float64(g.n)*math.Log(2*math.Pi) - 0.5*logDet
}

// integrateBand factors P = UᵀU in place (U upper with half-width k),
// solves Uᵀy = b, Um = y, and computes the band of Σ = P⁻¹ from
// UΣ = U⁻ᵀ (lower triangular with diagonal 1/U_ii), row by row from the
// last: Σ_ij = (δ_ij/U_ii − Σ_{l=i+1}^{i+k} U_il Σ_lj) / U_ii for
// i ≤ j ≤ i + k, which needs only entries of Σ inside the band.
func (g *gaussBlock) integrateBand() (float64, []float64, []float64, error) {
	n, k, w := g.n, g.k, g.k+1
	u := g.band
	at := func(i, j int) float64 { return u[i*w+j-i] } // i ≤ j ≤ i + k
	logDet := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < min(i+w, n); j++ {
			s := u[i*w+j-i]
			for l := max(0, j-k); l < i; l++ {
				s -= at(l, i) * at(l, j)
			}
			if j == i {
				if !(s > 0) {
					return 0, nil, nil, errNotPD
				}
				s = math.Sqrt(s)
				logDet += 2 * math.Log(s)
			} else {
				s /= at(i, i)
			}
			u[i*w+j-i] = s
		}
	}
	mean := make([]float64, n)
	for i := 0; i < n; i++ { // Uᵀ y = b
		s := g.b[i]
		for l := max(0, i-k); l < i; l++ {
			s -= at(l, i) * mean[l]
		}
		mean[i] = s / at(i, i)
	}
	for i := n - 1; i >= 0; i-- { // U m = y
		s := mean[i]
		for l := i + 1; l < min(i+w, n); l++ {
			s -= at(i, l) * mean[l]
		}
		mean[i] = s / at(i, i)
	}
	sig := make([]float64, n*w) // row i holds Σ[i][i..i+k]
	sigAt := func(i, j int) float64 {
		if i > j {
			i, j = j, i
		}
		return sig[i*w+j-i]
	}
	for i := n - 1; i >= 0; i-- {
		for j := min(i+k, n-1); j >= i; j-- {
			s := 0.0
			if j == i {
				s = 1 / at(i, i)
			}
			for l := i + 1; l < min(i+w, n); l++ {
				s -= at(i, l) * sigAt(l, j)
			}
			sig[i*w+j-i] = s / at(i, i)
		}
	}
	vr := make([]float64, n)
	for i := range vr {
		vr[i] = sig[i*w]
	}
	return g.logZ(mean, logDet), mean, vr, nil
}
