package mcmc

import (
	"context"
	"errors"
	"math"

	"github.com/fg-infer/fg/infer/netjoint"
)

// foldFactors is the Gaussian of the linear-Gaussian factors fs over n
// columns of half-width k in square-root information form
// (netjoint.RootBand): factor f is the least-squares row a_f/σ_f,
// (Y_f − Const_f − Σ_out a_v·fixed(v))/σ_f over the columns col(v) ≥ 0
// of its variables, the variables with col(v) < 0 held at fixed(v) (nil
// when every variable has a column). A factor with no column is left out;
// a variable named twice adds its coefficients. The rows are folded in
// order of their first column, as RootBand needs, so Λ = AᵀA is never
// formed: the information form lost about κ(Λ)·ε in the conditional's
// covariance, 10⁻⁴ relative on a long near-constant-velocity chain
// (TestChainBackbonePrecision). It checks ctx every 2¹⁴ factors.
func foldFactors(ctx context.Context, fs []LinearFactor, n, k int, col func(v int) int, fixed func(v int) float64) (*netjoint.RootBand, error) {
	first := make([]int32, len(fs))
	for i, f := range fs {
		lo := n
		for _, v := range f.Vars {
			if c := col(v); c >= 0 {
				lo = min(lo, c)
			}
		}
		first[i] = int32(lo)
		if lo == n {
			first[i] = -1
		}
	}
	rb := netjoint.NewRootBand(n, k)
	err := rb.FoldRows(first, ctx.Done(), func(i int, a []float64) (int, float64) {
		f, lo, hi := &fs[i], int(first[i]), 0
		b := f.Y - f.Const
		s := math.Sqrt(f.Var)
		for e, v := range f.Vars {
			if c := col(v); c >= 0 {
				a[c-lo] += f.Coefs[e] / s
				hi = max(hi, c)
			} else {
				b -= f.Coefs[e] * fixed(v)
			}
		}
		return hi - lo + 1, b / s
	})
	if errors.Is(err, netjoint.ErrCanceled) {
		return nil, ctx.Err()
	}
	return rb, err
}
