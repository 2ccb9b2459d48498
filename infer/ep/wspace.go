package ep

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/internal/openblas"
)

// Weight-space EP for linear blocks and for many sites on few elements.
//
// The site-space path works with the M×M prior covariance Kf = A K Aᵀ of the
// projections f = A w: O(M²) memory, O(M²) per sequential site update and
// O(M³) per parallel refresh. When M > N (projection sites of a linear
// model, or many index sites on a few elements of a latent) the
// weight-space path keeps the N×N posterior of w instead,
//
//	Σ_w = (K⁻¹ + G)⁻¹,   G = Aᵀ T A = Σ_i τ̃_i a_i a_iᵀ,
//	μ_w = m0 + Σ_w Aᵀ(ν̃ − T f0),   f0 = A m0
//
// (rodrigues-gpc-message-passing.md eqs 4–5 written for w; qi-guo eq. 22
// for the rank-one form), which costs O(N²) per sequential site update and
// O(M N² + N³) per parallel refresh. Both paths represent the same Gaussian
// and reach the same fixed point; the tests check they agree to 1e-9.

// pathMode selects the path; autoPath is the only value outside tests.
type pathMode int

const (
	autoPath   pathMode = iota // weight space iff M > N
	sitePath                   // always site space (Kf = A K Aᵀ)
	weightPath                 // weight space whenever A ≠ I and K is positive definite
)

// weightFactor returns the lower Cholesky factor L of K (K = L Lᵀ) when the
// weight-space path applies, else nil. The weight-space path needs K
// positive definite; a singular K (a rank-deficient prior) stays on the
// site-space path, which never inverts K. It returns errCanceled when done
// closes during the factorisation.
func weightFactor(p *Problem, mode pathMode, done <-chan struct{}) (*mat.TriDense, error) {
	n := p.Cov.SymmetricDim()
	switch mode {
	case sitePath:
		return nil, nil
	case autoPath:
		if len(p.Sites) <= n {
			return nil, nil
		}
	}
	// K = UᵀU by the blocked factorisation that checks done between its
	// chunks (an O(N³) step of seconds at N = 4000), then L = Uᵀ.
	a := mat.NewSymDense(n, nil)
	a.CopySym(p.Cov)
	u, err := openblas.CholUpperDone(a.RawSymmetric(), done)
	if err != nil {
		if errors.Is(err, openblas.ErrCanceled) {
			return nil, errCanceled
		}
		return nil, nil // not positive definite: the site path then
	}
	L := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			L.SetTri(i, j, u.Data[j*u.Stride+i])
		}
	}
	return L, nil
}

// wpost is the weight-space posterior N(w; mu, sigma). G = Aᵀ T A and
// logDet = log det(I + T Kf) belong to the factorisation that produced it
// (sequential rank-one updates change mu and sigma only).
type wpost struct {
	mu     []float64
	sigma  *mat.SymDense
	G      *mat.SymDense
	logDet float64
}

// recomputeW rebuilds the weight-space posterior from the site parameters
// without K⁻¹: with K = L Lᵀ,
//
//	B = I + Lᵀ G L,   Σ_w = L B⁻¹ Lᵀ,   log det B = log det(I + T Kf)
//
// (Sylvester: det(I_N + G K) = det(I_M + T A K Aᵀ), so log Z_EP is unchanged).
// When every τ̃ ≥ 0, B is positive definite and is factored by Cholesky,
// B = Uᵀ U, Σ_w = Pᵀ P with P = U⁻ᵀ Lᵀ; otherwise B is symmetric indefinite
// and is factored by LU, and a non-positive det B (an improper posterior) is
// reported as errImproper, as in bform. The returned state carries the
// projection marginals μ_f = A μ_w and diag(A Σ_w Aᵀ) as well.
//
// The marginals, cavities and α of tight sites are then recomputed in forms
// that do not cancel (tightw.go).
func recomputeW(pr *projection, sites []families.Gaussian) (*state, error) {
	st, err := posteriorW(pr, sites)
	if err != nil {
		return nil, err
	}
	if err := st.tightenW(pr, sites); err != nil {
		return nil, err
	}
	return st, nil
}

// posteriorW is recomputeW without the tight sites' forms.
func posteriorW(pr *projection, sites []families.Gaussian) (*state, error) {
	m, n := pr.A.Dims()
	b := make([]float64, m)
	TA := mat.NewDense(m, n, nil)
	neg := false
	for i, sp := range sites {
		b[i] = sp.Shift - sp.Prec*pr.f0[i]
		neg = neg || sp.Prec < 0
		row, a := TA.RawRowView(i), pr.A.RawRowView(i)
		for j, x := range a {
			row[j] = sp.Prec * x
		}
	}
	var Gd mat.Dense
	Gd.Mul(pr.A.T(), TA)
	w := &wpost{G: symmetrize(&Gd), sigma: mat.NewSymDense(n, nil)}
	var GL, LGL mat.Dense
	GL.Mul(w.G, pr.L)
	LGL.Mul(pr.L.T(), &GL)
	B := symmetrize(&LGL)
	for i := 0; i < n; i++ {
		B.SetSym(i, i, B.At(i, i)+1)
	}
	if err := w.factor(pr.L, B, neg); err != nil {
		return nil, err
	}
	atb := mat.NewVecDense(n, nil)
	atb.MulVec(pr.A.T(), mat.NewVecDense(m, b))
	mu := mat.NewVecDense(n, nil)
	mu.MulVec(w.sigma, atb)
	w.mu = mu.RawVector().Data
	for i := range w.mu {
		w.mu[i] += pr.m0[i]
	}
	st := &state{w: w, mu: make([]float64, m), sdiag: make([]float64, m)}
	var AS mat.Dense
	AS.Mul(pr.A, w.sigma)
	for i := 0; i < m; i++ {
		a := pr.A.RawRowView(i)
		st.mu[i] = dot(a, w.mu)
		st.sdiag[i] = dot(a, AS.RawRowView(i))
		if !(st.sdiag[i] > 0) || !finite(st.mu[i]) {
			return nil, errImproper
		}
	}
	return st, nil
}

