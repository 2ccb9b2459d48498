package ep

import (
	"encoding/binary"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
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
// For the set T of tight sites with τ̃_i v_i > ½ (t ≤ 2N of them; see
// below for the others) the
// leave-one-out form of tight.go applies to a t-dimensional problem: with
// N(μ_L, Σ_L) the weight posterior under the prior and the other sites
// (posteriorW with T's sites flat), the projections f_T = A_T w have the
// Gaussian "prior" N(A_T μ_L, A_T Σ_L A_Tᵀ), which T's sites turn into the
// same posterior marginals; recompute on that site-space problem gives
// them, their cavities and α_T = ν̃_T − T_T μ_T in the forms of tight.go
// (B's inverse diagonal, R&W eqs 5.10–5.12). Σ_L is well conditioned in
// the directions T pins, so nothing cancels. Cost: one more weight-space
// factorisation, O(M N² + N³), and O(t N² + t³), only when some site is
// tight; other runs keep their arithmetic.
//
// Sites on one projection (a row of A repeated: several observations of
// one element) are merged first — their product is one Gaussian site — so
// that the problem has one projection each (repeated projections would
// make B nearly rank-deficient and its inverse diagonal lose digits). Site
// i of group g then has the group's marginal, the group's cavity times the
// group's other sites, and
//
//	α_i = τ̃_i (m̃_i − m̃_g) + (τ̃_i/τ_g) α_g,
//
// since μ = m̃_g − α_g/τ_g: the first term is a difference of the sites'
// own means, not of two means that agree to the noise level (with three
// equal observations at noise 1e-11, ν̃_i − τ̃_i μ lost log Z's fifth digit).
// All tight groups join T while there are at most subMax(M, N) of them (the
// problem then costs no more than a weight-space factorisation); beyond
// that (thousands of tight projections on a few weights) only the
// high-leverage ones do, and the others' α keeps a relative error of about
// ε m̃_i/(m̃_i − μ_i).

// leverageMin is the smallest τ̃_i v_i of a tight site given the stable forms.
const leverageMin = 0.5

// subMax is the largest number of tight sites that all join T: the
// t-site problem then costs O(t N² + t³), no more than a weight-space
// factorisation's O(M N² + N³).
func subMax(m, n int) int {
	return max(2*n, int(math.Cbrt(float64(m)*float64(n)*float64(n))))
}

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

// tightenW recomputes the marginals, cavities and α of the tight sites of a
// weight-space state just computed from sites (see above). It changes
// nothing when no site is tight.
func (st *state) tightenW(pr *projection, sites []families.Gaussian) error {
	st.cav, st.alpha = nil, nil
	grp, members := projectionGroups(pr.A)
	merged := make([]families.Gaussian, len(members))
	for i, sp := range sites {
		merged[grp[i]].Prec += sp.Prec
		merged[grp[i]].Shift += sp.Shift
	}
	var all, hi []int // tight groups, and those with a large leverage
	for g, sp := range merged {
		i := members[g][0]
		if tight(sp, pr.kfDiag[i]) {
			all = append(all, g)
			if sp.Prec*st.sdiag[i] > leverageMin {
				hi = append(hi, g)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	if m, n := pr.A.Dims(); len(all) <= subMax(m, n) {
		hi = all
	}
	if len(hi) == 0 {
		return nil
	}
	loose := append([]families.Gaussian(nil), sites...)
	rows := make([]int, len(hi))
	for a, g := range hi {
		rows[a] = members[g][0]
		for _, i := range members[g] {
			loose[i] = families.Gaussian{}
		}
	}
	sub, err := subProblemW(pr, loose, rows)
	if err != nil {
		return err
	}
	subSites := make([]families.Gaussian, len(hi))
	for a, g := range hi {
		subSites[a] = merged[g]
	}
	sst, alpha, err := leaveOneOut(sub, subSites)
	if err != nil {
		return err
	}
	st.cav, st.alpha = make([]families.Gaussian, len(sites)), make([]float64, len(sites))
	for i := range st.alpha {
		st.alpha[i] = math.NaN()
	}
	for a, g := range hi {
		var gc families.Gaussian // the group's cavity (all its sites removed)
		if sst.cav != nil {
			gc = sst.cav[a]
		}
		for _, i := range members[g] {
			sp := sites[i]
			st.mu[i], st.sdiag[i] = sst.mu[a], sst.sdiag[a]
			st.alpha[i] = memberAlpha(sp, merged[g], alpha[a])
			if gc.Prec > 0 {
				c := gc
				for _, k := range members[g] {
					if k != i {
						c.Prec, c.Shift = c.Prec+sites[k].Prec, c.Shift+sites[k].Shift
					}
				}
				st.cav[i] = c
			}
		}
	}
	return nil
}

// projectionGroups groups the rows of A that are equal (several sites on
// one projection, as many index sites on one element): grp[i] is row i's
// group, members[g] the rows of group g in order.
func projectionGroups(A *mat.Dense) (grp []int, members [][]int) {
	m, _ := A.Dims()
	grp = make([]int, m)
	seen := map[string]int{}
	for i := range m {
		row := A.RawRowView(i)
		key := make([]byte, 0, 8*len(row))
		for _, x := range row {
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(x))
		}
		g, ok := seen[string(key)]
		if !ok {
			g = len(members)
			seen[string(key)] = g
			members = append(members, nil)
		}
		grp[i] = g
		members[g] = append(members[g], i)
	}
	return grp, members
}

// memberAlpha is α = ν̃ − τ̃ μ of site sp, one of the sites whose product is
// the site merged (τ_g > 0) with α_g = ν_g − τ_g μ: τ̃ (m̃ − m̃_g) + (τ̃/τ_g) α_g,
// since μ = m̃_g − α_g/τ_g — a difference of the sites' own means, where
// ν̃ − τ̃ μ would subtract two numbers that agree to the noise level.
func memberAlpha(sp, merged families.Gaussian, alphaG float64) float64 {
	if sp.Prec == 0 {
		return sp.Shift
	}
	return sp.Prec*(sp.Shift/sp.Prec-merged.Shift/merged.Prec) + sp.Prec/merged.Prec*alphaG
}

// subProblemW is the site-space problem of the projections rows under the
// prior and the sites loose (theirs flat): projections f_T = A_T w with mean
// A_T μ_L and covariance A_T Σ_L A_Tᵀ, (μ_L, Σ_L) the weight posterior
// under loose.
func subProblemW(pr *projection, loose []families.Gaussian, rows []int) (*projection, error) {
	lw, err := posteriorW(pr, loose)
	if err != nil {
		return nil, err
	}
	t, n := len(rows), len(lw.w.mu)
	AT := mat.NewDense(t, n, nil)
	sub := &projection{identity: true, allTight: true, Kf: mat.NewSymDense(t, nil), f0: make([]float64, t)}
	for a, i := range rows {
		AT.SetRow(a, pr.A.RawRowView(i))
		sub.f0[a] = dot(pr.A.RawRowView(i), lw.w.mu)
	}
	var ATS mat.Dense
	ATS.Mul(AT, lw.w.sigma)
	for a := range t {
		for b := a; b < t; b++ {
			sub.Kf.SetSym(a, b, dot(ATS.RawRowView(a), AT.RawRowView(b)))
		}
	}
	return sub, nil
}
