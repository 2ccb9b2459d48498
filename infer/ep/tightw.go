package ep

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Tight sites on the weight-space path. The weight-space posterior
// N(μ_w, Σ_w) gives a site's marginal variance v_i = a_iᵀ Σ_w a_i, and its
// cavity τc = 1/v_i − τ̃_i cancels as in site space (tight.go) when the
// site pins its projection, τ̃_i v_i → 1: the cavity's share of the
// marginal precision, β_i = 1 − τ̃_i v_i = τc/(τc + τ̃_i), is then tiny
// and every digit of it can be lost (the sequential sweep skipped such
// sites as improper and stalled at noise variances below 1e-9). Sites that
// the others pin as well (β_i ≥ ½) lose at most a bit there; and since
// Σ_i τ̃_i v_i = tr(G Σ_w) ≤ N, at most 2N sites have τ̃_i v_i > ½.
//
// For the set T of tight sites with τ̃_i v_i > ½ (t ≤ 2N of them) the
// leave-one-out form of tight.go applies to a t-dimensional problem: with
// N(μ_L, Σ_L) the weight posterior under the prior and the other sites
// (posteriorW with T's sites flat), the projections f_T = A_T w have the
// Gaussian "prior" N(A_T μ_L, A_T Σ_L A_Tᵀ), which T's sites turn into the
// same posterior marginals; recompute on that site-space problem gives
// them, their cavities and α_T = ν̃_T − T_T μ_T in the forms of tight.go
// (B's inverse diagonal, R&W eqs 5.10–5.12). Σ_L is well conditioned in
// the directions T pins, so nothing cancels. Cost: one more weight-space
// factorisation, O(M N² + N³), and O(t N² + t³), only when some site is
// tight and has a large leverage; other runs keep their arithmetic.

// leverageMin is the smallest τ̃_i v_i of a tight site given the stable forms.
const leverageMin = 0.5

// priorVariancesW returns Kf_ii = ‖Lᵀ a_i‖² for every row a_i of A.
func priorVariancesW(A *mat.Dense, L *mat.TriDense) []float64 {
	m, _ := A.Dims()
	out := make([]float64, m)
	var la mat.VecDense
	for i := range out {
		la.MulVec(L.T(), A.RowView(i))
		out[i] = mat.Dot(&la, &la)
	}
	return out
}

// tightenW recomputes the marginals, cavities and α of the tight,
// high-leverage sites of a weight-space state just computed from sites
// (see above). It changes nothing when there are none.
func (st *state) tightenW(pr *projection, sites []SiteParam) error {
	st.cav, st.alpha = nil, nil
	var idx []int
	for i, sp := range sites {
		if tight(sp, pr.kfDiag[i]) && sp.Tau*st.sdiag[i] > leverageMin {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	loose := append([]SiteParam(nil), sites...)
	for _, i := range idx {
		loose[i] = SiteParam{}
	}
	lw, err := posteriorW(pr, loose)
	if err != nil {
		return err
	}
	t, n := len(idx), len(lw.w.mu)
	AT := mat.NewDense(t, n, nil)
	sub := &projection{identity: true, Kf: mat.NewSymDense(t, nil), f0: make([]float64, t)}
	subSites := make([]SiteParam, t)
	for a, i := range idx {
		AT.SetRow(a, pr.A.RawRowView(i))
		sub.f0[a] = dot(pr.A.RawRowView(i), lw.w.mu)
		subSites[a] = sites[i]
	}
	var ATS mat.Dense
	ATS.Mul(AT, lw.w.sigma)
	for a := range t {
		for b := a; b < t; b++ {
			sub.Kf.SetSym(a, b, dot(ATS.RawRowView(a), AT.RawRowView(b)))
		}
	}
	sst, err := recompute(sub, subSites, false, scratch{})
	if err != nil {
		return err
	}
	alpha, err := posteriorAlpha(sub, sst.bf, subSites)
	if err != nil {
		return err
	}
	st.cav, st.alpha = make([]cavity, len(sites)), make([]float64, len(sites))
	for i := range st.alpha {
		st.alpha[i] = math.NaN()
	}
	for a, i := range idx {
		st.mu[i], st.sdiag[i], st.alpha[i] = sst.mu[a], sst.sdiag[a], alpha[a]
		if sst.cav != nil {
			st.cav[i] = sst.cav[a]
		}
	}
	return nil
}
