package ep

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
)

// Weight marginals under a tight site. On the site-space path the marginal
// variance of w_j is diag K − diag(K Aᵀ S B⁻¹ S A K); a tight site i
// (noise r_i = 1/τ̃_i far below its cavity variance) whose projection
// a_iᵀw is dominated by w_j pins w_j to O(r_i + the rest of the
// projection's variance), and the difference of two O(K_jj) numbers loses
// ε K_jj / Var(w_j) of it (7e-5 relative at r = 1e-12 with a = (1, 1e-6,
// −1e-6)). With Σ\i the weight posterior without site i, adding site i is
// the rank-one update Σ = Σ\i − Σ\i a aᵀ Σ\i / (r + v), v = aᵀ Σ\i a, and
// writing aᵀw = a_j w_j + uᵀw (u = a with its j-th entry zeroed) the a_j
// terms cancel exactly in
//
//	Var(w_j) = [Σ\i_jj (r + uᵀΣ\i u) − (Σ\i u)_j²] / (r + v),
//
// the form of families.LeaveOneOut (the member's variance from the other
// members' share of the projection) with a correlated cavity. Σ\i comes
// from one factorisation of B with every tight site flat, which pins
// nothing: its Gram Xᵀ Σ_L X = Xᵀ K X − Xᵀ K Aᵀ S B⁻¹ S A K X over the
// tight sites' members e_j and projections a_k, then the other tight sites
// T' = T ∖ {i} added back in their t − 1 dimensions,
//
//	Σ\i = Σ_L − Σ_L A_T'ᵀ (R_T' + A_T' Σ_L A_T'ᵀ)⁻¹ A_T' Σ_L.
//
// The terms are of the size of the answer unless w_j is pinned by Σ\i
// itself (another tight site on w_j): a member of several tight sites takes
// the form of the one whose cavity leaves it free (tightMemberVars); a
// weight that only several tight sites together pin, none alone, is not
// repaired.
// It is applied to the members whose variance the site more than halves
// (c_j² > ½ Σ\i_jj (r + v), c = Σ\i a; the textbook form loses at most a
// bit on the others). It costs one more factorisation of B, O((N² + M²)
// (|U| + t)) for the Gram over the tight sites' members U, O(t³) per tight
// site and O(|S|²) per member so applied (S the site's support), only when
// some site is tight; beyond tightMargMax tight sites the marginals keep
// the textbook form.
const tightMargMax = 64

// tightWeightVars overwrites vr[j] for the members j of every tight site
// (a_ij ≠ 0) with the form above. Beyond tightMargMax tight sites, or when
// its factorisation fails (a singular matrix), it leaves the textbook
// values and returns a note saying so, which the result's message carries
// (a warning on a converged run); canceled, it returns "" (the run's status
// says it).
func (e *engine) tightWeightVars(sites []families.Gaussian, vr []float64) string {
	pr := e.pr
	var idx []int
	for i, sp := range sites {
		if tight(sp, pr.priorVar(i)) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return ""
	}
	if len(idx) > tightMargMax {
		return fmt.Sprintf("%d sites are tight (noise below 1/%g of their prior variance), more than the %d whose weights' marginal variances are repaired: those variances keep the textbook form, which can lose digits", len(idx), tightRatio, tightMargMax)
	}
	tau, _ := siteVectors(pr, sites)
	for _, i := range idx {
		tau[i] = 0
	}
	bf, err := newBform(pr.Kf, tau, nil, e.done)
	if errors.Is(err, errCanceled) {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("the marginal variances of the weights of %d tight sites keep the textbook form, which can lose digits (the factorisation without them failed: %v)", len(idx), err)
	}
	// X = [e_j for the members U, a_k for the tight sites T], column at[j]
	// or len(U) + position in idx.
	n := len(pr.m0)
	at := make(map[int]int)
	var members []int
	for _, i := range idx {
		for j, aj := range pr.A.RawRowView(i) {
			if _, ok := at[j]; aj != 0 && !ok {
				at[j] = len(members)
				members = append(members, j)
			}
		}
	}
	q := len(members) + len(idx)
	X := mat.NewDense(n, q, nil)
	for s, j := range members {
		X.Set(j, s, 1)
	}
	for t, i := range idx {
		X.SetCol(len(members)+t, pr.A.RawRowView(i))
	}
	var KX, gram, C mat.Dense
	KX.Mul(pr.K, X)
	gram.Mul(X.T(), &KX)
	C.Mul(pr.A, &KX) // A K X (M×q)
	P, Q := bf.quadForm(&C)
	var red mat.Dense
	red.Mul(P.T(), Q)
	gram.Sub(&gram, &red) // Xᵀ Σ_L X
	best := make([]float64, len(members))
	for t := range idx {
		e.tightMemberVars(&gram, members, at, idx, t, sites, vr, best)
	}
	return ""
}

