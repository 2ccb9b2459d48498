package ep

import (
	"github.com/fg-infer/fg/internal/openblas"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Delayed (blocked) rank-one updates of the site-space covariance.
//
// A sequential sweep applies M rank-one updates Σ ← Σ − c s sᵀ (rankOne).
// Done one by one (BLAS Dsyr), each update streams the whole M×M matrix
// through memory: once Σ no longer fits in cache (M ≳ 1000) a sweep runs at
// memory bandwidth, not at the speed of arithmetic. Here the updates are
// kept pending in factored form,
//
//	Σ = Σ0 − U diag(c) Uᵀ,   U = [s_1 … s_k] (M×k),
//
// and applied to Σ0 every delayBlock updates with matrix-matrix products
// (BLAS Dgemm on row panels of the upper triangle, M² k flops), which run
// from cache. What a site needs meanwhile is computed from the factored
// form: the column Σ e_i = Σ0 e_i − U (c ⊙ Uᵀe_i) and the variance
// Σ_ii = (Σ0)_ii − Σ_j c_j U_ij², O(M k) and O(k). The updates are those
// of qi-guo eq. 22 (c = Δτ/(1 + Δτ Σ_ii), s = Σ e_i); only the order of the
// arithmetic changes (tested against one-by-one Dsyr updates).
type delayed struct {
	s   *state
	u   *mat.Dense // M×delayBlock; the first k columns hold the pending s_j
	w   *mat.Dense // M×delayBlock; W = U diag(c), filled at flush
	c   []float64
	k   int
	col []float64
	tmp []float64
}

// delayBlock is the number of pending updates: large enough that the flush
// runs at matrix-product speed, small enough that the O(M k) column
// corrections (M² k / 2 flops a sweep) stay a fraction of the
// flushes' M³ flops a sweep.
const delayBlock = 64

// delayMin is the smallest M whose sweeps delay their updates: below it Σ
// (M² floats, 512 KiB at 256) stays in cache and one-by-one Dsyr updates
// (state.rankOne, whose rounding the small reproductions were made with)
// are as fast.
const delayMin = 4 * delayBlock

// sigmaUpdates is how a sequential sweep reads Σ_ii and applies a site
// change: one by one (direct) or delayed.
type sigmaUpdates interface {
	variance(i int) float64
	update(i int, dTau, dNu float64) bool
	flush()
}

// newSigmaUpdates returns the delayed form for M ≥ delayMin, else direct
// rank-one updates. prev, the previous sweep's (nil for the first), lends
// its buffers: a run allocates them once.
func newSigmaUpdates(s *state, prev sigmaUpdates) sigmaUpdates {
	switch p := prev.(type) {
	case *delayed:
		p.s, p.k = s, 0
		return p
	case *direct:
		p.s = s
		return p
	}
	if len(s.mu) >= delayMin {
		return newDelayed(s)
	}
	return &direct{s: s, col: make([]float64, len(s.mu))}
}

// direct applies each update at once with state.rankOne.
type direct struct {
	s   *state
	col []float64
}

func (d *direct) variance(i int) float64 { return d.s.sigma.At(i, i) }
func (d *direct) update(i int, dTau, dNu float64) bool {
	return d.s.rankOne(i, dTau, dNu, d.col)
}
func (d *direct) flush() {}

func newDelayed(s *state) *delayed {
	m := len(s.mu)
	kb := min(delayBlock, m)
	return &delayed{s: s, u: mat.NewDense(m, kb, nil), w: mat.NewDense(m, kb, nil),
		c: make([]float64, kb), col: make([]float64, m), tmp: make([]float64, kb)}
}

// variance returns Σ_ii of the current (updated) posterior.
func (d *delayed) variance(i int) float64 {
	v := d.s.sigma.At(i, i)
	row := d.u.RawRowView(i)
	for j := 0; j < d.k; j++ {
		v -= d.c[j] * row[j] * row[j]
	}
	return v
}

// update is rankOne on the factored form: it records the site change
// (Δτ, Δν) on coordinate i, updates μ at once and Σ lazily. It returns false
// (and changes nothing) when 1 + Δτ Σ_ii ≤ 0.
func (d *delayed) update(i int, dTau, dNu float64) bool {
	vi := d.variance(i)
	den := 1 + dTau*vi
	if !(den > 0) {
		return false
	}
	d.s.carry(den)
	column(d.s.sigma.RawSymmetric(), i, d.col)
	if d.k > 0 {
		// col ← Σ0 e_i − U_k (c ⊙ U_k[i,:])
		row := d.u.RawRowView(i)
		for j := 0; j < d.k; j++ {
			d.tmp[j] = d.c[j] * row[j]
		}
		ur := d.u.RawMatrix()
		blas64.Gemv(blas.NoTrans, -1, blas64.General{Rows: ur.Rows, Cols: d.k, Stride: ur.Stride, Data: ur.Data},
			blas64.Vector{N: d.k, Inc: 1, Data: d.tmp}, 1, blas64.Vector{N: len(d.col), Inc: 1, Data: d.col})
	}
	g := (dNu - dTau*d.s.mu[i]) / den
	for j, c := range d.col {
		d.s.mu[j] += g * c
	}
	d.u.SetCol(d.k, d.col)
	d.c[d.k] = dTau / den
	d.k++
	if d.k == len(d.c) {
		d.flush()
	}
	return true
}

// flush applies the pending updates to Σ0: Σ0 ← Σ0 − W Uᵀ (W = U diag(c))
// on the upper triangle (openblas.UpperNT: on the pure-Go build the packed
// fused multiply–add micro-kernel, GOMAXPROCS goroutines sharing its row
// blocks).
func (d *delayed) flush() {
	if d.k == 0 {
		return
	}
	m := len(d.s.mu)
	ur, wr := d.u.RawMatrix(), d.w.RawMatrix()
	for i := 0; i < m; i++ {
		urow, wrow := ur.Data[i*ur.Stride:i*ur.Stride+d.k], wr.Data[i*wr.Stride:i*wr.Stride+d.k]
		for j, x := range urow {
			wrow[j] = d.c[j] * x
		}
	}
	w := blas64.General{Rows: m, Cols: d.k, Stride: wr.Stride, Data: wr.Data}
	u := blas64.General{Rows: m, Cols: d.k, Stride: ur.Stride, Data: ur.Data}
	openblas.UpperNT(-1, w, u, d.s.sigma.RawSymmetric())
	d.k = 0
}
