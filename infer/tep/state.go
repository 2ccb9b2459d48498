package tep

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/tfam"
)

// state is the t-EP state in whitened coordinates u = L0⁻¹ w: the prior
// θ0 = (h0, λ0 I), the sites θⱼ = (hⱼ, Pⱼ) and their sum θ = (h, P).
type state struct {
	nu, t float64
	k     int
	sites []Site
	l0    mat.TriDense // Σ0 = L0 L0ᵀ
	cw    float64      // log of the w/u scale factor |L0|^{2/(ν+k)}
	g     [][]float64  // whitened projections gⱼ = L0ᵀ aⱼ
	lam0  float64      // prior precision λ0 = (ν+k)Ψ0/ν (Σ_u = I)
	m0    []float64    // prior location L0⁻¹ μ0
	h0    []float64    // λ0 m0
	siteP [][]float64  // packed upper triangles of Pⱼ (nil: zero site)
	siteH [][]float64  // hⱼ (nil: zero site)
	lnC   []float64    // ln_t C̃ⱼ in w coordinates (evidence.go)
	P     *mat.SymDense
	h     []float64
	cav   *cavity // scratch for cavityOf
}

var errNotPD = errors.New("tep: prior scale matrix is not positive definite")

// newState whitens the problem and sets every site to zero.
func newState(p *Problem) (*state, error) {
	k := p.Dim()
	var ch mat.Cholesky
	if !ch.Factorize(p.Scale) {
		return nil, errNotPD
	}
	st := &state{nu: p.Nu, t: tfam.TOf(p.Nu, k), k: k, sites: p.Sites}
	ch.LTo(&st.l0)
	st.cw = ch.LogDet() / (p.Nu + float64(k))
	st.lam0 = (p.Nu + float64(k)) * math.Exp(-2/(p.Nu+float64(k))*tfam.LogNormConst(p.Nu, k)) / p.Nu
	st.m0 = make([]float64, k)
	if p.Mean != nil {
		v := mat.NewVecDense(k, st.m0)
		if err := v.SolveVec(&st.l0, mat.NewVecDense(k, append([]float64(nil), p.Mean...))); err != nil {
			return nil, errNotPD
		}
	}
	st.h0 = scaled(st.lam0, st.m0)
	st.g = make([][]float64, len(p.Sites))
	for j, s := range p.Sites {
		st.g[j] = st.whiten(s.proj(k))
	}
	st.siteP = make([][]float64, len(p.Sites))
	st.siteH = make([][]float64, len(p.Sites))
	st.lnC = make([]float64, len(p.Sites))
	st.refresh()
	return st, nil
}

// whiten returns L0ᵀ a.
func (st *state) whiten(a []float64) []float64 {
	v := mat.NewVecDense(st.k, nil)
	v.MulVec(st.l0.T(), mat.NewVecDense(st.k, a))
	return v.RawVector().Data
}

// refresh recomputes θ = θ0 + Σⱼ θⱼ from scratch (once per sweep, so that
// rounding in the incremental updates does not accumulate).
func (st *state) refresh() {
	k := st.k
	if st.P == nil {
		st.P = mat.NewSymDense(k, nil)
	}
	raw := st.P.RawSymmetric()
	for i := 0; i < k; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+k]
		for j := i; j < k; j++ {
			row[j] = 0
		}
		row[i] = st.lam0
	}
	st.h = append(st.h[:0], st.h0...)
	for j := range st.siteP {
		if st.siteP[j] != nil {
			addPacked(raw, st.siteP[j], 1)
			axpy(1, st.siteH[j], st.h)
		}
	}
}

// addPacked adds c times the packed upper triangle pk to the symmetric matrix.
func addPacked(raw blas64.Symmetric, pk []float64, c float64) {
	n, o := raw.N, 0
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
		seg := pk[o : o+n-i]
		for j := range row {
			row[j] += c * seg[j]
		}
		o += n - i
	}
}

// packUpper returns the packed upper triangle of a·M + b·ggᵀ.
func packUpper(raw blas64.Symmetric, a, b float64, g []float64) []float64 {
	n := raw.N
	out := make([]float64, 0, n*(n+1)/2)
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			out = append(out, a*row[j]+b*g[i]*g[j])
		}
	}
	return out
}

func scaled(c float64, x []float64) []float64 {
	out := make([]float64, len(x))
	for i := range x {
		out[i] = c * x[i]
	}
	return out
}

func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
}

func dot(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}
