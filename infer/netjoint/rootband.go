package netjoint

import (
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// RootBand is a Gaussian over n variables in square-root information
// form on a band: the factors enter as the rows of a least-squares system
// ‖A x − b‖², one row a_F/σ_F, (y_F − c_F)/σ_F per linear-Gaussian factor
// N(y_F; a_Fᵀx + c_F, σ_F²), and are folded by Givens rotations into the
// upper-triangular R of half-width k and the rotated right-hand side z,
// with RᵀR = AᵀA = Λ and Rᵀz = Aᵀb = h, never forming Λ. This is the
// square-root information filter (Bierman 1977, Factorization Methods for
// Discrete Sequential Estimation, ch. V; Paige & Saunders 1977, "Least
// squares estimation of discrete linear dynamic systems using orthogonal
// transformations", SIAM J. Numer. Anal. 14) on a band: rows taken in
// order of their first column only meet R's rows lo … lo + k and leave no
// fill beyond column lo + k, so each row costs O(k²) rotations' work
// (Björck 1996, Numerical Methods for Least Squares Problems, §6.1.3,
// sequential row processing of banded problems) and R takes O(n k) memory.
//
// Why not the information form (GaussBlock): Λ's entries are sums of
// a aᵀ/σ² rounded one by one, a perturbation of ε‖Λ‖ that does not keep
// the factors' structure, and Cholesky's backward error is of the same
// size, so Λ⁻¹ is resolved only to κ(Λ)·ε. On a near-constant-velocity
// chain (precise steps, states that wander far) κ(Λ) grows as T⁴ and
// reaches 10¹¹ at T = 900: 10⁻⁴ relative error in the variances.
// Orthogonal rotations of the rows are backward stable row by row (Higham
// 2002, Accuracy and Stability of Numerical Algorithms, §19.6): R is the
// exact factor of rows perturbed by a few ε each, to which the posterior
// is well conditioned, and R⁻¹ carries at most κ(A)·ε = √κ(Λ)·ε.
type RootBand struct {
	n, k int
	r    []float64 // row i holds R[i][i..i+k]
	z    []float64
	col  []float64 // Σ_rows a_i², the squared column norms of A (pivot tolerance)
	row  []float64 // the row being folded, columns lo … lo + k
	lo   int       // first column of the last row added
	ldet float64
}

// NewRootBand is an empty square-root information form over n variables
// whose rows span at most k + 1 consecutive columns.
func NewRootBand(n, k int) *RootBand {
	w := k + 1
	return &RootBand{n: n, k: k, r: make([]float64, n*w), z: make([]float64, n), col: make([]float64, n), row: make([]float64, w)}
}

// AddRow adds the row (a, b) over columns lo … lo + len(a) − 1: the
// factor exp(−½ (aᵀx_{lo…} − b)²). Rows must come in nondecreasing lo
// (the band's fill bound) and len(a) ≤ k + 1; AddRow panics otherwise, a
// caller's error. Each nonzero a_j meets row lo + j of R in a Givens
// rotation that zeroes it; a row of R not yet touched takes the rest of
// the row as it is (its sign made positive). What remains of b after the
// last rotation is the row's least-squares residual.
func (rb *RootBand) AddRow(lo int, a []float64, b float64) {
	k, w := rb.k, rb.k+1
	if lo < rb.lo || len(a) > w || lo+len(a) > rb.n {
		panic("netjoint: RootBand.AddRow out of order or beyond the band")
	}
	rb.lo = lo
	row := rb.row
	clear(row)
	copy(row, a)
	for j, x := range a {
		rb.col[lo+j] += x * x
	}
	for j := 0; j <= k && lo+j < rb.n; j++ {
		x := row[j]
		if x == 0 {
			continue
		}
		c := lo + j
		ri := rb.r[c*w : c*w+w] // R[c][c..c+k]; row[l] is column lo + l = c + (l − j)
		d := ri[0]
		if d == 0 {
			sgn := math.Copysign(1, x)
			for l := j; l <= k; l++ {
				ri[l-j] = sgn * row[l]
			}
			rb.z[c] = sgn * b
			return
		}
		rho := math.Hypot(d, x)
		cs, sn := d/rho, x/rho
		ri[0] = rho
		for l := j + 1; l <= k; l++ {
			rv := ri[l-j]
			ri[l-j] = cs*rv + sn*row[l]
			row[l] = cs*row[l] - sn*rv
		}
		zc := rb.z[c]
		rb.z[c] = cs*zc + sn*b
		b = cs*b - sn*zc
	}
}

// FoldRows adds rows 0 … len(first) − 1 to rb in order of their first
// columns first[i], as AddRow needs; a row with first[i] < 0 is left out.
// The order is a counting sort of the rows by first column, stable in i,
// so no row is stored: fill(i, a) writes row i's coefficients over
// columns first[i], first[i] + 1, … into a (zeroed, of length k + 1)
// and returns how many columns the row spans and its right-hand side.
// It checks done every 2¹⁴ rows and returns ErrCanceled when it closes.
func (rb *RootBand) FoldRows(first []int32, done <-chan struct{}, fill func(i int, a []float64) (width int, b float64)) error {
	start := make([]int32, rb.n+1) // counts, then starts, of the rows by first column
	for _, c := range first {
		if c >= 0 {
			start[c+1]++
		}
	}
	for c := 1; c <= rb.n; c++ {
		start[c] += start[c-1]
	}
	order := make([]int32, start[rb.n])
	for i, c := range first {
		if c >= 0 {
			order[start[c]] = int32(i)
			start[c]++
		}
	}
	a := make([]float64, rb.k+1)
	for r, i := range order {
		if canceled(done, r) {
			return ErrCanceled
		}
		clear(a)
		w, b := fill(int(i), a)
		rb.AddRow(int(first[i]), a[:w], b)
	}
	return nil
}

// errSingular is SolveDone's error when a column of R is zero to rounding.
var errSingular = errors.New("the Gaussian variables' precision is not positive definite")

// SolveDone returns the mean μ = R⁻¹z and the band of the covariance
// Σ = (RᵀR)⁻¹ (row i holds Σ[i][i..i+k], selectedInverse), checking done
// every cancelRows rows (ErrCanceled). A diagonal entry of R at the
// rounding level of its column of A (below 4(k+1)ε‖A_:i‖, the square
// root's counterpart of GaussBlock's pivotTol) is a direction no row fixes
// and fails as not positive definite. log det Λ = 2 Σ log R_ii (LogDet).
func (rb *RootBand) SolveDone(done <-chan struct{}) (mean, cov []float64, err error) {
	mean, err = rb.Mean()
	if err != nil {
		return nil, nil, err
	}
	cov, err = selectedInverse(rb.r, rb.n, rb.k, done)
	if err != nil {
		return nil, nil, err
	}
	return mean, cov, nil
}

// Mean is SolveDone's mean μ = R⁻¹z alone (and LogDet), without the
// covariance band: for a caller that only solves and draws.
func (rb *RootBand) Mean() ([]float64, error) {
	n, w := rb.n, rb.k+1
	logR := make([]float64, n)
	for i := 0; i < n; i++ {
		d := rb.r[i*w]
		if !(d > float64(4*w)*0x1p-52*math.Sqrt(rb.col[i])) || math.IsInf(d, 1) {
			return nil, errSingular
		}
		logR[i] = math.Log(d)
	}
	rb.ldet = 2 * floats.SumCompensated(logR)
	mean := append([]float64(nil), rb.z...)
	backSolve(rb.r, n, rb.k, mean)
	return mean, nil
}

// FactorRow returns row i of R, R[i][i..i+k] (shorter in the last k
// rows), after Mean or SolveDone, to be read, not written. R is the
// Cholesky factor of Λ = RᵀR (upper triangular, positive diagonal), so
// as GaussBlock.FactorRow the row gives x_i's conditional given the later
// variables: R_ii (x_i − μ_i) + Σ_l R_il (x_l − μ_l) ~ N(0, 1).
func (rb *RootBand) FactorRow(i int) []float64 {
	w := rb.k + 1
	return rb.r[i*w : i*w+min(w, rb.n-i)]
}

// Draw adds to dst (the mean) a draw of N(0, Λ⁻¹), R⁻¹z with z ~ N(0, I),
// after Mean or SolveDone.
func (rb *RootBand) Draw(rng *rand.Rand, dst []float64) {
	drawBand(rng, rb.r, rb.n, rb.k, dst)
}

// LogDet is log det Λ = 2 Σ_i log R_ii after SolveDone.
func (rb *RootBand) LogDet() float64 { return rb.ldet }

// HalfWidth is the band's half-width k.
func (rb *RootBand) HalfWidth() int { return rb.k }

// QuadRows writes the quadratic −½ xᵀPx + bᵀx over n variables (P
// symmetric, row-major) as least-squares rows, −½ Σ_r (a_rᵀx − c_r)² up
// to a constant: from P's eigendecomposition P = Σ λ q qᵀ, a row √λ qᵀ
// with c = qᵀb/√λ per eigenvalue above the rounding level
// tol = 16nε(scale + max |λ|), scale the size of the log density's values
// that P and b were fitted from (FitQuadratic's second differences carry
// a few ε·scale), so that Σ a aᵀ = P and Σ a c = b up to the fit's own
// error. It fails (ok false) when an eigenvalue is below −tol (P not
// positive semidefinite: no rows sum to it) or b has a part along a
// direction of P's null space above the misfit a fit accepts,
// fitTol·(scale + ‖b‖) (a linear tilt with no curvature, which no row
// carries); the caller then keeps the information form.
func QuadRows(p, b []float64, n int, scale float64) (a, c []float64, ok bool) {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, append([]float64(nil), p...)), true) {
		return nil, nil, false
	}
	lam := eig.Values(nil)
	var q mat.Dense
	eig.VectorsTo(&q)
	top := 0.0
	for _, l := range lam {
		top = math.Max(top, math.Abs(l))
	}
	tol := float64(16*n) * 0x1p-52 * (math.Abs(scale) + top)
	tolB := fitTol * (math.Abs(scale) + floats.Norm(b, 2))
	for i, l := range lam {
		qb := 0.0
		for j := range n {
			qb += q.At(j, i) * b[j]
		}
		if l < -tol || (l <= tol && math.Abs(qb) > tolB) {
			return nil, nil, false
		}
		if l <= tol {
			continue
		}
		s := math.Sqrt(l)
		for j := range n {
			a = append(a, s*q.At(j, i))
		}
		c = append(c, qb/s)
	}
	return a, c, true
}