// tightMemberVars applies the form of tightWeightVars to the members of
// tight site idx[t], given the Gram matrix of Σ_L over the members and the
// tight projections. A member of several tight sites takes the form of the
// site whose cavity variance Σ\i_jj is the largest (best, per member): the
// site that pins it, whose cavity does not.
func (e *engine) tightMemberVars(gram *mat.Dense, members []int, at map[int]int, idx []int, t int, sites []families.Gaussian, vr, best []float64) {
	pr := e.pr
	i := idx[t]
	a := pr.A.RawRowView(i)
	var supp []int // columns of gram
	for j, aj := range a {
		if aj != 0 {
			supp = append(supp, at[j])
		}
	}
	// Σ\i on the support: Σ_L − Gᵀ H⁻¹ G over the other tight sites.
	sig := mat.NewDense(len(supp), len(supp), nil)
	for s, cs := range supp {
		for u, cu := range supp {
			sig.Set(s, u, gram.At(cs, cu))
		}
	}
	if o := len(idx) - 1; o > 0 {
		H := mat.NewSymDense(o, nil)
		G := mat.NewDense(o, len(supp), nil)
		var other []int
		for k := range idx {
			if k != t {
				other = append(other, len(members)+k)
			}
		}
		for x, ck := range other {
			for y := x; y < o; y++ {
				H.SetSym(x, y, gram.At(ck, other[y]))
			}
			H.SetSym(x, x, H.At(x, x)+1/sites[idx[ck-len(members)]].Prec)
			for s, cs := range supp {
				G.Set(x, s, gram.At(ck, cs))
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(H) {
			return
		}
		var HG, red mat.Dense
		if err := ch.SolveTo(&HG, G); err != nil {
			return
		}
		red.Mul(G.T(), &HG)
		sig.Sub(sig, &red)
	}
	r := 1 / sites[i].Prec
	var as []float64
	for _, aj := range a {
		if aj != 0 {
			as = append(as, aj)
		}
	}
	sa := make([]float64, len(supp)) // Σ\i a on the support
	var v float64
	for s := range supp {
		for u := range supp {
			sa[s] += sig.At(s, u) * as[u]
		}
		v += as[s] * sa[s]
	}
	for s, cs := range supp {
		// The site takes at most half of w_j's cavity variance: the
		// textbook form loses at most a bit there.
		if sa[s]*sa[s] <= 0.5*sig.At(s, s)*(r+v) {
			continue
		}
		var uu, cu float64 // uᵀΣ\i u, (Σ\i u)_j, without a_j's terms
		for u := range supp {
			if u == s {
				continue
			}
			cu += sig.At(s, u) * as[u]
			for w := range supp {
				if w != s {
					uu += as[u] * sig.At(u, w) * as[w]
				}
			}
		}
		if d := (sig.At(s, s)*(r+uu) - cu*cu) / (r + v); d > 0 && finite(d) && sig.At(s, s) > best[cs] {
			vr[members[cs]], best[cs] = d, sig.At(s, s)
		}
	}
}