// factor sets sigma = L B⁻¹ Lᵀ and logDet = log det B.
func (w *wpost) factor(L *mat.TriDense, B *mat.SymDense, indefinite bool) error {
	n := B.SymmetricDim()
	if !indefinite {
		var ch mat.Cholesky
		if !ch.Factorize(B) {
			return errImproper
		}
		w.logDet = ch.LogDet()
		P := mat.NewDense(n, n, nil)
		P.Copy(L.T())
		blas64.Trsm(blas.Left, blas.Trans, 1, ch.RawU().(*mat.TriDense).RawTriangular(), P.RawMatrix())
		blas64.Syrk(blas.Trans, 1, P.RawMatrix(), 0, w.sigma.RawSymmetric())
		return nil
	}
	var lu mat.LU
	lu.Factorize(B)
	if c := lu.Cond(); math.IsInf(c, 1) || c > 1e16 {
		return errImproper
	}
	ld, sign := lu.LogDet()
	if sign < 0 {
		return errImproper
	}
	w.logDet = ld
	X := mat.NewDense(n, n, nil)
	if err := lu.SolveTo(X, false, L.T()); err != nil {
		return errImproper
	}
	var S mat.Dense
	S.Mul(L, X)
	w.sigma = symmetrize(&S)
	for i := 0; i < n; i++ {
		if !(w.sigma.At(i, i) > 0) {
			return errImproper
		}
	}
	return nil
}

// rankOne applies the change (Δτ, Δν) of the site on f = aᵀw, given
// s = Σ_w a, v = aᵀ Σ_w a and m = aᵀ μ_w:
//
//	Σ_w ← Σ_w − Δτ/(1 + Δτ v) · s sᵀ,   μ_w ← μ_w + s (Δν − Δτ m)/(1 + Δτ v),
//
// qi-guo eq. 22 in weight space (Sherman–Morrison on Σ_w⁻¹ + Δτ a aᵀ), O(N²)
// with one BLAS Dsyr. It returns false (changing nothing) when 1 + Δτ v ≤ 0.
func (w *wpost) rankOne(s []float64, v, m, dTau, dNu float64) bool {
	den := 1 + dTau*v
	if !(den > 0) {
		return false
	}
	g := (dNu - dTau*m) / den
	for j, c := range s {
		w.mu[j] += g * c
	}
	blas64.Syr(-dTau/den, blas64.Vector{N: len(s), Inc: 1, Data: s}, w.sigma.RawSymmetric())
	return true
}

// sweepSequentialW is sweepSequential on the weight-space path: each site's
// marginal N(aᵀμ_w, aᵀΣ_w a) comes from one Dsymv, then one rank-one update.
func (e *engine) sweepSequentialW() {
	w := e.st.w
	s := make([]float64, len(w.mu))
	raw := w.sigma.RawSymmetric()
	for _, i := range e.order() {
		if e.canceled() {
			return
		}
		a := e.pr.A.RawRowView(i)
		blas64.Symv(1, raw, blas64.Vector{N: len(a), Inc: 1, Data: a}, 0, blas64.Vector{N: len(s), Inc: 1, Data: s})
		v, m := dot(a, s), dot(a, w.mu)
		old := e.sites[i]
		tc, nc := e.st.cavityAt(i, e.r.Power, old, m, v)
		np, b, ok := e.r.proposeCavity(e.p.Sites[i], old, tc, nc)
		e.b[i] = b
		e.st.sdiag[i] = v
		if !ok || !w.rankOne(s, v, m, np.Prec-old.Prec, np.Shift-old.Shift) {
			e.stats.Skipped++
			continue
		}
		e.st.sdiag[i] = v / (1 + (np.Prec-old.Prec)*v)
		e.sites[i] = np
		e.stats.Updates++
	}
	// μ_f = A μ_w for the convergence measure. Its variances are those the
	// sites saw, each after its own update (v/(1 + Δτ v)): the exact
	// diag(A Σ_w Aᵀ) would cost another M Dsymv, as much as the sweep; the
	// two differ by the later updates of the sweep, which vanish at the
	// fixed point.
	for i := range e.st.mu {
		e.st.mu[i] = dot(e.pr.A.RawRowView(i), w.mu)
	}
}

// proper reports whether the weight-space posterior is finite with a
// positive diagonal (the check sweepSequential makes on Σ_f).
func (w *wpost) proper(muF []float64) bool {
	for i, v := range w.mu {
		if !finite(v) || !(w.sigma.At(i, i) > 0) {
			return false
		}
	}
	return finite(muF...)
}

func symmetrize(a *mat.Dense) *mat.SymDense {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(a.At(i, j)+a.At(j, i)))
		}
	}
	return s
}

func dot(a, b []float64) float64 {
	return blas64.Dot(blas64.Vector{N: len(a), Inc: 1, Data: a}, blas64.Vector{N: len(b), Inc: 1, Data: b})
}
