package learn

import (
	"errors"
	"fmt"
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer/ep"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Block is one Gaussian block of a model at a value x of the learned
// parameters: the EP problem and how it depends on x.
type Block struct {
	// Problem is the block's prior N(m0, K) and sites. Its Init is ignored:
	// Optimize warm-starts EP itself.
	Problem *ep.Problem
	// DCov[k] is ∂K/∂x_k (nil: K does not depend on x_k).
	DCov []*mat.SymDense
	// DMean[k] is ∂m0/∂x_k (nil: m0 does not depend on x_k), e.g. a drift
	// in a factor graph's conditionals, propagated to the joint prior mean.
	DMean [][]float64
	// DLik[k][i] is ∂θ_i/∂x_k, where θ_i is the likelihood parameter of site
	// i (Step.Eps, Gaussian.Var); a nil DLik[k] means no site depends on x_k.
	DLik [][]float64
	// FITC, when set, replaces Problem, DCov and DLik: the block's gp
	// prior has inducing inputs and runs FITC EP.
	FITC *FITCBlock
	// Evidence, when set, replaces Problem, DCov and DLik: its engine
	// computes the evidence and its gradient (evidence.go).
	Evidence Evidence
}

// Gradient returns ∂ log Z_EP/∂x_k for every parameter of b, given a
// converged KL EP result res on b.Problem:
//
//	∂ log Z_EP/∂x_k = ½ tr(R ∂K_f/∂x_k) + αᵀ A ∂m0/∂x_k + Σ_i (∂ log Ẑ_i/∂θ_i)(∂θ_i/∂x_k),
//	R = α αᵀ − (K_f + T̃⁻¹)⁻¹,  α = ν̃ − T̃ μ_f,  (K_f + T̃⁻¹)⁻¹ = T̃ − T̃ Σ_f T̃,
//
// (α is ∂/∂m_f of log ∫ N(f; m_f, K_f) Π_i t̃_i(f_i) df, K_f⁻¹(μ_f − m_f),
// since Σ_f⁻¹ μ_f = K_f⁻¹ m_f + ν̃),
// where K_f = A K Aᵀ is the prior covariance of the site projections f = Aw,
// T̃ = diag(τ̃), Σ_f the posterior covariance of f, and Ẑ_i the tilted
// normaliser of site i at its cavity (LikParamGrad). With A = I and a zero
// prior mean this is GPML infEP's dnlZ (with B = I + S½KS½,
// b = ν̃ − S½B⁻¹S½Kν̃, R = bbᵀ − S½B⁻¹S½; here written without S½ so that
// negative site precisions are allowed). See the package documentation for
// why the sites' implicit dependence on x drops out.
func Gradient(res *ep.Result, b *Block) ([]float64, error) {
	if res == nil || !res.HasLogZ {
		return nil, errors.New("learn: the EP result has no evidence (not converged, or a divergence other than kl)")
	}
	if err := b.validate(res); err != nil {
		return nil, err
	}
	p := b.Problem
	np := max(len(b.DCov), len(b.DLik), len(b.DMean))
	grad := make([]float64, np)
	if anyVector(b.DMean) {
		alpha := siteAlpha(res)
		for k, dm := range b.DMean {
			if dm != nil {
				grad[k] += meanGrad(alpha, p, dm)
			}
		}
	}
	if Sf, kept := res.SiteCov(); kept && anyMatrix(b.DCov) && projMatrix(p) == nil {
		keptTraces(grad, siteAlpha(res), res.Sites, Sf, b.DCov)
	} else if anyMatrix(b.DCov) {
		R, err := wspaceR(res, p)
		if err != nil {
			return nil, err
		}
		for k, dK := range b.DCov {
			if dK != nil {
				grad[k] += 0.5 * traceProd(R, dK)
			}
		}
	}
	if err := addLikGrad(grad, res, b); err != nil {
		return nil, err
	}
	for k, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("learn: gradient component %d is not finite", k)
		}
	}
	return grad, nil
}

// meanGrad is αᵀ A dm, the derivative of log Z_EP along a change dm of
// the prior mean m0 (the sites' projections f = A w move by A dm).
func meanGrad(alpha []float64, p *ep.Problem, dm []float64) float64 {
	var g float64
	for i, s := range p.Sites {
		df := 0.0
		if s.Proj != nil {
			df = floats.Dot(s.Proj, dm)
		} else {
			df = dm[s.Index]
		}
		g += alpha[i] * df
	}
	return g
}

