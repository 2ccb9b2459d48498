package netjoint

import (
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// GaussBlock accumulates −½ xᵀPx + Bᵀx over a set of Gaussian variables
// (the sum of their factors' quadratic fits, Contrib) and integrates it:
//
//	∫ exp(−½ xᵀPx + bᵀx) dx = exp(½ bᵀP⁻¹b) (2π)^{n/2} |P|^{−1/2},
//
// with the posterior N(P⁻¹B, P⁻¹), from which Draw samples. P is stored
// dense, or as a band of half-width k when the factors only couple
// variables at most k apart in the block's order (a chain: k = 1,
// Bandwidth); the band's Cholesky factor, solves, draws and the diagonal
// of P⁻¹ (Takahashi, Fagan & Chen 1973: the band of P⁻¹ from the band of
// the factor) cost O(n k²) instead of O(n³).
type GaussBlock struct {
	B     []float64
	n, k  int // k < 0: dense
	dense *mat.SymDense
	band  []float64 // row i holds P[i][i..i+k] (then the factor U's)
	chol  mat.Cholesky
	ldet  float64   // log det P, after Integrate
	cov   []float64 // the band of P⁻¹ after a banded Integrate (row i holds P⁻¹[i][i..i+k])
}

// CovBand returns the band of Σ = P⁻¹ after a banded Integrate (row i
// holds Σ[i][i..i+k], shorter in the last k rows; selectedInverse), to be
// read, not written: the covariances of variables at most k apart, enough
// for the marginal of any projection whose variables lie within the band.
// It is nil on a dense block.
func (g *GaussBlock) CovBand() []float64 { return g.cov }

// LogDet returns log det P after Integrate (2 Σ_i log U_ii of the factor):
// a caller that knows the integrand's minimum can form log ∫ without the
// cancellation of ½ bᵀP⁻¹b against its constant.
func (g *GaussBlock) LogDet() float64 { return g.ldet }

// MaxBand is the largest half-width stored as a band; a band is used when
// it is at most a quarter of the block (infer.Banded).
const MaxBand = infer.MaxBand

// NewGaussBlock is a block of n variables whose factors couple variables
// at most k apart (k < 0: any).
func NewGaussBlock(n, k int) *GaussBlock {
	g := &GaussBlock{n: n, k: k, B: make([]float64, n)}
	if !infer.Banded(n, k) {
		g.k, g.dense = -1, mat.NewSymDense(n, nil)
	} else {
		g.band = make([]float64, n*(k+1))
	}
	return g
}

// Dense reports whether P is stored dense.
func (g *GaussBlock) Dense() bool { return g.dense != nil }

// HalfWidth is the band's half-width k (−1 when P is stored dense).
func (g *GaussBlock) HalfWidth() int { return g.k }

// FactorRow returns row i of the band's Cholesky factor P = UᵀU after
// Integrate, U[i][i..i+k] (shorter in the last k rows), to be read, not
// written: since U(x − m) ~ N(0, I), the row gives x_i's conditional given
// the later variables, U_ii (x_i − m_i) + Σ_l U_il (x_l − m_l) ~ N(0, 1).
// It panics on a dense block.
func (g *GaussBlock) FactorRow(i int) []float64 {
	w := g.k + 1
	return g.band[i*w : i*w+min(w, g.n-i)]
}

// Bandwidths is, per block of blocks (disjoint sets of n's variables),
// the largest distance in the block's order between two of its variables
// that one factor touches (through any branch): one pass over the factors.
func Bandwidths(n *graph.Net, blocks [][]int) []int {
	block, pos := make([]int, len(n.Vars)), make([]int, len(n.Vars))
	for v := range block {
		block[v] = -1
	}
	for b, vars := range blocks {
		for i, v := range vars {
			block[v], pos[v] = b, i
		}
	}
	k := make([]int, len(blocks))
	for _, f := range n.Factors {
		lo, hi, b := len(n.Vars), -1, -1
		for _, e := range f.Edges {
			for _, v := range e.VarsOf() {
				if block[v] >= 0 {
					lo, hi, b = min(lo, pos[v]), max(hi, pos[v]), block[v]
				}
			}
		}
		if b >= 0 {
			k[b] = max(k[b], hi-lo)
		}
	}
	return k
}

// Zero clears P and B.
func (g *GaussBlock) Zero() {
	clear(g.B)
	if g.dense != nil {
		g.dense.Zero()
		return
	}
	clear(g.band)
}

// Add adds v to P[i][j] and P[j][i] (i ≤ j; |i − j| ≤ k when banded).
func (g *GaussBlock) Add(i, j int, v float64) {
	if g.dense != nil {
		g.dense.SetSym(i, j, g.dense.At(i, j)+v)
		return
	}
	g.band[i*(g.k+1)+j-i] += v
}

var errNotPD = errors.New("the Gaussian variables' precision is not positive definite")

// Integrate returns log ∫, the posterior means and variances. It factors
// P: Draw may follow, Add and Zero start a new block.
func (g *GaussBlock) Integrate() (logZ float64, mean, vr []float64, err error) {
	return g.IntegrateDone(nil)
}

// ErrCanceled is IntegrateDone's error when done closes.
var ErrCanceled = errors.New("netjoint: canceled")

// IntegrateDone is Integrate checking done every cancelRows rows of a
// banded block's factorisation and inverse (a few milliseconds at the
// widest band), returning ErrCanceled when it closes: a band is
// unbounded in n, so a long chain stops on Ctrl-C within a fraction of
// a second.
func (g *GaussBlock) IntegrateDone(done <-chan struct{}) (logZ float64, mean, vr []float64, err error) {
	if g.dense != nil {
		return g.integrateDense()
	}
	return g.integrateBand(done)
}

func (g *GaussBlock) integrateDense() (float64, []float64, []float64, error) {
	ch := &g.chol
	if !ch.Factorize(g.dense) {
		return 0, nil, nil, errNotPD
	}
	var m mat.VecDense
	if err := ch.SolveVecTo(&m, mat.NewVecDense(g.n, append([]float64(nil), g.B...))); err != nil {
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

func (g *GaussBlock) logZ(mean []float64, logDet float64) float64 {
	g.ldet = logDet
	q := 0.0
	for i, m := range mean {
		q += m * g.B[i]
	}
	return 0.5*q + 0.5*float64(g.n)*math.Log(2*math.Pi) - 0.5*logDet
}

// integrateBand factors P = UᵀU in place (U upper with half-width k),
// solves Uᵀy = b, Um = y (backSolve), and computes the band of Σ = P⁻¹
// (selectedInverse). A pivot
// at the rounding level of its diagonal entry (pivotTol) fails as not
// positive definite.
func (g *GaussBlock) integrateBand(done <-chan struct{}) (float64, []float64, []float64, error) {
	n, k, w := g.n, g.k, g.k+1
	u := g.band
	at := func(i, j int) float64 { return u[i*w+j-i] } // i ≤ j ≤ i + k
	logU := make([]float64, n)                         // log U_ii, summed compensated: a long chain's n terms would lose digits
	for i := 0; i < n; i++ {
		if canceled(done, i) {
			return 0, nil, nil, ErrCanceled
		}
		for j := i; j < min(i+w, n); j++ {
			s := u[i*w+j-i]
			for l := max(0, j-k); l < i; l++ {
				s -= at(l, i) * at(l, j)
			}
			if j == i {
				if !(s > pivotTol(w, u[i*w])) {
					return 0, nil, nil, errNotPD
				}
				s = math.Sqrt(s)
				logU[i] = math.Log(s)
			} else {
				s /= at(i, i)
			}
			u[i*w+j-i] = s
		}
	}
	logDet := 2 * floats.SumCompensated(logU)
	mean := make([]float64, n)
	for i := 0; i < n; i++ { // Uᵀ y = b
		s := g.B[i]
		for l := max(0, i-k); l < i; l++ {
			s -= at(l, i) * mean[l]
		}
		mean[i] = s / at(i, i)
	}
	backSolve(u, n, k, mean)
	sig, err := selectedInverse(u, n, k, done)
	if err != nil {
		return 0, nil, nil, err
	}
	g.cov = sig
	vr := make([]float64, n)
	for i := range vr {
		vr[i] = sig[i*w]
	}
	return g.logZ(mean, logDet), mean, vr, nil
}

// backSolve overwrites y with the solution m of U m = y, U upper
// triangular with half-width k stored as a band (row i holds
// U[i][i..i+k]).
func backSolve(u []float64, n, k int, y []float64) {
	w := k + 1
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for l := i + 1; l < min(i+w, n); l++ {
			s -= u[i*w+l-i] * y[l]
		}
		y[i] = s / u[i*w]
	}
}

// selectedInverse returns the band of Σ = (UᵀU)⁻¹ (row i holds
// Σ[i][i..i+k]) from the banded factor U (Takahashi, Fagan & Chen 1973):
// UΣ = U⁻ᵀ is lower triangular with diagonal 1/U_ii, so row by row from
// the last, Σ_ij = (δ_ij/U_ii − Σ_{l=i+1}^{i+k} U_il Σ_lj) / U_ii for
// i ≤ j ≤ i + k, which needs only entries of Σ inside the band. On a chain
// this is the Rauch–Tung–Striebel smoother's backward recursion: row i of
// U is x_i's conditional given the later variables.
func selectedInverse(u []float64, n, k int, done <-chan struct{}) ([]float64, error) {
	w := k + 1
	sig := make([]float64, n*w)
	sigAt := func(i, j int) float64 {
		if i > j {
			i, j = j, i
		}
		return sig[i*w+j-i]
	}
	for i := n - 1; i >= 0; i-- {
		if canceled(done, i) {
			return nil, ErrCanceled
		}
		uii := u[i*w]
		for j := min(i+k, n-1); j >= i; j-- {
			s := 0.0
			if j == i {
				s = 1 / uii
			}
			for l := i + 1; l < min(i+w, n); l++ {
				s -= u[i*w+l-i] * sigAt(l, j)
			}
			sig[i*w+j-i] = s / uii
		}
	}
	return sig, nil
}

// cancelRows is the number of rows between two checks of done.
const cancelRows = 1 << 14

// canceled reports, at every cancelRows-th row i, whether done has closed.
func canceled(done <-chan struct{}, i int) bool {
	if done == nil || i%cancelRows != 0 {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// pivotTol is the smallest pivot of the band's factor taken as positive
// for a diagonal entry P_ii summed over w terms: a pivot below w·4ε·P_ii
// is rounding left of a zero one (P singular, a direction no factor
// fixes), whose inverse would be a variance of 10¹⁶ rather than an error.
func pivotTol(w int, pii float64) float64 { return float64(4*w) * 0x1p-52 * pii }

// Draw adds to dst (the posterior mean) a draw of N(0, P⁻¹): U⁻¹z with
// P = UᵀU and z ~ N(0, I), after Integrate.
func (g *GaussBlock) Draw(rng *rand.Rand, dst []float64) error {
	if g.dense == nil {
		drawBand(rng, g.band, g.n, g.k, dst)
		return nil
	}
	z := make([]float64, g.n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	var u mat.TriDense
	g.chol.UTo(&u)
	var d mat.VecDense
	if err := d.SolveVec(&u, mat.NewVecDense(g.n, z)); err != nil {
		return err
	}
	for i := range dst {
		dst[i] += d.AtVec(i)
	}
	return nil
}

// drawBand adds to dst a draw of N(0, (UᵀU)⁻¹), U⁻¹z with z ~ N(0, I),
// for U upper triangular with half-width k stored as a band.
func drawBand(rng *rand.Rand, u []float64, n, k int, dst []float64) {
	z := make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	backSolve(u, n, k, z)
	floats.Add(dst, z)
}
