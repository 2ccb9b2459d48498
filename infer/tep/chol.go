package tep

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

var bl = blas64.Implementation()

// upper is a Cholesky factor A = UᵀU, U upper triangular, stored row-major
// in a dense k×k slice (the strict lower part is unused). It supports the
// O(k²) operations of a site update — two triangular solves and a rank-one
// update or downdate — with row-contiguous loops and no allocation
// (gonum's Cholesky.SymRankOne also re-estimates the condition number on
// every call, which costs more than the update itself).
type upper struct {
	k int
	u []float64
}

// set copies the factor of a gonum Cholesky.
func (c *upper) set(ch *mat.Cholesky, k int) {
	var t mat.TriDense
	ch.UTo(&t)
	c.k = k
	if len(c.u) != k*k {
		c.u = make([]float64, k*k)
	}
	raw := t.RawTriangular()
	for i := 0; i < k; i++ {
		copy(c.u[i*k+i:i*k+k], raw.Data[i*raw.Stride+i:i*raw.Stride+k])
	}
}

// cholesky sets ch to the factor c holds.
func (c *upper) cholesky(ch *mat.Cholesky) {
	t := mat.NewTriDense(c.k, mat.Upper, nil)
	for i := 0; i < c.k; i++ {
		for j := i; j < c.k; j++ {
			t.SetTri(i, j, c.u[i*c.k+j])
		}
	}
	ch.Reset()
	ch.SetFromU(t)
}

// solve sets x = A⁻¹b: Uᵀz = b by forward substitution (row j of U
// eliminates z_j from the later equations), then Ux = z backwards.
// x and b may be the same slice.
func (c *upper) solve(x, b []float64) {
	k, u := c.k, c.u
	copy(x, b)
	for j := 0; j < k; j++ {
		x[j] /= u[j*k+j]
		if n := k - j - 1; n > 0 {
			bl.Daxpy(n, -x[j], u[j*k+j+1:j*k+k], 1, x[j+1:k], 1)
		}
	}
	for i := k - 1; i >= 0; i-- {
		s := x[i]
		if n := k - i - 1; n > 0 {
			s -= bl.Ddot(n, u[i*k+i+1:i*k+k], 1, x[i+1:k], 1)
		}
		x[i] = s / u[i*k+i]
	}
}

// logDet returns log|A| = 2 Σ log U_ii.
func (c *upper) logDet() float64 {
	var s float64
	for i := 0; i < c.k; i++ {
		s += math.Log(c.u[i*c.k+i])
	}
	return 2 * s
}

// rankOne replaces U by the factor of A + α xxᵀ (x is overwritten) with
// the Givens-type recurrence (Gill, Golub, Murray, Saunders 1974, method
// C1; hyperbolic for α < 0): with x ← √|α| x and σ = sign α, row j becomes
//
//	r = √(U_jj² + σ x_j²),  c = r/U_jj,  s = x_j/U_jj,
//	U_ji ← (U_ji + σ s x_i)/c,  x_i ← c x_i − s U_ji   (i > j).
//
// It returns false when A + α xxᵀ is not (numerically) positive definite;
// U is then partly updated and must be rebuilt.
func (c *upper) rankOne(alpha float64, x []float64) bool {
	k, u := c.k, c.u
	sg := 1.0
	if alpha < 0 {
		sg = -1
	}
	sq := math.Sqrt(math.Abs(alpha))
	for i := range x {
		x[i] *= sq
	}
	for j := 0; j < k; j++ {
		ujj := u[j*k+j]
		r2 := ujj*ujj + sg*x[j]*x[j]
		if !(r2 > 0) || math.IsInf(r2, 0) {
			return false
		}
		r := math.Sqrt(r2)
		cj, sj := r/ujj, x[j]/ujj
		u[j*k+j] = r
		if n := k - j - 1; n > 0 {
			row, rest := u[j*k+j+1:j*k+k], x[j+1:k]
			bl.Daxpy(n, sg*sj, rest, 1, row, 1)
			bl.Dscal(n, 1/cj, row, 1)
			bl.Dscal(n, cj, rest, 1)
			bl.Daxpy(n, -sj, row, 1, rest, 1)
		}
	}
	return true
}
