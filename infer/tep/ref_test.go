package tep

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families/tfam"
	"github.com/fg-infer/fg/infer"
)

// refState is the previous implementation of t-EP, kept as a reference for
// the O(k²) relative-site engine: every site is a full packed k×k matrix
// Pⱼ = (s−1)P\j + r ggᵀ and each update factorises the cavity (O(k³)). The
// moment matching (matchSite) is shared; the cavity, the site storage and
// the iteration are the old ones.
type refState struct {
	*state
	siteP [][]float64 // packed upper triangles of Pⱼ (nil: zero site)
	siteH [][]float64
	P     *mat.SymDense
	h     []float64
}

func newRefState(p *Problem) (*refState, error) {
	st, err := newState(p)
	if err != nil {
		return nil, err
	}
	n := len(p.Sites)
	rs := &refState{state: st, siteP: make([][]float64, n), siteH: make([][]float64, n)}
	rs.refreshRef()
	return rs, nil
}

// refreshRef recomputes θ = θ0 + Σⱼ θⱼ.
func (rs *refState) refreshRef() {
	k := rs.k
	rs.P = mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		rs.P.SetSym(i, i, rs.lam0)
	}
	rs.h = append(rs.h[:0], rs.h0...)
	for j := range rs.siteP {
		if rs.siteP[j] != nil {
			addPacked(rs.P.RawSymmetric(), rs.siteP[j], 1)
			axpy(1, rs.siteH[j], rs.h)
		}
	}
}

// refCavity is θ\j = θ − θⱼ with its Cholesky factor.
type refCavity struct {
	P    *mat.SymDense
	h    []float64
	chol mat.Cholesky
}

func (rs *refState) cavityRef(j int) (*refCavity, cavStats, bool) {
	k := rs.k
	c := &refCavity{P: mat.NewSymDense(k, nil), h: append([]float64(nil), rs.h...)}
	c.P.CopySym(rs.P)
	if rs.siteP[j] != nil {
		addPacked(c.P.RawSymmetric(), rs.siteP[j], -1)
		axpy(-1, rs.siteH[j], c.h)
	}
	if !c.chol.Factorize(c.P) {
		return nil, cavStats{}, false
	}
	var x, mu mat.VecDense
	if c.chol.SolveVecTo(&x, mat.NewVecDense(k, rs.g[j])) != nil ||
		c.chol.SolveVecTo(&mu, mat.NewVecDense(k, c.h)) != nil {
		return nil, cavStats{}, false
	}
	g := rs.g[j]
	cs := cavStats{w: dot(g, x.RawVector().Data), m: dot(g, mu.RawVector().Data),
		quad: dot(c.h, mu.RawVector().Data), logDet: c.chol.LogDet()}
	return c, cs, cs.w > 0 && !math.IsNaN(cs.m)
}

// refProposal is a full site θⱼ = θ_new − θ\j.
type refProposal struct {
	P, H []float64
	LnC  float64
}

func (rs *refState) proposeRef(j int) (refProposal, bool) {
	c, cs, ok := rs.cavityRef(j)
	if !ok {
		return refProposal{}, false
	}
	pr, ok := rs.matchSite(j, cs)
	if !ok {
		return refProposal{}, false
	}
	out := refProposal{P: packUpper(c.P.RawSymmetric(), pr.S-1, pr.R, rs.g[j]), H: scaled(pr.S-1, c.h), LnC: pr.LnC}
	axpy(pr.Kappa, rs.g[j], out.H)
	return out, true
}

// applyRef replaces site j by (1−δ)·old + δ·proposal in natural parameters.
func (rs *refState) applyRef(j int, pr refProposal, damping float64) {
	raw := rs.P.RawSymmetric()
	old, oldH := rs.siteP[j], rs.siteH[j]
	if old == nil {
		old, oldH = make([]float64, len(pr.P)), make([]float64, len(pr.H))
	}
	addPacked(raw, old, -1)
	axpy(-1, oldH, rs.h)
	for i := range pr.P {
		pr.P[i] = (1-damping)*old[i] + damping*pr.P[i]
	}
	for i := range pr.H {
		pr.H[i] = (1-damping)*oldH[i] + damping*pr.H[i]
	}
	rs.siteP[j], rs.siteH[j], rs.lnC[j] = pr.P, pr.H, pr.LnC
	addPacked(raw, pr.P, 1)
	axpy(1, pr.H, rs.h)
}

// refResult is the reference posterior in w coordinates.
type refResult struct {
	Status     infer.Status
	Iterations int
	Mean       []float64
	Scale      *mat.SymDense
	LogZ       float64
}

// runRef is the old Run (sequential or parallel schedule, damping, ADF) on
// the full-matrix state.
func runRef(p *Problem, s infer.Settings, adf bool) (*refResult, error) {
	rs, err := newRefState(p)
	if err != nil {
		return nil, err
	}
	if s.Damping == 0 {
		s.Damping = 1
	}
	res := &refResult{Status: infer.IterationLimit}
	prev := append([]float64(nil), rs.m0...)
	for iter := 1; iter <= s.MaxIter; iter++ {
		res.Iterations = iter
		props := make([]refProposal, len(p.Sites))
		ok := make([]bool, len(p.Sites))
		for j := range p.Sites {
			if s.Schedule == infer.Parallel && !adf {
				props[j], ok[j] = rs.proposeRef(j)
				continue
			}
			if pr, ok := rs.proposeRef(j); ok {
				rs.applyRef(j, pr, s.Damping)
			}
		}
		for j := range props {
			if ok[j] {
				rs.applyRef(j, props[j], s.Damping)
			}
		}
		rs.refreshRef()
		if !rs.posterior(res) {
			res.Status = infer.Diverged
			return res, nil
		}
		if adf {
			res.Status = infer.Done
			return res, nil
		}
		if dist(prev, res.Mean) < s.Tol {
			res.Status = infer.Converged
			return res, nil
		}
		prev = res.Mean
	}
	return res, nil
}

// posterior fills Mean, Scale, LogZ from θ = (h, P).
func (rs *refState) posterior(res *refResult) bool {
	var ch mat.Cholesky
	if !ch.Factorize(rs.P) {
		return false
	}
	var mu mat.VecDense
	if ch.SolveVecTo(&mu, mat.NewVecDense(rs.k, append([]float64(nil), rs.h...))) != nil {
		return false
	}
	w := mat.NewVecDense(rs.k, nil)
	w.MulVec(&rs.l0, &mu)
	res.Mean = w.RawVector().Data
	logPsi := tfam.LogPsiFromPrecision(rs.nu, rs.k, ch.LogDet())
	rho := (rs.nu + float64(rs.k)) * math.Exp(logPsi) / rs.nu
	var u mat.TriDense
	ch.UTo(&u)
	var b mat.Dense
	if err := b.Solve(u.T(), rs.l0.T()); err != nil {
		return false
	}
	res.Scale = mat.NewSymDense(rs.k, nil)
	res.Scale.SymOuterK(rho, b.T())
	res.LogZ, _ = rs.logZ(logPsi, dot(rs.h, mu.RawVector().Data))
	return true
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
