package ep

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
)

// Tight sites. A site whose precision dwarfs its prior variance
// (τ̃_i Kf_ii ≫ 1: a Gaussian observation with noise variance r ≪ Kf_ii,
// τ̃ = 1/r) pins its marginal: σ_i² = 1/(τc + τ̃) ≈ 1/τ̃. The textbook
// forms then cancel. diag Σ = diag Kf − ‖V_i‖² subtracts two O(Kf_ii)
// numbers to get O(1/τ̃) (relative error ε τ̃ Kf_ii); the cavity
// τc = 1/σ_i² − τ̃ subtracts two O(τ̃) numbers to get O(1/Kf_ii) (relative
// error ε τ̃² Kf_ii²: every digit is gone at τ̃ Kf_ii ≈ 10⁸, and the sign is
// random soon after, so EP skipped the update and stalled). With
// β_i = (B⁻¹)_ii and α = Kf⁻¹(μ − f0) = S B⁻¹ S (m̃ − f0) (posteriorAlpha,
// computed without cancelling), the same quantities are products
// (Σ = S⁻¹(I − B⁻¹)S⁻¹ and τc (μ_i − m_i) = α_i):
//
//	σ_i² = (1 − β_i)/τ̃_i,   τc_i = τ̃_i β_i/(1 − β_i),
//	μ_i = m̃_i − α_i/τ̃_i,     m_i = m̃_i − α_i/(τ̃_i β_i),
//
// with m̃_i = ν̃_i/τ̃_i the site mean (β_i = τc_i/(τc_i + τ̃_i) ∈ (0, 1) for a
// proper cavity). For Gaussian sites these are the leave-one-out formulas of
// Sundararajan & Keerthi (2001, "Predictive approaches for choosing
// hyperparameters in Gaussian processes"; Rasmussen & Williams 2006,
// eqs 5.10–5.12): m_i = y_i − α_i/[(K + R)⁻¹]_ii. They cost one triangular
// solve (O(M²)) a tight site, and are used only for tight sites, so that
// other runs (GPML's tests) keep their arithmetic.
const tightRatio = 1e4

// tight reports whether site sp on a projection with prior variance kii is
// tight (see above).
func tight(sp families.Gaussian, kii float64) bool { return sp.Prec > 0 && sp.Prec*kii > tightRatio }

// anyTight reports whether some site is tight.
func anyTight(pr *projection, sites []families.Gaussian) bool {
	for i, sp := range sites {
		if tight(sp, pr.priorVar(i)) {
			return true
		}
	}
	return false
}

// priorVar is Kf_ii, the prior variance of projection i.
func (pr *projection) priorVar(i int) float64 {
	if pr.weight {
		return pr.kfDiag[i]
	}
	kr := pr.Kf.RawSymmetric()
	return kr.Data[i*kr.Stride+i]
}

// powerCavity returns the natural parameters of the power-u cavity q / t̃^u
// of a site sp whose u = 1 cavity is c: q = c·t̃, so τc(u) = τc + (1 − u) τ̃.
func powerCavity(c families.Gaussian, u float64, sp families.Gaussian) (tc, nc float64) {
	return c.Prec + (1-u)*sp.Prec, c.Shift + (1-u)*sp.Shift
}

// tighten recomputes the marginals of the tight sites of a state just
// computed from its factorisation st.bf in the stable forms above, and
// stores their cavities (st.cav; nil when no site is tight). It changes
// nothing for the other sites.
func (st *state) tighten(pr *projection, sites []families.Gaussian) error {
	st.cav = nil
	kr := pr.Kf.RawSymmetric()
	var idx []int
	for i, sp := range sites {
		if pr.allTight || tight(sp, kr.Data[i*kr.Stride+i]) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	alpha, err := posteriorAlpha(pr, st.bf, sites)
	if err != nil {
		return err
	}
	st.cav = make([]families.Gaussian, len(sites))
	w := make([]float64, len(sites))
	for _, i := range idx {
		beta, err := st.bf.invDiag(i, w)
		if err != nil {
			return err
		}
		if !(beta > 0 && beta < 1) {
			continue // no proper cavity: the update is skipped as before
		}
		sp := sites[i]
		mt := sp.Shift / sp.Prec
		st.mu[i] = mt - alpha[i]/sp.Prec
		st.sdiag[i] = (1 - beta) / sp.Prec
		if st.sigma != nil {
			st.sigma.SetSym(i, i, st.sdiag[i])
		}
		tc := sp.Prec * beta / (1 - beta)
		st.cav[i] = families.Gaussian{Prec: tc, Shift: tc * (mt - alpha[i]/(sp.Prec*beta))}
	}
	return nil
}

// leaveOneOut solves the site-space problem sub (a Gaussian prior over a
// few projections with the given sites; the weight-space and FITC paths
// build it for their tight sites) and returns its state — marginals, and
// the tight sites' cavities in the forms above — and α = ν̃ − T μ.
func leaveOneOut(sub *projection, sites []families.Gaussian) (*state, []float64, error) {
	st, err := recompute(sub, sites, false, scratch{})
	if err != nil {
		return nil, nil, err
	}
	alpha, err := posteriorAlpha(sub, st.bf, sites)
	if err != nil {
		return nil, nil, err
	}
	return st, alpha, nil
}

// invDiag returns (B⁻¹)_ii, using w (length M) as scratch: ‖U⁻ᵀ e_i‖² in
// the Cholesky case (one triangular solve), the i-th element of B⁻¹ e_i in
// the LU case.
func (bf *bform) invDiag(i int, w []float64) (float64, error) {
	clear(w)
	w[i] = 1
	if !bf.indefinite {
		v := blas64.Vector{N: len(w), Inc: 1, Data: w}
		blas64.Trsv(blas.Trans, bf.u, v)
		var s float64
		for _, x := range w[i:] { // U⁻ᵀ is lower triangular
			s += x * x
		}
		return s, nil
	}
	x := mat.NewVecDense(len(w), w)
	if err := bf.solveVec(x); err != nil {
		return 0, errImproper
	}
	return x.AtVec(i), nil
}

// cavityAt returns the natural parameters of the power-u cavity of site i
// with parameters sp and posterior marginal N(mu, v): the stable cavity of a
// tight site when the state has one, else τc = 1/v − u τ̃, νc = mu/v − u ν̃
// (rodrigues eqs 10–11).
func (st *state) cavityAt(i int, u float64, sp families.Gaussian, mu, v float64) (tc, nc float64) {
	if st != nil && st.cav != nil && st.cav[i].Prec > 0 {
		return powerCavity(st.cav[i], u, sp)
	}
	return 1/v - u*sp.Prec, mu/v - u*sp.Shift
}
