package ep

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
)

// fitcPrior is the FITC prior in low-rank form (see fitc.go): the rows
// v_iᵀ = k_u(x_i)ᵀ U_u⁻¹ of Vt (n×m), with U_uᵀU_u = K_uu + snu2 I, so
// that Q = Vt Vtᵀ, and the diagonal g.
type fitcPrior struct {
	n, m int
	Lu   mat.Cholesky // K_uu + snu2 I
	Vt   *mat.Dense   // n×m
	g    []float64
	kt   []float64 // diag Kt = |v_i|² + g_i (tight sites, fitc_tight.go)
}

// fitcChunk is the number of rows of Vt processed at once by the O(n m²)
// passes (bounded work memory: fitcChunk×m numbers).
const fitcChunk = 256

func newFITCPrior(ctx context.Context, p *FITCProblem) (*fitcPrior, error) {
	m := p.Kuu.SymmetricDim()
	n, _ := p.Kfu.Dims()
	pr := &fitcPrior{n: n, m: m, g: make([]float64, n), kt: make([]float64, n)}
	kj := mat.NewSymDense(m, nil)
	kj.CopySym(p.Kuu)
	for i := 0; i < m; i++ {
		kj.SetSym(i, i, kj.At(i, i)+p.Jitter)
	}
	if !pr.Lu.Factorize(kj) || pr.Lu.Cond() > 1e14 {
		return nil, errors.New("ep: K_uu + jitter·I is not positive definite (duplicate inducing inputs? raise the jitter)")
	}
	pr.Vt = mat.DenseCopyOf(p.Kfu)
	if err := solveRowsU(ctx, &pr.Lu, pr.Vt); err != nil {
		return nil, err
	}
	for i := range pr.g {
		v := pr.Vt.RawRowView(i)
		q := blas64.Dot(vec(v), vec(v))
		pr.g[i] = math.Max(p.Kdiag[i]-q, 0)
		pr.kt[i] = q + pr.g[i]
	}
	return pr, nil
}

// solveRowsU replaces every row x of X by xᵀ U⁻¹ (U the Cholesky factor
// of c), in chunks of rows with context checks: the rows become
// L⁻¹ x with L = Uᵀ.
func solveRowsU(ctx context.Context, c *mat.Cholesky, X *mat.Dense) error {
	u := upper(c)
	raw := X.RawMatrix()
	for r0 := 0; r0 < raw.Rows; r0 += fitcChunk {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r1 := min(r0+fitcChunk, raw.Rows)
		blk := blas64.General{Rows: r1 - r0, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data[r0*raw.Stride:]}
		blas64.Trsm(blas.Right, blas.NoTrans, 1, u, blk)
	}
	return nil
}

func upper(c *mat.Cholesky) blas64.Triangular {
	return c.RawU().(*mat.TriDense).RawTriangular()
}

func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }

// fitcState is the EP posterior in the representation of fitc.go: the
// Cholesky factor of A = I + V diag(w) Vᵀ, a = A⁻¹ h, and the marginals
// (mu, sdiag) of the latent values as of the last rebuild.
type fitcState struct {
	A         mat.Cholesky
	a         []float64
	mu, sdiag []float64
	logDet    float64 // log det(I + T Kt)
	// cav and alpha are the cavities of the tight latents' summed sites
	// and their α_i = ν_i − τ_i μ_i, computed without cancelling
	// (fitc_tight.go); nil when no latent is tight.
	cav   []families.Gaussian
	alpha []float64
}

// coef returns c = 1/(1 + g τ̃), d = g c and w = τ̃ c, and false when
// 1 + g τ̃ ≤ 0.
func coef(g, tau float64) (c, d, w float64, ok bool) {
	den := 1 + g*tau
	if !(den > 0) {
		return 0, 0, 0, false
	}
	c = 1 / den
	return c, g * c, tau * c, true
}

var errImproperFITC = errors.New("posterior became improper or non-finite")

// recompute builds the representation from the summed site parameters
// (tau, nu per latent value) in O(n m²) time and O(fitcChunk·m) extra
// memory, with the tight latents' cavities (fitc_tight.go).
func (pr *fitcPrior) recompute(ctx context.Context, tau, nu []float64) (*fitcState, error) {
	st, err := pr.represent(ctx, tau, nu)
	if err != nil {
		return nil, err
	}
	if err := pr.tighten(ctx, st, tau, nu); err != nil {
		return nil, err
	}
	return st, nil
}

