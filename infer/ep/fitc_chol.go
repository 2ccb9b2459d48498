package ep

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
)

// cholRankOne changes the upper Cholesky factor U (UᵀU = A, upper
// triangle row-major in u) in place to that of A + alpha x xᵀ in O(m²):
// Givens rotations for alpha > 0 (LINPACK dchud), and for alpha < 0 the
// LINPACK dchdd downdate, which needs p = U⁻ᵀ x — passed as z, so that the
// caller's solve is reused. It returns false and leaves U unchanged when
// the downdated matrix is not positive definite. (mat.Cholesky.SymRankOne
// does the same but also re-estimates the condition number after every
// update, which costs more than the update itself.) work, cs and sn have
// length m; x and z are not modified. A downdate that fails in its
// rotations (rounding) leaves U invalid and returns false: the caller then
// refactors from scratch.
func cholRankOne(u blas64.Triangular, alpha float64, x, z, work, cs, sn []float64) bool {
	n, st := u.N, u.Stride
	if alpha > 0 {
		sa := math.Sqrt(alpha)
		for i := range work[:n] {
			work[i] = sa * x[i]
		}
		for i := 0; i < n; i++ {
			c, s, r, _ := blas64.Rotg(u.Data[i*st+i], work[i])
			if r < 0 {
				r, c, s = -r, -c, -s
			}
			u.Data[i*st+i] = r
			if i < n-1 {
				blas64.Rot(vec(u.Data[i*st+i+1:i*st+n]), vec(work[i+1:n]), c, s)
			}
		}
		return true
	}
	sa := math.Sqrt(-alpha)
	p := work[:n]
	for i := range p {
		p[i] = sa * z[i]
	}
	norm := blas64.Nrm2(vec(p))
	if !(norm < 1) {
		return false
	}
	norm = math.Sqrt((1 + norm) * (1 - norm))
	for i := n - 1; i >= 0; i-- {
		cs[i], sn[i], norm, _ = blas64.Rotg(norm, p[i])
		if norm < 0 {
			norm, cs[i], sn[i] = -norm, -cs[i], -sn[i]
		}
	}
	for i := n - 1; i >= 0; i-- {
		p[i] = 0
		row := u.Data[i*st+i : i*st+n]
		blas64.Rot(vec(p[i:n]), vec(row), cs[i], sn[i])
		switch {
		case row[0] == 0 || math.IsNaN(row[0]):
			return false
		case row[0] < 0:
			blas64.Scal(-1, vec(row))
		}
	}
	return true
}
