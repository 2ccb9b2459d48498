package ep

import (
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
)

// Weight marginals under a tight site. On the site-space path the marginal
// variance of w_j is diag K − diag(K Aᵀ S B⁻¹ S A K); a tight site i
// (noise r_i = 1/τ̃_i far below its cavity variance) whose projection
// a_iᵀw is dominated by w_j pins w_j to O(r_i + the rest of the
// projection's variance), and the difference of two O(K_jj) numbers loses
// ε K_jj / Var(w_j) of it (8e-6 relative at r = 1e-12 with a = (1, 1e-6,
// −1e-6)). With Σ\i the weight posterior without site i (its factorisation
// with τ̃_i = 0, which pins nothing), adding site i is the rank-one update
// Σ = Σ\i − Σ\i a aᵀ Σ\i / (r + v), v = aᵀ Σ\i a, and writing
// aᵀw = a_j w_j + uᵀw (u = a with its j-th entry zeroed) the a_j terms
// cancel exactly in
//
//	Var(w_j) = [Σ\i_jj (r + uᵀΣ\i u) − (Σ\i u)_j²] / (r + v),
//
// the form of families.LeaveOneOut (the member's variance from the other
// members' share of the projection) with a correlated cavity: its terms
// are of the size of the answer unless w_j is pinned by Σ\i itself (a
// second tight site on w_j), which this form does not repair. It costs one
// factorisation of B per tight site, so it runs for at most tightMargMax
// tight sites; beyond that the marginals keep the textbook form.
const tightMargMax = 16

// tightWeightVars overwrites vr[j] for the members j of every tight site
// (a_ij ≠ 0) with the form above, when the run has at most tightMargMax
// tight sites. A factorisation that fails (canceled, or B singular
// without site i) leaves the textbook values of that site's members.
func (e *engine) tightWeightVars(sites []families.Gaussian, vr []float64) {
	pr := e.pr
	var idx []int
	for i, sp := range sites {
		if tight(sp, pr.priorVar(i)) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 || len(idx) > tightMargMax {
		return
	}
	tau, _ := siteVectors(pr, sites)
	m := len(sites)
	for _, i := range idx {
		var supp []int
		a := pr.A.RawRowView(i)
		for j, aj := range a {
			if aj != 0 {
				supp = append(supp, j)
			}
		}
		ti := tau[i]
		tau[i] = 0
		bf, err := newBform(pr.Kf, tau, nil, e.done)
		tau[i] = ti
		if err != nil {
			continue
		}
		// Σ\i on the support: K_SS − Cᵀ S B⁻¹ S C with C = (K Aᵀ)_S,:ᵀ.
		C := mat.NewDense(m, len(supp), nil)
		for s, j := range supp {
			for k := 0; k < m; k++ {
				C.Set(k, s, pr.KAt.At(j, k))
			}
		}
		P, Q := bf.quadForm(C)
		sig := mat.NewDense(len(supp), len(supp), nil)
		sig.Mul(P.T(), Q)
		for s, j := range supp {
			for t, k := range supp {
				sig.Set(s, t, pr.K.At(j, k)-sig.At(s, t))
			}
		}
		r := 1 / sites[i].Prec
		var v float64
		for s := range supp {
			for t := range supp {
				v += a[supp[s]] * sig.At(s, t) * a[supp[t]]
			}
		}
		for s, j := range supp {
			var uu, cu float64 // uᵀΣ\i u, (Σ\i u)_j
			for t := range supp {
				if t == s {
					continue
				}
				cu += sig.At(s, t) * a[supp[t]]
				for q := range supp {
					if q != s {
						uu += a[supp[t]] * sig.At(t, q) * a[supp[q]]
					}
				}
			}
			if d := (sig.At(s, s)*(r+uu) - cu*cu) / (r + v); d > 0 && finite(d) {
				vr[j] = d
			}
		}
	}
}
