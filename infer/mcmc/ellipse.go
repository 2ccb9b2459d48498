package mcmc

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// ellipse is the distribution whose ellipses a chain moves on: the prior
// N(m0, Σ0) itself, or a multivariate Student-t T(μ, Σ_q, ν) fitted to the
// posterior. Elliptical slice sampling stays exact for any such choice when
// the likelihood is replaced by the ratio of the target to it (Nishihara,
// Murray & Adams 2014, "Parallel MCMC with generalized elliptical slice
// sampling", JMLR 15, Algorithm 2; with a Gaussian in place of the t this is
// Fagan, Bhandari & Cunningham 2016, "Elliptical slice sampling with
// expectation propagation", UAI):
//
//	p(w) ∝ N(w; m0, Σ0) L(w) = T(w; μ, Σ_q, ν) · L(w) N(w; m0, Σ0) / T(w; μ, Σ_q, ν)
//
// so the chain's log-likelihood becomes
//
//	ℓ_q(w) = ℓ(w) − ½‖L0⁻¹(w − m0)‖² + (ν + d)/2 · log(1 + ‖L_q⁻¹(w − μ)‖²/ν)
//
// and, the t being the scale mixture w | s ~ N(μ, s Σ_q) with
// s ~ InvGamma(ν/2, ν/2), each step first draws s | w ~
// InvGamma((ν + d)/2, (ν + ‖L_q⁻¹(w − μ)‖²)/2) and then moves on the
// ellipses of N(μ, s Σ_q). With Σ_q near the posterior covariance the
// ellipses follow the posterior instead of the prior and consecutive states
// are nearly independent; the t's heavy tails keep ℓ_q bounded above where
// the likelihood is flat (a step likelihood: the posterior's tails are the
// prior's), which a fitted Gaussian would not.
type ellipse struct {
	mu    []float64
	l     *mat.TriDense
	prior bool
	dof   float64   // ν of the fitted t
	gamma []float64 // L0⁻¹(μ − m0), unused for the prior
}

// priorEllipse is the prior N(m0, L0 L0ᵀ).
func priorEllipse(m0 []float64, l0 *mat.TriDense) *ellipse {
	return &ellipse{mu: m0, l: l0, prior: true}
}

// fitDOF is ν of the fitted t: heavy tails, finite variance.
const fitDOF = 8

// minFitDraws is the pooled draws per dimension (+1) a fit needs. With
// fewer, the fitted covariance is too rough to beat the prior's ellipses:
// on a 40-dimensional probit GP (examples/gpml/se_probit.fg) 1000 draws
// (25 per dimension) gave a smaller bulk ESS than the prior's ellipses and
// 250 draws left the chains stuck (bulk ESS 4).
const minFitDraws = 100

// fitEllipse returns the t with ν = fitDOF fitted to the pooled draws
// x[k][j] (k over draws, j over coordinates) by moments: μ the mean and
// Σ_q = Σ̂ (ν − 2)/ν, so that its covariance is the draws' Σ̂. It returns nil
// when there are too few draws (fewer than minFitDraws (d + 1)), a draw is not finite
// or Σ̂ is not positive definite.
func fitEllipse(x [][]float64, m0 []float64, l0 *mat.TriDense) *ellipse {
	d := len(m0)
	if len(x) < minFitDraws*(d+1) {
		return nil
	}
	data := mat.NewDense(len(x), d, nil)
	for k, row := range x {
		if !allFinite(row) {
			return nil
		}
		data.SetRow(k, row)
	}
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, data, nil)
	cov.ScaleSym((fitDOF-2)/float64(fitDOF), &cov)
	var ch mat.Cholesky
	if !ch.Factorize(&cov) {
		return nil
	}
	q := &ellipse{mu: make([]float64, d), l: &mat.TriDense{}, dof: fitDOF}
	for j := range q.mu {
		q.mu[j] = stat.Mean(mat.Col(nil, j, data), nil)
	}
	ch.LTo(q.l)
	q.gamma = make([]float64, d)
	for j := range q.gamma {
		q.gamma[j] = q.mu[j] - m0[j]
	}
	solveLower(l0, q.gamma)
	return q
}

// scaleDraw returns s ~ InvGamma((ν + d)/2, (ν + r2)/2) as (ν + r2)/χ²_{ν+d},
// the χ² drawn as a sum of ν + d squared standard normals (ν is an integer).
func (q *ellipse) scaleDraw(rng *rand.Rand, r2 float64, d int) float64 {
	chi := 0.0
	for range int(q.dof) + d {
		z := rng.NormFloat64()
		chi += z * z
	}
	return (q.dof + r2) / chi
}

// solveLower overwrites x with L⁻¹x (forward substitution).
func solveLower(l *mat.TriDense, x []float64) {
	blas64.Trsv(blas.NoTrans, l.RawTriangular(), blas64.Vector{N: len(x), Inc: 1, Data: x})
}

// mulLower overwrites x with L x.
func mulLower(l *mat.TriDense, x []float64) {
	blas64.Trmv(blas.NoTrans, l.RawTriangular(), blas64.Vector{N: len(x), Inc: 1, Data: x})
}

// correction is ℓ_q − ℓ along one ellipse, w(θ) = μ + a cos θ + ν sin θ
// with ν = L_q ε (ε ~ N(0, s I)): in prior coordinates L0⁻¹(w − m0) =
// γ + α0 cos θ + β0 sin θ (α0 = L0⁻¹a, β0 = L0⁻¹ν) and in the ellipse's own
// L_q⁻¹(w − μ) = α cos θ + ε sin θ (α = L_q⁻¹a), so the correction at any θ
// is a function of six inner products each, O(1) per evaluation.
type correction struct {
	gg, aa, bb, ga, gb, ab float64 // prior coordinates
	qaa, qee, qae          float64 // ellipse coordinates
	half, dof              float64 // (ν + d)/2 and ν
}

// at returns the correction at (cos θ, sin θ).
func (k *correction) at(c, s float64) float64 {
	if k.dof == 0 {
		return 0
	}
	prior := k.gg + c*c*k.aa + s*s*k.bb + 2*(c*k.ga+s*k.gb+c*s*k.ab)
	own := c*c*k.qaa + s*s*k.qee + 2*c*s*k.qae
	return k.half*math.Log1p(own/k.dof) - 0.5*prior
}

// newCorrection computes the inner products for a = f − μ, ν and ε, given
// aq = L_q⁻¹a and using the scratch vectors a0, b0 (each of length d; a, nu,
// eps and aq are not modified).
func newCorrection(q *ellipse, l0 *mat.TriDense, a, nu, eps, aq, a0, b0 []float64) correction {
	copy(a0, a)
	solveLower(l0, a0)
	copy(b0, nu)
	solveLower(l0, b0)
	return correction{
		gg: dot(q.gamma, q.gamma), aa: dot(a0, a0), bb: dot(b0, b0),
		ga: dot(q.gamma, a0), gb: dot(q.gamma, b0), ab: dot(a0, b0),
		qaa: dot(aq, aq), qee: dot(eps, eps), qae: dot(aq, eps),
		half: (q.dof + float64(len(a))) / 2, dof: q.dof,
	}
}

func dot(x, y []float64) float64 {
	return blas64.Dot(blas64.Vector{N: len(x), Inc: 1, Data: x}, blas64.Vector{N: len(y), Inc: 1, Data: y})
}
