package ep

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/internal/openblas"
)

// Problem is a Gaussian block with non-Gaussian sites on scalar projections:
//
//	p(w) ∝ N(w; Mean, Cov) · Π_i p_i(Y_i | a_iᵀw)
//
// with a_i = e_Index for a GP (f_i is one coordinate of w) or a_i = Proj for a
// linear model (f_i = x_iᵀw). For a GP, and whenever M ≤ N, the engine works
// in the space of the site projections f = A w, whose prior is
// N(A m0, A K Aᵀ) (the GP view of a linear model), and maps the result back
// to w; for projection sites with M > N and K positive definite it works
// with the N×N posterior of w directly (weight space, wspace.go).
type Problem struct {
	Mean  []float64     // prior mean m0 of w; nil means zero
	Cov   *mat.SymDense // prior covariance K of w (N×N, positive semi-definite)
	Sites []Site
	// Init, when non-nil, warm-starts the site parameters (one per site);
	// otherwise every site starts at τ̃ = ν̃ = 0.
	Init []families.Gaussian
}

// Site is one likelihood factor on the projection f = aᵀw: a = e_Index when
// Proj is nil, otherwise a = Proj (length N).
type Site struct {
	Lik   Likelihood
	Y     float64
	Index int
	Proj  []float64
}

// projection holds A (M×N) and derived matrices; identity is the GP case
// with one site per coordinate in order (A = I, no copies).
type projection struct {
	identity bool
	// allTight makes every site tight (tight.go): the leave-one-out
	// sub-problems of sites that dominate their direction, whose site
	// precision times their variance there can fall below tightRatio while
	// the cavity read from the marginal still cancels.
	allTight bool
	A        *mat.Dense // M×N, nil when identity
	m0       []float64  // prior mean of w (N)
	K        *mat.SymDense
	Kf       *mat.SymDense // A K Aᵀ (M×M)
	f0       []float64     // A m0 (M)
	KAt      *mat.Dense    // K Aᵀ (N×M), nil when identity or weight space
	// weight selects the weight-space path (wspace.go): Kf and KAt are not
	// formed; L is the lower Cholesky factor of K.
	weight bool
	L      *mat.TriDense
	kfDiag []float64 // diag Kf = ‖Lᵀ a_i‖² on the weight-space path (tight sites, tightw.go)
}

func (p *Problem) validate() error {
	if p == nil || p.Cov == nil {
		return errors.New("ep: problem has no prior covariance")
	}
	n := p.Cov.SymmetricDim()
	if n == 0 {
		return errors.New("ep: empty prior covariance")
	}
	if p.Mean != nil && len(p.Mean) != n {
		return fmt.Errorf("ep: prior mean has length %d, covariance is %d×%d", len(p.Mean), n, n)
	}
	if len(p.Sites) == 0 {
		return errors.New("ep: problem has no sites")
	}
	if p.Init != nil && len(p.Init) != len(p.Sites) {
		return fmt.Errorf("ep: %d initial site parameters for %d sites", len(p.Init), len(p.Sites))
	}
	for i, s := range p.Sites {
		if err := validSite(s, i, n); err != nil {
			return err
		}
		if s.Proj != nil && len(s.Proj) != n {
			return fmt.Errorf("ep: site %d projection has length %d, want %d", i, len(s.Proj), n)
		}
		if p.Init != nil && !finite(p.Init[i].Prec, p.Init[i].Shift) {
			return fmt.Errorf("ep: initial site %d is not finite", i)
		}
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if !finite(p.Cov.At(i, j)) {
				return fmt.Errorf("ep: prior covariance entry (%d,%d) is not finite", i, j)
			}
		}
		if p.Mean != nil && !finite(p.Mean[i]) {
			return fmt.Errorf("ep: prior mean entry %d is not finite", i)
		}
	}
	return nil
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// newProjection builds A, f0 = A m0 and, on the site-space path, Kf = A K Aᵀ
// and K Aᵀ. The weight-space path (see weightFactor) forms neither: it
// needs only A and L = chol(K). Every matrix is checked against the size
// bounds (bounds.go) before it is allocated.
func newProjection(p *Problem, mode pathMode) (*projection, error) {
	return newProjectionDone(p, mode, nil)
}

// mulColumns sets c = a·b one chunk of c's columns at a time: columns
// [j0, j1) of c are a·cols(j0, j1), with a r×k (k inner) and as many
// columns a chunk as keep its product under openblas.ChunkFlops; it
// returns errCanceled when done closes between chunks.
func mulColumns(c *mat.Dense, k int, cols func(j0, j1 int) mat.Matrix, a mat.Matrix, done <-chan struct{}) error {
	r, nc := c.Dims()
	step := max(1, min(nc, openblas.ChunkCols(r, k)))
	for j0 := 0; j0 < nc; j0 += step {
		if openblas.Done(done) {
			return errCanceled
		}
		j1 := min(nc, j0+step)
		c.Slice(0, r, j0, j1).(*mat.Dense).Mul(a, cols(j0, j1))
	}
	return nil
}

// newProjectionDone is newProjection that returns errCanceled when done
// closes during the site-space products K Aᵀ and A K Aᵀ (O(N²M + M²N):
// a minute at N = 4000, M = 5000), which it computes in column chunks of
// at most openblas.ChunkFlops, checking done between them.
func newProjectionDone(p *Problem, mode pathMode, done <-chan struct{}) (*projection, error) {
	n := p.Cov.SymmetricDim()
	m := len(p.Sites)
	pr := &projection{K: p.Cov, m0: p.Mean}
	if pr.m0 == nil {
		pr.m0 = make([]float64, n)
	}
	pr.identity = m == n
	for i, s := range p.Sites {
		if s.Proj != nil || s.Index != i {
			pr.identity = false
			break
		}
	}
	if pr.identity {
		pr.Kf = p.Cov
		pr.f0 = append([]float64(nil), pr.m0...)
		return pr, checkSiteSpace(m)
	}
	if err := checkDense(m, n); err != nil {
		return nil, err
	}
	pr.A = mat.NewDense(m, n, nil)
	for i, s := range p.Sites {
		if s.Proj != nil {
			pr.A.SetRow(i, s.Proj)
		} else {
			pr.A.Set(i, s.Index, 1)
		}
	}
	f0 := mat.NewVecDense(m, nil)
	f0.MulVec(pr.A, mat.NewVecDense(n, pr.m0))
	pr.f0 = f0.RawVector().Data
	if checkDense(n, n) != nil {
		mode = sitePath // the weight space's N×N matrices would not fit either
	}
	var err error
	if pr.L, err = weightFactor(p, mode, done); err != nil {
		return nil, err
	}
	if pr.L != nil {
		pr.weight = true
		pr.kfDiag = priorVariancesW(pr.A, pr.L)
		return pr, nil
	}
	if err := checkSiteSpace(m); err != nil {
		return nil, err
	}
	pr.KAt = mat.NewDense(n, m, nil)
	if err := mulColumns(pr.KAt, n, func(j0, j1 int) mat.Matrix { return pr.A.Slice(j0, j1, 0, n).T() }, p.Cov, done); err != nil {
		return nil, err
	}
	full := mat.NewDense(m, m, nil)
	if err := mulColumns(full, n, func(j0, j1 int) mat.Matrix { return pr.KAt.Slice(0, n, j0, j1) }, pr.A, done); err != nil {
		return nil, err
	}
	pr.Kf = mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			pr.Kf.SetSym(i, j, 0.5*(full.At(i, j)+full.At(j, i)))
		}
	}
	return pr, nil
}
