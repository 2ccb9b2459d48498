package fgraph

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/netjoint"
	"github.com/fg-infer/fg/internal/openblas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// MaxJoint bounds the number of variables of a graph solved as one dense
// joint Gaussian (family = full with likelihood factors, or a loopy
// linear-Gaussian graph): the joint costs O(n²) memory and O(n³) time.
const MaxJoint = infer.MaxJoint

// runJoint solves g under family = full: the linear-Gaussian factors and
// the blocks define the joint Gaussian N(x; μ, Σ) (gaussianJoint: the
// directed prior in covariance form conditioned on the observations), and
// the likelihood factors become EP sites on the projections
// f_k = a_kᵀx + c_k of that block (infer/ep, the engine of GP and linear
// classification), so the result is joint-Gaussian EP. A constant
// c_k ≠ 0 is carried by one extra coordinate with prior mean 1 and
// variance 0. log Z is the Gaussian factors' normaliser log Z_G plus
// log Z_EP of the sites. A linear-Gaussian graph whose precision is banded
// (Graph.Banded: a chain of vector states) is solved on the band instead
// (bandJoint), in O(n k²) at any n, unless Cov asks for the dense joint;
// so are likelihood sites on such a graph when their projections stay
// within the band (siteBandwidth; runBandEP, except under relaxed KL).
func runJoint(ctx context.Context, g *Graph, ad *adjacency, s Settings) (*Result, error) {
	if k := bandwidth(g); !s.dense && !s.Cov && infer.Banded(g.n, k) {
		jt, err := bandJoint(g, k, ctx.Done())
		if errors.Is(err, netjoint.ErrCanceled) {
			return &Result{Status: infer.Canceled, Message: "canceled"}, ctx.Err()
		}
		if err != nil {
			return &Result{Status: infer.Failed, Message: err.Error()}, nil
		}
		return gaussianResult(g, jt), nil
	}
	if k := siteBandwidth(g); hasSites(g) && !s.dense && !s.Cov && !relaxed(s.Divergence) && infer.Banded(g.n, k) {
		return runBandEP(ctx, g, k, s)
	}
	if g.n > MaxJoint {
		return nil, fmt.Errorf("fgraph: family = full needs a dense joint Gaussian over %d variables (at most %d); use family = factorized", g.n, MaxJoint)
	}
	jt, err := gaussianJoint(g, ad, hasSites(g), ctx.Done())
	if errors.Is(err, openblas.ErrCanceled) {
		return &Result{Status: infer.Canceled, Message: "canceled"}, ctx.Err()
	}
	if err != nil {
		return &Result{Status: infer.Failed, Message: err.Error()}, nil
	}
	if !hasSites(g) {
		res := gaussianResult(g, jt)
		if s.Cov {
			res.post = gaussianPost{mean: jt.mean, cov: jt.cov, v: jt.v}
		}
		return res, nil
	}
	p := siteProblem(g, jt.mean, jt.cov)
	er, err := ep.Run(ctx, p, ep.Settings{Settings: s.Settings})
	if er == nil {
		return nil, err
	}
	res := &Result{Status: er.Status, Message: er.Message, Stats: er.Stats, Trace: er.Trace}
	if er.Status.HasNumbers() && len(er.Mean) >= g.n {
		res.Mean, res.Var = er.Mean[:g.n], er.Var[:g.n]
		res.FMean, res.FVar = er.FMean, er.FVar
		res.LogZ, res.HasLogZ = jt.logZ+er.LogZ, er.HasLogZ
		if _, ok := s.Divergence.(infer.RelaxedKL); ok {
			res.B = er.B
		}
		if s.Cov {
			res.post = epPost{r: er, n: len(p.Mean)}
		}
	}
	return res, err
}

// Gaussian returns the joint Gaussian N(mean, cov) that the linear-Gaussian
// factors define (the prior of the likelihood sites): the starting point of
// a gold standard such as elliptical slice sampling (infer/mcmc) on a graph
// built through this API (a compiled model's gold standards read theirs
// from the model, graph.FactorGraph.JointPrior, by the same
// propagation, gauss.Directed.Moments). It fails
// when the graph has more than MaxJoint variables or the factors do not
// define a proper joint.
func (g *Graph) Gaussian() (mean []float64, cov *mat.SymDense, err error) {
	if err := g.Err(); err != nil {
		return nil, nil, err
	}
	if g.n > MaxJoint {
		return nil, nil, fmt.Errorf("fgraph: a dense joint over %d variables (at most %d)", g.n, MaxJoint)
	}
	jt, err := gaussianJoint(g, newAdjacency(g), true, nil)
	return jt.mean, jt.cov, err
}

// gaussJoint is the Gaussian the linear-Gaussian factors and blocks define:
// its mean, marginal variances, covariance cov − vᵀv (v nil when the
// covariance was asked for in full) and the log of the factors' integral
// log Z_G.
type gaussJoint struct {
	mean, vr []float64
	cov      *mat.SymDense
	v        *mat.Dense
	logZ     float64
}