// represent is recompute without the tight latents' cavities.
func (pr *fitcPrior) represent(ctx context.Context, tau, nu []float64) (*fitcState, error) {
	m := pr.m
	st := &fitcState{mu: make([]float64, pr.n), sdiag: make([]float64, pr.n)}
	cs, ds, ws := make([]float64, pr.n), make([]float64, pr.n), make([]float64, pr.n)
	hv := make([]float64, pr.n) // c ∘ ν̃
	for i := range cs {
		var ok bool
		if cs[i], ds[i], ws[i], ok = coef(pr.g[i], tau[i]); !ok {
			return nil, errImproperFITC
		}
		hv[i] = cs[i] * nu[i]
		st.logDet += math.Log1p(pr.g[i] * tau[i])
	}
	A := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	for i := 0; i < m; i++ {
		A.Data[i*m+i] = 1
	}
	vt := pr.Vt.RawMatrix()
	work := blas64.General{Cols: m, Stride: m, Data: make([]float64, fitcChunk*m)}
	for r0 := 0; r0 < pr.n; r0 += fitcChunk {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r1 := min(r0+fitcChunk, pr.n)
		blk := blas64.General{Rows: r1 - r0, Cols: m, Stride: vt.Stride, Data: vt.Data[r0*vt.Stride:]}
		work.Rows = r1 - r0
		for k := r0; k < r1; k++ {
			row := work.Data[(k-r0)*m : (k-r0+1)*m]
			copy(row, vt.Data[k*vt.Stride:k*vt.Stride+m])
			blas64.Scal(ws[k], vec(row))
		}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, blk, work, 1, A)
	}
	sym := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			sym.SetSym(i, j, 0.5*(A.Data[i*m+j]+A.Data[j*m+i]))
		}
	}
	if !st.A.Factorize(sym) {
		return nil, errImproperFITC
	}
	st.logDet += st.A.LogDet()
	h := mat.NewVecDense(m, nil)
	h.MulVec(pr.Vt.T(), mat.NewVecDense(pr.n, hv))
	a := mat.NewVecDense(m, nil)
	if err := st.A.SolveVecTo(a, h); err != nil && !errors.As(err, new(mat.Condition)) {
		return nil, err
	}
	st.a = a.RawVector().Data
	if err := pr.marginals(ctx, st, cs, ds, nu); err != nil {
		return nil, err
	}
	return st, nil
}

// marginals fills μ_i = c_i v_iᵀ a + d_i ν̃_i and σ²_i = d_i + c_i² |U_A⁻ᵀ v_i|².
func (pr *fitcPrior) marginals(ctx context.Context, st *fitcState, cs, ds, nu []float64) error {
	m := pr.m
	u := upper(&st.A)
	vt := pr.Vt.RawMatrix()
	work := blas64.General{Cols: m, Stride: m, Data: make([]float64, fitcChunk*m)}
	for r0 := 0; r0 < pr.n; r0 += fitcChunk {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r1 := min(r0+fitcChunk, pr.n)
		work.Rows = r1 - r0
		copy(work.Data, vt.Data[r0*vt.Stride:r1*vt.Stride])
		blas64.Trsm(blas.Right, blas.NoTrans, 1, u, work)
		for k := r0; k < r1; k++ {
			r := work.Data[(k-r0)*m : (k-r0+1)*m]
			v := vt.Data[k*vt.Stride : k*vt.Stride+m]
			st.mu[k] = cs[k]*blas64.Dot(vec(v), vec(st.a)) + ds[k]*nu[k]
			st.sdiag[k] = ds[k] + cs[k]*cs[k]*blas64.Dot(vec(r), vec(r))
			if !(st.sdiag[k] > 0) || !finite(st.mu[k]) {
				return errImproperFITC
			}
		}
	}
	return nil
}

// fitcWork is the scratch of one sequential sweep: s = A⁻¹ v_i and
// q = v_iᵀ s of the site being updated, and whether a failed Cholesky
// downdate asks for a rebuild.
type fitcWork struct {
	s, z     []float64 // A⁻¹ v_i and U_A⁻ᵀ v_i
	work     []float64 // scratch of cholRankOne (also cs, sn)
	cs, sn   []float64
	q, va    float64
	refactor bool
}

func newFITCWork(m int) *fitcWork {
	return &fitcWork{s: make([]float64, m), z: make([]float64, m), work: make([]float64, m),
		cs: make([]float64, m), sn: make([]float64, m)}
}

// marginal returns the current posterior mean and variance of latent i
// (summed sites tau, nu), leaving s = A⁻¹ v_i, q and vᵀa in w for update.
func (st *fitcState) marginal(pr *fitcPrior, i int, tau, nu float64, w *fitcWork) (mu, s2 float64) {
	v := pr.Vt.RawRowView(i)
	u := upper(&st.A)
	copy(w.z, v)
	blas64.Trsv(blas.Trans, u, vec(w.z))
	w.q = blas64.Dot(vec(w.z), vec(w.z))
	copy(w.s, w.z)
	blas64.Trsv(blas.NoTrans, u, vec(w.s))
	w.va = blas64.Dot(vec(v), vec(st.a))
	c, d, _, _ := coef(pr.g[i], tau)
	return c*w.va + d*nu, d + c*c*w.q
}

// update moves latent i's summed site from (tau0, nu0) to (tau1, nu1):
//
//	A ← A + Δw v vᵀ,   a ← a + (δ − Δw (vᵀa + δ q)/(1 + Δw q)) s,
//
// with δ = Δ(c ν̃), s = A⁻¹ v, q = vᵀ s from the preceding marginal call
// (Sherman–Morrison for a = A⁻¹ h, h = V (c ∘ ν̃)). It returns false and
// changes nothing when the new site would make the posterior improper. A
// Cholesky downdate that fails to rounding sets w.refactor.
func (st *fitcState) update(pr *fitcPrior, i int, tau0, nu0, tau1, nu1 float64, w *fitcWork) bool {
	c0, _, w0, _ := coef(pr.g[i], tau0)
	c1, _, w1, ok := coef(pr.g[i], tau1)
	if !ok {
		return false
	}
	dw, delta := w1-w0, c1*nu1-c0*nu0
	den := 1 + dw*w.q
	if !(den > 0) || !finite(dw, delta) {
		return false
	}
	g := delta - dw*(w.va+delta*w.q)/den
	blas64.Axpy(g, vec(w.s), vec(st.a))
	if dw != 0 && !cholRankOne(upper(&st.A), dw, pr.Vt.RawRowView(i), w.z, w.work, w.cs, w.sn) {
		w.refactor = true
	}
	return true
}