// siteAlpha returns α = ν̃ − T̃ μ_f of the converged sites (see Gradient).
func siteAlpha(res *ep.Result) []float64 {
	alpha := make([]float64, len(res.Sites))
	for i, s := range res.Sites {
		alpha[i] = s.Shift - s.Prec*res.FMean[i]
	}
	return alpha
}

func anyVector(vs [][]float64) bool {
	for _, v := range vs {
		if v != nil {
			return true
		}
	}
	return false
}

// validate checks the dimensions of b against its problem and res.
func (b *Block) validate(res *ep.Result) error {
	p := b.Problem
	if p == nil || p.Cov == nil {
		return errors.New("learn: block has no problem")
	}
	n, m := p.Cov.SymmetricDim(), len(p.Sites)
	if len(res.Sites) != m || len(res.FMean) != m || len(res.FVar) != m {
		return fmt.Errorf("learn: EP result has %d sites, the problem %d", len(res.Sites), m)
	}
	for k, d := range b.DCov {
		if d != nil && d.SymmetricDim() != n {
			return fmt.Errorf("learn: ∂K/∂x%d is %d×%d, the prior covariance %d×%d", k, d.SymmetricDim(), d.SymmetricDim(), n, n)
		}
	}
	for k, d := range b.DMean {
		if d != nil && len(d) != n {
			return fmt.Errorf("learn: ∂m0/∂x%d has %d entries, the prior mean %d", k, len(d), n)
		}
	}
	for k, d := range b.DLik {
		if d != nil && len(d) != m {
			return fmt.Errorf("learn: ∂θ/∂x%d has %d entries for %d sites", k, len(d), m)
		}
	}
	return nil
}

func anyMatrix(ms []*mat.SymDense) bool {
	for _, m := range ms {
		if m != nil {
			return true
		}
	}
	return false
}

// wspaceR returns Aᵀ R A, the matrix whose trace product with ∂K/∂x gives
// twice the kernel part of the gradient (R itself when A = I).
func wspaceR(res *ep.Result, p *ep.Problem) (*mat.SymDense, error) {
	m := len(p.Sites)
	alpha := siteAlpha(res)
	A := projMatrix(p)
	Sf, kept := res.SiteCov()
	if !kept {
		if R, ok := identityR(alpha, res.Sites, p); ok {
			return R, nil
		}
		Sw, err := res.Cov()
		if err != nil {
			return nil, err
		}
		Sf = Sw
		if A != nil {
			Sf = sandwich(A, Sw)
		}
	}
	R := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		ti := res.Sites[i].Prec
		for j := i; j < m; j++ {
			tj := res.Sites[j].Prec
			v := alpha[i]*alpha[j] + ti*tj*Sf.At(i, j)
			if i == j {
				v -= ti
			}
			R.SetSym(i, j, v)
		}
	}
	if A == nil {
		return R, nil
	}
	return sandwich(A.T(), R), nil
}

// keptTraces adds ½ tr(R ∂K/∂x_k) to grad[k] for every non-nil
// dK[k] = ∂K/∂x_k, with R = α αᵀ + T̃ Σ_f T̃ − T̃ from the kept Σ_f (sites
// on the coordinates, A = I): row by row of the upper triangles, R's row
// formed once in a buffer of M floats and dotted with each dK's — the
// traces of wspaceR and traceProd without the M×M matrix R.
func keptTraces(grad, alpha []float64, sites []families.Gaussian, Sf *mat.SymDense, dK []*mat.SymDense) {
	m := len(alpha)
	sr := Sf.RawSymmetric()
	row := make([]float64, m)
	tr := make([]float64, len(dK))
	for i := 0; i < m; i++ {
		ti, ai := sites[i].Prec, alpha[i]
		srow := sr.Data[i*sr.Stride+i : i*sr.Stride+m]
		r := row[:m-i]
		for j, sij := range srow {
			r[j] = ai*alpha[i+j] + ti*sites[i+j].Prec*sij
		}
		r[0] -= ti
		for k, d := range dK {
			if d == nil {
				continue
			}
			dr := d.RawSymmetric()
			drow := dr.Data[i*dr.Stride+i : i*dr.Stride+m]
			tr[k] += 2*floats.Dot(r, drow) - r[0]*drow[0] // off-diagonal entries twice
		}
	}
	for k, t := range tr {
		grad[k] += 0.5 * t
	}
}