// gaussianJoint returns the Gaussian of the linear-Gaussian factors and
// blocks, with its covariance formed when full (otherwise as cov − vᵀv,
// see condition). A directed graph (every variable
// defined by one prior, conditional or block with no cycle: direct) is
// solved in covariance form with no inverse: the prior moments propagated
// in topological order (priorMoments), then conditioned on the remaining
// factors by Cholesky updates (condition), so the prior covariance is
// exact up to rounding and log Z_G = log N(y; Aμ₀ + c, AΣ₀Aᵀ + R) −
// Σ_v log|a_v|. Other graphs (undirected loops, overlapping blocks) take
// the information form (informationJoint). The O(n³) steps check done
// between blocks of at most openblas.ChunkFlops flops and return
// openblas.ErrCanceled when it closes (Ctrl-C within a fraction of a second
// at MaxJoint variables).
func gaussianJoint(g *Graph, ad *adjacency, full bool, done <-chan struct{}) (gaussJoint, error) {
	d, ok := direct(g, ad)
	if !ok {
		return informationJoint(g, done)
	}
	mu, sigma, logZ, err := priorMoments(g, ad, d, done)
	if err != nil {
		return gaussJoint{}, err
	}
	lz, v, err := condition(g, d.obs, mu, sigma, full, done)
	if errors.Is(err, openblas.ErrCanceled) {
		return gaussJoint{}, err
	}
	if err != nil {
		return gaussJoint{}, fmt.Errorf("the linear-Gaussian factors do not define a proper joint Gaussian: %w", err)
	}
	jt := gaussJoint{mean: mu, vr: make([]float64, g.n), cov: mat.NewSymDense(g.n, sigma), v: v, logZ: logZ + lz}
	for i := range jt.vr {
		jt.vr[i] = sigma[i*g.n+i]
	}
	if v != nil {
		m, _ := v.Dims()
		for k := 0; k < m; k++ {
			for i, x := range v.RawRowView(k) {
				jt.vr[i] -= x * x
			}
		}
	}
	for i, x := range jt.vr {
		jt.vr[i] = max(x, 0)
	}
	return jt, nil
}

// informationJoint solves the linear-Gaussian factors in information form,
// for graphs that are not directed: precision Λ = Σ_k a_k a_kᵀ/σ_k² (plus
// each block's K⁻¹), Λ μ = h = Σ_k a_k (y_k − c_k)/σ_k² (plus K⁻¹m), by one
// Cholesky factorisation Λ = UᵀU (solveInformation). The log normaliser is
// written, as bandJoint's, with the residuals at the mean: the factors'
// quadratic form is Q(x) = Q(μ) + (x − μ)ᵀΛ(x − μ), so
//
//	log Z_G = −½ Q(μ) − ½ log det Λ + (n/2) log 2π − ½ Σ_k log 2πσ_k² − ½ Σ_b [log det K_b + d_b log 2π],
//
// which avoids the cancellation of ½ hᵀΛ⁻¹h against Σ_k (y_k − c_k)²/σ_k²
// (both grow as the squared states). The covariance Λ⁻¹ is read from the
// factor (the marginal variances need its diagonal, EP its whole).
func informationJoint(g *Graph, done <-chan struct{}) (gaussJoint, error) {
	lam, h, _ := gaussianPart(g)
	mu, cov, logDet, err := solveInformation(lam, h, done)
	switch {
	case errors.Is(err, openblas.ErrCanceled):
		return gaussJoint{}, err
	case errors.Is(err, openblas.ErrNotPositiveDefinite):
		return gaussJoint{}, errors.New("the linear-Gaussian factors do not define a proper joint Gaussian")
	case err != nil:
		return gaussJoint{}, fmt.Errorf("the joint Gaussian is singular: %w", err)
	}
	logZ := residualLogLik(g, mu.RawVector().Data) - 0.5*logDet + 0.5*float64(g.n)*math.Log(2*math.Pi)
	for _, b := range g.blocks {
		logZ += b.logDensity(mu.RawVector().Data)
	}
	jt := gaussJoint{mean: mu.RawVector().Data, vr: make([]float64, g.n), cov: cov, logZ: logZ}
	for i := range jt.vr {
		jt.vr[i] = cov.At(i, i)
	}
	return jt, nil
}

