package ep

import (
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/internal/openblas"
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
	cav   []families.Gaussian // stable u = 1 cavities of the tight sites (tight.go; Prec = 0: none computed, the site is not tight or its cavity not proper), or nil
	w     *wpost              // weight-space path (then sigma and bf are nil)
	// alpha holds α_i = ν̃_i − τ̃_i μ_i of the weight-space path's tight
	// sites, computed without cancelling (tightw.go; NaN elsewhere), or nil.
	alpha []float64
	// tracking is set when runLogDet is carried through the rank-one
	// updates (Settings.Incremental): runLogDet is then log det(I + T Kf)
	// at the current sites.
	tracking  bool
	runLogDet float64
}

// logDet returns log det(I + T Kf) at the sites of s: carried through the
// updates, or from the factorisation behind s.
func (s *state) logDet() float64 {
	switch {
	case s.w != nil:
		return s.w.logDet
	case s.tracking:
		return s.runLogDet
	}
	return s.bf.logDet
}

// carry multiplies the carried det(I + T Kf) by den = 1 + Δτ Σ_ii, the
// factor a site change Δτ on coordinate i applies (matrix determinant
// lemma: det(Kf⁻¹ + T + Δτ e_i e_iᵀ) = det(Kf⁻¹ + T)(1 + Δτ Σ_ii)).
func (s *state) carry(den float64) {
	if s.tracking {
		s.runLogDet += math.Log(den)
	}
}

func (s *state) variance(i int) float64 {
	if s.sigma != nil {
		return s.sigma.At(i, i)
	}
	return s.sdiag[i]
}

// scratch is what a refactorisation may reuse and what interrupts it: the
// done channel of the run (nil: never), spare storage for B (M² floats, see
// newBform) and, for a full recomputation, the M×M matrix to overwrite with
// the new Σ (the running Σ it replaces). A recomputation that fails or is
// canceled leaves sigma's contents undefined.
type scratch struct {
	done  <-chan struct{}
	b     []float64
	sigma *mat.SymDense
}

// recompute rebuilds the posterior from the site parameters:
//
//	Σ = Kf − Kf S B⁻¹ S Kf,   μ = f0 + Σ (ν̃ − T f0)
//
// (rodrigues eqs 4–5 with a prior mean), with one factorisation of B
// (see bform). full selects the whole Σ rather than only its diagonal.
// In the Cholesky case, V = U⁻ᵀ S Kf (one triangular solve with M
// right-hand sides), μ = f0 + Kf α (posteriorMean) and Σ = Kf − Vᵀ V; a
// full recomputation forms V in Σ's own storage and overwrites it with Σ
// (sigmaFromV), so that it needs no M×M matrix beyond Kf, B and Σ. The
// marginals and cavities of tight sites are then recomputed in forms that
// do not cancel (tight.go).
func recompute(pr *projection, sites []families.Gaussian, full bool, sc scratch) (*state, error) {
	tau, _ := siteVectors(pr, sites)
	bf, err := newBform(pr.Kf, tau, sc.b, sc.done)
	if err != nil {
		return nil, err
	}
	var st *state
	switch {
	case bf.indefinite:
		st, err = recomputeLU(pr, bf, sites, full, sc)
	case !full:
		st, err = recomputeDiag(pr, bf, sites, sc.done)
	default:
		st, err = recomputeFull(pr, bf, sites, sc)
	}
	if err != nil {
		return nil, err
	}
	if err := st.tighten(pr, sites); err != nil {
		return nil, err
	}
	return st.checked()
}

// recomputeFull is recompute's Cholesky case with the whole Σ.
func recomputeFull(pr *projection, bf *bform, sites []families.Gaussian, sc scratch) (*state, error) {
	m := len(sites)
	mu, err := posteriorMean(pr, bf, sites)
	if err != nil {
		return nil, err
	}
	st := &state{bf: bf, mu: mu, sdiag: make([]float64, m)}
	var V *mat.Dense
	switch {
	case sc.sigma != nil && sc.sigma.RawSymmetric().Stride == m:
		st.sigma = sc.sigma
		V = mat.NewDense(m, m, sc.sigma.RawSymmetric().Data[:m*m])
	default:
		st.sigma = mat.NewSymDense(m, nil)
		V = mat.NewDense(m, m, st.sigma.RawSymmetric().Data)
	}
	scaledKf(pr.Kf, bf.s, V)
	if err := solveUpperTrans(bf.u, V.RawMatrix(), sc.done); err != nil {
		return nil, err
	}
	for i := range st.mu {
		st.mu[i] += pr.f0[i]
	}
	if err := sigmaFromV(pr.Kf, V, sc.done); err != nil {
		return nil, err
	}
	for i := range st.sdiag {
		st.sdiag[i] = st.sigma.At(i, i)
	}
	return st, nil
}