// identityR is R for sites that observe the coordinates of w one by one
// (A = I) with positive site precisions, in GPML infEP's form
//
//	R = α αᵀ − S B⁻¹ S,   B = I + S K S,   S = diag(√τ̃),
//
// since (K + T̃⁻¹)⁻¹ = S B⁻¹ S; one Cholesky factorisation and inverse of
// B instead of the posterior covariance. ok is false when it does not
// apply (projections, a site precision ≤ 0, B not positive definite).
func identityR(alpha []float64, sites []families.Gaussian, p *ep.Problem) (*mat.SymDense, bool) {
	m := len(sites)
	if projMatrix(p) != nil || p.Cov.SymmetricDim() != m {
		return nil, false
	}
	s := make([]float64, m)
	for i, sp := range sites {
		if !(sp.Prec > 0) {
			return nil, false
		}
		s[i] = math.Sqrt(sp.Prec)
	}
	B := mat.NewSymDense(m, nil)
	braw, kraw := B.RawSymmetric(), p.Cov.RawSymmetric()
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			braw.Data[i*braw.Stride+j] = s[i] * kraw.Data[i*kraw.Stride+j] * s[j]
		}
		braw.Data[i*braw.Stride+i]++
	}
	var ch mat.Cholesky
	if !ch.Factorize(B) {
		return nil, false
	}
	R := mat.NewSymDense(m, nil)
	if err := ch.InverseTo(R); err != nil {
		return nil, false
	}
	raw := R.RawSymmetric()
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			raw.Data[i*raw.Stride+j] = alpha[i]*alpha[j] - s[i]*raw.Data[i*raw.Stride+j]*s[j]
		}
	}
	return R, true
}

// projMatrix returns the M×N matrix A of the sites' projections, or nil when
// A = I (site i observes coordinate i of w).
func projMatrix(p *ep.Problem) *mat.Dense {
	n := p.Cov.SymmetricDim()
	ident := len(p.Sites) == n
	for i, s := range p.Sites {
		if s.Proj != nil || s.Index != i {
			ident = false
		}
	}
	if ident {
		return nil
	}
	A := mat.NewDense(len(p.Sites), n, nil)
	for i, s := range p.Sites {
		if s.Proj != nil {
			A.SetRow(i, s.Proj)
		} else {
			A.Set(i, s.Index, 1)
		}
	}
	return A
}

// sandwich returns A S Aᵀ, symmetrised.
func sandwich(A mat.Matrix, S mat.Symmetric) *mat.SymDense {
	r, _ := A.Dims()
	var AS, full mat.Dense
	AS.Mul(A, S)
	full.Mul(&AS, A.T())
	out := mat.NewSymDense(r, nil)
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			out.SetSym(i, j, 0.5*(full.At(i, j)+full.At(j, i)))
		}
	}
	return out
}

// traceProd returns tr(A B) = Σ_ij A_ij B_ij for symmetric A and B.
func traceProd(A, B *mat.SymDense) float64 {
	n := A.SymmetricDim()
	var s float64
	for i := 0; i < n; i++ {
		s += A.At(i, i) * B.At(i, i)
		for j := i + 1; j < n; j++ {
			s += 2 * A.At(i, j) * B.At(i, j)
		}
	}
	return s
}

// addLikGrad adds Σ_i (∂ log Ẑ_i/∂θ_i)(∂θ_i/∂x_k) at the cavities of the
// converged posterior: cavity precision 1/σ_i² − τ̃_i, precision-mean
// μ_i/σ_i² − ν̃_i.
func addLikGrad(grad []float64, res *ep.Result, b *Block) error {
	var dlog []float64 // ∂ log Ẑ_i/∂θ_i, computed once
	for k, d := range b.DLik {
		if d == nil {
			continue
		}
		if dlog == nil {
			var err error
			if dlog, err = siteParamGrads(res, b.Problem); err != nil {
				return err
			}
		}
		for i, di := range d {
			if di != 0 {
				grad[k] += di * dlog[i]
			}
		}
	}
	return nil
}

func siteParamGrads(res *ep.Result, p *ep.Problem) ([]float64, error) {
	out := make([]float64, len(p.Sites))
	for i, s := range p.Sites {
		sp := res.Sites[i]
		mu, s2 := res.FMean[i], res.FVar[i]
		tc, nc := 1/s2-sp.Prec, mu/s2-sp.Shift
		if !(tc > 0) {
			return nil, fmt.Errorf("learn: site %d has a non-positive cavity precision %g at the fixed point", i, tc)
		}
		if _, ok := s.Lik.(factor.ParamGrad); !ok {
			continue // no likelihood parameter (probit, poisson_log)
		}
		g, err := LikParamGrad(s.Lik, s.Y, nc/tc, 1/tc)
		if err != nil {
			return nil, fmt.Errorf("site %d: %w", i, err)
		}
		out[i] = g
	}
	return out, nil
}