// solveInformation returns the mean μ = Λ⁻¹h, the covariance Λ⁻¹ and
// log det Λ of the Gaussian in information form (Λ, h): one Cholesky
// factorisation Λ = UᵀU in Λ's storage (openblas.CholUpperDone), μ by two
// triangular solves, log det Λ = 2 Σ_i log U_ii and Λ⁻¹ = U⁻¹U⁻ᵀ
// (openblas.CholInverseDone), checking done between blocks (it returns
// openblas.ErrCanceled when done closes). It fails with
// openblas.ErrNotPositiveDefinite when Λ is not positive definite and with
// mat.Condition when Λ's condition number exceeds mat.ConditionTolerance
// (as mat.Cholesky's solves do).
func solveInformation(lam *mat.SymDense, h *mat.VecDense, done <-chan struct{}) (mu *mat.VecDense, cov *mat.SymDense, logDet float64, err error) {
	n := h.Len()
	a := lam.RawSymmetric()
	work := make([]float64, 3*n)
	norm := lapack64.Lansy(mat.CondNorm, a, work)
	u, err := openblas.CholUpperDone(a, done)
	if err != nil {
		return nil, nil, 0, err
	}
	if cond := 1 / lapack64.Pocon(a, norm, work, make([]int, n)); cond > mat.ConditionTolerance {
		return nil, nil, 0, mat.Condition(cond)
	}
	mu = mat.NewVecDense(n, nil)
	mu.CopyVec(h)
	lapack64.Potrs(u, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: mu.RawVector().Data})
	for i := 0; i < n; i++ {
		logDet += 2 * math.Log(u.Data[i*u.Stride+i])
	}
	cov = mat.NewSymDense(n, nil)
	if err := openblas.CholInverseDone(u, cov.RawSymmetric(), done); err != nil {
		return nil, nil, 0, err
	}
	return mu, cov, logDet, nil
}

// gaussianPart returns Λ, h and the constant −½ Σ_k [(y_k − c_k)²/σ_k² + log 2πσ_k²]
// of the linear-Gaussian factors and the blocks (block.addTo).
func gaussianPart(g *Graph) (*mat.SymDense, *mat.VecDense, float64) {
	lam := mat.NewSymDense(g.n, nil)
	h := mat.NewVecDense(g.n, nil)
	r := 0.0
	for _, b := range g.blocks {
		r += b.addTo(lam, h)
	}
	r += addGaussians(g, func(i, j int, x float64) { lam.SetSym(i, j, lam.At(i, j)+x) }, h.RawVector().Data)
	return lam, h, r
}

// addGaussians adds the linear-Gaussian factors N(y_k; a_kᵀx + c_k, σ_k²)
// to an information form: a_k a_kᵀ/σ_k² to Λ through add(i, j, x) (i ≤ j,
// once per pair of edges), a_k (y_k − c_k)/σ_k² to h, and returns their
// constant −½ Σ_k [(y_k − c_k)²/σ_k² + log 2πσ_k²].
func addGaussians(g *Graph, add func(i, j int, x float64), h []float64) float64 {
	r := 0.0
	var vars []int
	var coefs []float64
	for k := 0; k < g.NumFactors(); k++ {
		fk := g.fac(k)
		if !fk.gaussian() {
			continue
		}
		vars, coefs = fk.vars(vars[:0]), fk.coefs(coefs[:0])
		s, d := fk.variance(), fk.y()-fk.c()
		r -= 0.5 * (d*d/s + math.Log(2*math.Pi*s))
		for i, vi := range vars {
			h[vi] += coefs[i] * d / s
			for j, vj := range vars {
				if vj >= vi {
					add(vi, vj, coefs[i]*coefs[j]/s)
				}
			}
		}
	}
	return r
}

// siteProblem turns the likelihood factors into ep sites on the Gaussian
// N(mu, cov), with an extra constant coordinate when some site has c ≠ 0.
func siteProblem(g *Graph, mu []float64, cov *mat.SymDense) *ep.Problem {
	n := g.n
	constant := false
	for k := 0; k < g.NumFactors(); k++ {
		constant = constant || (!g.gaussian(k) && g.cst(k) != 0)
	}
	if constant {
		n++
		big := mat.NewSymDense(n, nil)
		big.SliceSym(0, g.n).(*mat.SymDense).CopySym(cov)
		cov, mu = big, append(append([]float64(nil), mu...), 1)
	}
	p := &ep.Problem{Mean: mu, Cov: cov}
	for k := 0; k < g.NumFactors(); k++ {
		if g.gaussian(k) {
			continue
		}
		a := make([]float64, n)
		fk := g.fac(k)
		lo, hi := fk.lo, fk.hi
		for e := lo; e < hi; e++ {
			a[fk.v(e)] = fk.a(e)
		}
		if constant {
			a[g.n] = fk.c()
		}
		p.Sites = append(p.Sites, ep.Site{Lik: g.liks[fk.site()], Y: fk.y(), Proj: a})
	}
	return p
}

func gaussianResult(g *Graph, jt gaussJoint) *Result {
	res := &Result{Status: infer.Converged, Exact: true, LogZ: jt.logZ, HasLogZ: true, Mean: jt.mean, Var: jt.vr}
	res.Iterations = 1
	return res
}