// diagChunk is the column-chunk width of recomputeDiag.
const diagChunk = 256

// recomputeDiag is recompute without the full Σ (parallel sweeps, the end
// of a small sequential run): μ by O(M²) solves (posteriorMean) and
// diag Σ = diag Kf − Σ_i V_ij² with V = U⁻ᵀ S Kf formed by column chunks
// of diagChunk (the M³ flops of one triangular solve with M right-hand
// sides, in M×diagChunk of memory instead of M×M).
func recomputeDiag(pr *projection, bf *bform, sites []families.Gaussian, done <-chan struct{}) (*state, error) {
	m := len(sites)
	mu, err := posteriorMean(pr, bf, sites)
	if err != nil {
		return nil, err
	}
	st := &state{bf: bf, mu: mu, sdiag: make([]float64, m)}
	kr := pr.Kf.RawSymmetric()
	buf := make([]float64, m*min(m, diagChunk))
	for c0 := 0; c0 < m; c0 += diagChunk {
		c1 := min(c0+diagChunk, m)
		w := c1 - c0
		v := blas64.General{Rows: m, Cols: w, Stride: w, Data: buf[:m*w]}
		for i := 0; i < m; i++ {
			row := v.Data[i*w : (i+1)*w]
			for j := c0; j < c1; j++ {
				row[j-c0] = bf.s[i] * kr.Data[min(i, j)*kr.Stride+max(i, j)]
			}
		}
		if err := solveUpperTrans(bf.u, v, done); err != nil {
			return nil, err
		}
		for j := c0; j < c1; j++ {
			st.sdiag[j] = kr.Data[j*kr.Stride+j]
		}
		for i := 0; i < m; i++ {
			for j, x := range v.Data[i*w : (i+1)*w] {
				st.sdiag[c0+j] -= x * x
			}
		}
	}
	for i := range st.mu {
		st.mu[i] += pr.f0[i]
	}
	return st, nil
}

// posteriorMean returns μ − f0 = Kf α (posteriorAlpha), with O(M²)
// matrix-vector products and solves (errImproper when B is too
// ill-conditioned to solve with). The textbook Kf b − Kf S B⁻¹ S Kf b
// subtracts two O(τ̃) vectors when a site precision is large (a Gaussian
// site with tiny noise; see tight.go).
func posteriorMean(pr *projection, bf *bform, sites []families.Gaussian) ([]float64, error) {
	alpha, err := posteriorAlpha(pr, bf, sites)
	if err != nil {
		return nil, err
	}
	mu := mat.NewVecDense(len(alpha), nil)
	mu.MulVec(pr.Kf, mat.NewVecDense(len(alpha), alpha))
	return mu.RawVector().Data, nil
}

