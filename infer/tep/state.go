package tep

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/tfam"
)

// state is the t-EP state in whitened coordinates u = L0⁻¹ w. The prior is
// θ0 = (h0, λ0 I); site j is stored relative to the current posterior θ as
// three scalars (see the package doc, "Site representation"),
//
//	θⱼ = cⱼ θ + (eⱼ gⱼ, dⱼ gⱼgⱼᵀ),
//
// so θ = θ0 + Σⱼ θⱼ is θ = (b, A)/γ with
//
//	A = λ0 I + Σⱼ dⱼ gⱼgⱼᵀ,   b = h0 + Σⱼ eⱼ gⱼ,   γ = 1 − Σⱼ cⱼ.
//
// The state keeps the Cholesky factor of A (rank-one updates, O(k²)) and
// μA = A⁻¹b, which is also the posterior location (γ cancels). Under ADF
// (one pass, q ← proj(q·lⱼ)) γ is carried as a product instead and the
// relative scalars cⱼ are unused.
type state struct {
	nu, t  float64
	k      int
	sites  []Site
	l0     mat.TriDense  // Σ0 = L0 L0ᵀ
	scale0 mat.Symmetric // Σ0
	cw     float64       // log of the w/u scale factor |L0|^{2/(ν+k)}
	g      [][]float64   // whitened projections gⱼ = L0ᵀ aⱼ
	lam0   float64       // prior precision λ0 = (ν+k)Ψ0/ν (Σ_u = I)
	m0     []float64     // prior location L0⁻¹ μ0
	h0     []float64     // λ0 m0
	c      []float64     // relative sites: θⱼ = cⱼθ + (eⱼgⱼ, dⱼgⱼgⱼᵀ)
	d, e   []float64
	lnC    []float64 // ln_t C̃ⱼ in w coordinates (evidence.go)
	adf    bool      // γ is carried (ADF), not 1 − Σc

	a     *mat.SymDense // A as of the last refresh
	chol  mat.Cholesky  // factor of A as of the last refresh (finish)
	f     upper         // factor of the current A (rank-one updates)
	b     []float64
	muA   []float64 // A⁻¹b
	gamma float64
	valid bool      // f, muA and γ describe a positive definite posterior
	y, x  []float64 // scratch: y = A⁻¹gⱼ of the last siteCavity; x for rankOne
}

// refreshCheck is how many sites' rank-one updates (O(k²) each) refresh
// makes between checks of its context.
const refreshCheck = 16

var errNotPD = errors.New("tep: prior scale matrix is not positive definite")

// newState whitens the problem and sets every site to zero.
func newState(p *Problem) (*state, error) {
	k := p.Dim()
	var ch mat.Cholesky
	if !ch.Factorize(p.Scale) {
		return nil, errNotPD
	}
	st := &state{nu: p.Nu, t: tfam.TOf(p.Nu, k), k: k, sites: p.Sites, gamma: 1, scale0: p.Scale}
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
	n := len(p.Sites)
	st.g = make([][]float64, n)
	for j, s := range p.Sites {
		if s.Proj == nil {
			st.g[j] = st.whitenIndex(s.Index)
			continue
		}
		st.g[j] = st.whiten(s.Proj)
	}
	st.c, st.d, st.e, st.lnC = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	if !st.refresh(context.Background()) {
		return nil, errNotPD
	}
	return st, nil
}

// whiten returns L0ᵀ a.
func (st *state) whiten(a []float64) []float64 {
	v := mat.NewVecDense(st.k, nil)
	v.MulVec(st.l0.T(), mat.NewVecDense(st.k, a))
	return v.RawVector().Data
}

// whitenIndex is whiten(e_i) = L0ᵀe_i, row i of L0, in O(k) instead of
// O(k²) (index sites are the common case: a GP with one site per input).
func (st *state) whitenIndex(i int) []float64 {
	g := make([]float64, st.k)
	for c := 0; c <= i; c++ {
		g[c] = st.l0.At(i, c)
	}
	return g
}

// refresh recomputes A, b, γ (EP), the Cholesky factor of A and μA from the
// sites (once per sweep, so that rounding in the rank-one updates does not
// accumulate; O(n k² + k³)). It returns false, and marks the state invalid,
// when γ ≤ 0 or A is not positive definite (the posterior precision A/γ is
// then not positive definite). ctx is checked every refreshCheck sites; a
// canceled refresh returns false and leaves f, μA, γ and valid as they
// were (only the scratch A is spoiled).
func (st *state) refresh(ctx context.Context) bool {
	k := st.k
	if st.a == nil {
		st.a = mat.NewSymDense(k, nil)
	}
	raw := st.a.RawSymmetric()
	for i := 0; i < k; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+k]
		for j := i; j < k; j++ {
			row[j] = 0
		}
		row[i] = st.lam0
	}
	st.b = append(st.b[:0], st.h0...)
	gamma := 1.0
	for j, dj := range st.d {
		if j%refreshCheck == 0 && ctx.Err() != nil {
			return false
		}
		if dj != 0 {
			st.a.SymRankOne(st.a, dj, mat.NewVecDense(k, st.g[j]))
		}
		axpy(st.e[j], st.g[j], st.b)
		gamma -= st.c[j]
	}
	if !st.adf {
		st.gamma = gamma
	}
	st.valid = st.gamma > 0 && !math.IsInf(st.gamma, 0) && st.factorA()
	if !st.valid {
		return false
	}
	st.f.set(&st.chol, k)
	if len(st.muA) != k {
		st.muA, st.y, st.x = make([]float64, k), make([]float64, k), make([]float64, k)
	}
	st.f.solve(st.muA, st.b)
	st.valid = finite(st.muA)
	return st.valid
}

// atPrior reports whether the posterior precision is the prior's: every
// dⱼ = 0 and γ = 1 (A = λ0 I).
func (st *state) atPrior() bool {
	if st.gamma != 1 {
		return false
	}
	for _, d := range st.d {
		if d != 0 {
			return false
		}
	}
	return true
}

// factorA factors A into st.chol. With every dⱼ = 0 (the initial state)
// A = λ0 I and the factor is √λ0 I, set in O(k²) instead of the O(k³)
// Cholesky that made a canceled t-EP run on 1500 points late.
func (st *state) factorA() bool {
	for _, d := range st.d {
		if d != 0 {
			return st.chol.Factorize(st.a)
		}
	}
	if !(st.lam0 > 0) || math.IsInf(st.lam0, 0) {
		return false
	}
	u := mat.NewTriDense(st.k, mat.Upper, nil)
	r := math.Sqrt(st.lam0)
	for i := range st.k {
		u.SetTri(i, i, r)
	}
	st.chol.Reset()
	st.chol.SetFromU(u)
	return true
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
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
