package ep

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// state is the EP posterior over the site projections f (M-dimensional):
// mean mu and either the full covariance sigma (sequential schedules, which
// need the column Σ a_i for every rank-1 update) or only its diagonal sdiag
// (parallel schedule).
type state struct {
	mu    []float64
	sigma *mat.SymDense // nil in parallel mode
	sdiag []float64
	bf    *bform
	w     *wpost // weight-space path (then sigma and bf are nil)
}

// logDet returns log det(I + T Kf) of the factorisation behind s.
func (s *state) logDet() float64 {
	if s.w != nil {
		return s.w.logDet
	}
	return s.bf.logDet
}

func (s *state) variance(i int) float64 {
	if s.sigma != nil {
		return s.sigma.At(i, i)
	}
	return s.sdiag[i]
}

// recompute rebuilds the posterior from the site parameters:
//
//	Σ = Kf − Kf S B⁻¹ S Kf,   μ = f0 + Σ (ν̃ − T f0)
//
// (rodrigues eqs 4–5 with a prior mean), with one factorisation of B
// (see bform). full selects the whole Σ (a symmetric rank-M update,
// Syrk) rather than only its diagonal.
func recompute(pr *projection, sites []SiteParam, full bool) (*state, error) {
	m := len(sites)
	tau, b := siteVectors(pr, sites)
	bf, err := newBform(pr.Kf, tau)
	if err != nil {
		return nil, err
	}
	P, Q := bf.quadForm(pr.Kf)
	st := &state{bf: bf}
	kb := mat.NewVecDense(m, nil)
	kb.MulVec(pr.Kf, mat.NewVecDense(m, b))
	st.mu = reduce(P, Q, b, kb.RawVector().Data)
	for i := range st.mu {
		st.mu[i] += pr.f0[i]
	}
	if full {
		st.sigma = mat.NewSymDense(m, nil)
		st.sigma.CopySym(pr.Kf)
		if !bf.indefinite {
			blas64.Syrk(blas.Trans, -1, P.RawMatrix(), 1, st.sigma.RawSymmetric())
		} else {
			R := mat.NewDense(m, m, nil)
			R.Mul(P.T(), Q)
			for i := 0; i < m; i++ {
				for j := i; j < m; j++ {
					st.sigma.SetSym(i, j, st.sigma.At(i, j)-0.5*(R.At(i, j)+R.At(j, i)))
				}
			}
		}
		st.sdiag = make([]float64, m)
		for i := range st.sdiag {
			st.sdiag[i] = st.sigma.At(i, i)
		}
	} else {
		red := colDot(P, Q)
		st.sdiag = make([]float64, m)
		for i := range st.sdiag {
			st.sdiag[i] = pr.Kf.At(i, i) - red[i]
		}
	}
	for i, v := range st.sdiag {
		if !(v > 0) || !finite(st.mu[i]) {
			return nil, errImproper
		}
	}
	return st, nil
}

// settle is recompute for the end of a sequential site-space run, whose
// running Σ the rank-one updates kept exact up to rounding (and refreshed
// every Refresh sweeps): it factors B once (log det for log Z, and the
// factorisation predictions use), recomputes μ = f0 + Kf b − Kf S B⁻¹ S Kf b
// from it with O(M²) matrix-vector products and solves, and takes the
// variances from the diagonal of the running Σ — instead of the M³
// triangular solve recompute spends on diag Σ.
func settle(pr *projection, sites []SiteParam, sigma *mat.SymDense) (*state, error) {
	m := len(sites)
	tau, b := siteVectors(pr, sites)
	bf, err := newBform(pr.Kf, tau)
	if err != nil {
		return nil, err
	}
	kb := mat.NewVecDense(m, nil)
	kb.MulVec(pr.Kf, mat.NewVecDense(m, b))
	x := mat.NewVecDense(m, nil)
	for i := range m {
		x.SetVec(i, bf.s[i]*kb.AtVec(i))
	}
	if err := bf.solveVec(x); err != nil {
		return nil, errImproper
	}
	for i := range m {
		x.SetVec(i, bf.s[i]*x.AtVec(i))
	}
	corr := mat.NewVecDense(m, nil)
	corr.MulVec(pr.Kf, x)
	st := &state{bf: bf, mu: make([]float64, m), sdiag: make([]float64, m)}
	for i := range m {
		st.mu[i] = pr.f0[i] + kb.AtVec(i) - corr.AtVec(i)
		st.sdiag[i] = sigma.At(i, i)
		if !(st.sdiag[i] > 0) || !finite(st.mu[i]) {
			return nil, errImproper
		}
	}
	return st, nil
}

// siteVectors returns the site precisions τ̃ and b = ν̃ − T f0.
func siteVectors(pr *projection, sites []SiteParam) (tau, b []float64) {
	tau, b = make([]float64, len(sites)), make([]float64, len(sites))
	for i, sp := range sites {
		tau[i] = sp.Tau
		b[i] = sp.Nu - sp.Tau*pr.f0[i]
	}
	return tau, b
}

// priorState is the posterior with every site flat: μ = f0 and Σ = Kf (its
// diagonal only when full is false). It has no factorisation (bf is nil):
// the engine's first sweep replaces it.
func priorState(pr *projection, full bool) (*state, error) {
	m := len(pr.f0)
	st := &state{mu: append([]float64(nil), pr.f0...), sdiag: make([]float64, m)}
	for i := range st.sdiag {
		st.sdiag[i] = pr.Kf.At(i, i)
		if !(st.sdiag[i] > 0) || !finite(st.mu[i]) {
			return nil, errImproper
		}
	}
	if full {
		st.sigma = mat.NewSymDense(m, nil)
		st.sigma.CopySym(pr.Kf)
	}
	return st, nil
}

// column copies column i of the symmetric matrix stored in the upper
// triangle of raw into dst.
func column(raw blas64.Symmetric, i int, dst []float64) {
	n, st := raw.N, raw.Stride
	for j := 0; j < i; j++ {
		dst[j] = raw.Data[j*st+i]
	}
	copy(dst[i:n], raw.Data[i*st+i:i*st+n])
}

// rankOne applies the site change (Δτ, Δν) on coordinate i:
//
//	Σ ← Σ − Δτ/(1 + Δτ Σ_ii) · s sᵀ,   μ ← μ + s (Δν − Δτ μ_i)/(1 + Δτ Σ_ii),   s = Σ e_i,
//
// qi-guo eq. 22 (A ← A − a_i a_iᵀ/(δ + A_ii) with δ = 1/Δτ), the O(M²)
// sequential update, applied to the upper triangle row by row with the
// assembly axpy of gonum/floats (gonum's Dsyr is a scalar loop; this makes
// a sweep about twice as fast, with the same arithmetic). It
// returns false (and changes nothing) when 1 + Δτ Σ_ii ≤ 0, i.e. when the
// update would make the posterior improper.
func (s *state) rankOne(i int, dTau, dNu float64, col []float64) bool {
	raw := s.sigma.RawSymmetric()
	vi := raw.Data[i*raw.Stride+i]
	den := 1 + dTau*vi
	if !(den > 0) {
		return false
	}
	column(raw, i, col)
	g := (dNu - dTau*s.mu[i]) / den
	for j, c := range col {
		s.mu[j] += g * c
	}
	a, n, st := -dTau/den, len(col), raw.Stride
	for r := 0; r < n; r++ {
		if t := a * col[r]; t != 0 {
			floats.AddScaled(raw.Data[r*st+r:r*st+n], t, col[r:n])
		}
	}
	return true
}