// posteriorAlpha returns α = Kf⁻¹(μ − f0) = ν̃ − T μ (GPML infEP's alpha)
// in O(M²), in a form that subtracts no two O(τ̃) numbers. With
// b = ν̃ − T f0 split as b = T P m̃' + b_L — P selecting the sites with
// |τ̃_i| Kf_ii ≥ 1, m̃' = m̃ − f0 their site means less the prior mean, b_L
// the rest of b (the looser sites, flat ones included) — and
// B = D + S Kf S (bform), S Kf S = B − D gives
// T P m̃' − S B⁻¹ S Kf T P m̃' = S B⁻¹ S P m̃', so
//
//	α = b_L + S B⁻¹ (S P m̃' − S Kf b_L),   S m̃' = D ν̃/√|τ̃| − S f0,
//
// which for Gaussian sites is GPML's alpha = sW.*solve_chol(L, sW.*y).
// The form b − S B⁻¹ S Kf b (GPML infEP) loses ε τ̃ Kf_ii relative to the
// result; S m̃' would instead grow without bound as τ̃ → 0 at a fixed ν̃,
// hence the split. α is not formed as ν̃ − T μ either: that difference
// cancels, and its rounding (ε|τ̃ μ_i| a site) is summed by K Aᵀ α over all
// M sites — on spam (M = 3067) the weight means and predictions came out
// ~1e-9 off, against ~1e-12 here (TestSpamWeightSpace).
func posteriorAlpha(pr *projection, bf *bform, sites []families.Gaussian) ([]float64, error) {
	m := len(sites)
	bl := make([]float64, m)
	kr := pr.Kf.RawSymmetric()
	loose := false
	for i, sp := range sites {
		if math.Abs(sp.Prec)*kr.Data[i*kr.Stride+i] < 1 {
			bl[i] = sp.Shift - sp.Prec*pr.f0[i]
			loose = loose || bl[i] != 0
		}
	}
	x := mat.NewVecDense(m, nil)
	if loose {
		x.MulVec(pr.Kf, mat.NewVecDense(m, bl))
	}
	for i, sp := range sites {
		s := bf.s[i]
		x.SetVec(i, -s*x.AtVec(i))
		switch {
		case math.Abs(sp.Prec)*kr.Data[i*kr.Stride+i] < 1:
		case sp.Prec > 0:
			x.SetVec(i, x.AtVec(i)+sp.Shift/s-s*pr.f0[i])
		default:
			x.SetVec(i, x.AtVec(i)-sp.Shift/s-s*pr.f0[i])
		}
	}
	if err := bf.solveVec(x); err != nil {
		return nil, errImproper
	}
	for i := range bl {
		bl[i] += bf.s[i] * x.AtVec(i)
	}
	return bl, nil
}

// proper checks the marginal variances and means of a recomputed state.
func (s *state) proper() error {
	for i, v := range s.sdiag {
		if !(v > 0) || !finite(s.mu[i]) {
			return errImproper
		}
	}
	return nil
}

// checked returns s, or nil and errImproper when s is not proper.
func (s *state) checked() (*state, error) {
	if err := s.proper(); err != nil {
		return nil, err
	}
	return s, nil
}

// scaledKf fills the M×M matrix V with S Kf (both triangles; Kf holds
// its upper one).
func scaledKf(Kf *mat.SymDense, s []float64, V *mat.Dense) {
	kr, vr := Kf.RawSymmetric(), V.RawMatrix()
	m := kr.N
	for i := 0; i < m; i++ {
		krow, vrow := kr.Data[i*kr.Stride:i*kr.Stride+m], vr.Data[i*vr.Stride:i*vr.Stride+m]
		for j := i; j < m; j++ {
			vrow[j] = s[i] * krow[j]
			vr.Data[j*vr.Stride+i] = s[j] * krow[j]
		}
	}
}

// sigmaFromV overwrites V (M×M) with the upper triangle of Σ = Kf − Vᵀ V,
// by block columns J = [j0, j1) from the last to the first:
// Σ[0:j1, J] = Kf[0:j1, J] − V[:, 0:j1]ᵀ V[:, J] (Gemm into an M×cholBlock
// buffer by openblas.GemmTN, on GOMAXPROCS goroutines in the pure-Go build,
// row chunks of at most openblas.ChunkFlops with a check of done between
// them), then written over V[0:j1, J]. The blocks still to come read only
// V's columns left of j0, which are not yet overwritten. The flops are
// those of one Syrk (M³).
func sigmaFromV(Kf *mat.SymDense, V *mat.Dense, done <-chan struct{}) error {
	vr, kr := V.RawMatrix(), Kf.RawSymmetric()
	m := vr.Rows
	t := make([]float64, m*cholBlock)
	last := (m - 1) / cholBlock * cholBlock
	step := openblas.ChunkCols(cholBlock, m)
	for j0 := last; j0 >= 0; j0 -= cholBlock {
		j1 := min(j0+cholBlock, m)
		w := j1 - j0
		for r0 := 0; r0 < j1; r0 += step {
			if openblas.Done(done) {
				return errCanceled
			}
			r1 := min(r0+step, j1)
			openblas.GemmTN(1,
				blas64.General{Rows: m, Cols: r1 - r0, Stride: vr.Stride, Data: vr.Data[r0:]},
				blas64.General{Rows: m, Cols: w, Stride: vr.Stride, Data: vr.Data[j0:]}, 0,
				blas64.General{Rows: r1 - r0, Cols: w, Stride: w, Data: t[r0*w:]})
		}
		for i := 0; i < j1; i++ {
			trow, krow, vrow := t[i*w:(i+1)*w], kr.Data[i*kr.Stride:], vr.Data[i*vr.Stride:]
			for j := max(j0, i); j < j1; j++ {
				vrow[j] = krow[j] - trow[j-j0]
			}
		}
	}
	return nil
}

// recomputeLU is recompute when some site precision is negative (B
// factored by LU): Σ = Kf − ½(Pᵀ Q + Qᵀ P) with P = S Kf, Q = B⁻¹ S Kf.
func recomputeLU(pr *projection, bf *bform, sites []families.Gaussian, full bool, sc scratch) (*state, error) {
	m := len(sites)
	mu, err := posteriorMean(pr, bf, sites)
	if err != nil {
		return nil, err
	}
	P, Q := bf.quadForm(pr.Kf)
	st := &state{bf: bf, mu: mu, sdiag: make([]float64, m)}
	for i := range st.mu {
		st.mu[i] += pr.f0[i]
	}
	if !full {
		red := colDot(P, Q)
		for i := range st.sdiag {
			st.sdiag[i] = pr.Kf.At(i, i) - red[i]
		}
		return st, nil
	}
	st.sigma = sc.sigma
	if st.sigma == nil {
		st.sigma = mat.NewSymDense(m, nil)
	}
	st.sigma.CopySym(pr.Kf)
	R := mat.NewDense(m, m, nil)
	R.Mul(P.T(), Q)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			st.sigma.SetSym(i, j, st.sigma.At(i, j)-0.5*(R.At(i, j)+R.At(j, i)))
		}
	}
	for i := range st.sdiag {
		st.sdiag[i] = st.sigma.At(i, i)
	}
	return st, nil
}

// running is the final state of an Incremental run as the rank-one updates
// left it: μ and Σ as they are, diag Σ copied into sdiag, log det carried
// (Settings.Incremental). It has no factorisation.
func (s *state) running() *state {
	s.sdiag = s.sdiag[:0]
	for i := range s.mu {
		s.sdiag = append(s.sdiag, s.sigma.At(i, i))
	}
	return s
}

// settle is recompute for the end of a sequential site-space run, whose
// running Σ the rank-one updates kept exact up to rounding (and refreshed
// every Refresh sweeps): it factors B once (log det for log Z, and the
// factorisation predictions use), recomputes μ = f0 + Kf b − Kf S B⁻¹ S Kf b
// from it with O(M²) matrix-vector products and solves, and takes the
// variances from the diagonal of the running Σ — instead of the M³
// triangular solve recompute spends on diag Σ.
func settle(pr *projection, sites []families.Gaussian, sigma *mat.SymDense, sc scratch) (*state, error) {
	m := len(sites)
	tau, _ := siteVectors(pr, sites)
	bf, err := newBform(pr.Kf, tau, sc.b, sc.done)
	if err != nil {
		return nil, err
	}
	mu, err := posteriorMean(pr, bf, sites)
	if err != nil {
		return nil, err
	}
	st := &state{bf: bf, mu: mu, sdiag: make([]float64, m)}
	for i := range m {
		st.mu[i] += pr.f0[i]
		st.sdiag[i] = sigma.At(i, i)
	}
	if err := st.tighten(pr, sites); err != nil {
		return nil, err
	}
	return st.checked()
}

// siteVectors returns the site precisions τ̃ and b = ν̃ − T f0.
func siteVectors(pr *projection, sites []families.Gaussian) (tau, b []float64) {
	tau, b = make([]float64, len(sites)), make([]float64, len(sites))
	for i, sp := range sites {
		tau[i] = sp.Prec
		b[i] = sp.Shift - sp.Prec*pr.f0[i]
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
	s.carry(den)
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
