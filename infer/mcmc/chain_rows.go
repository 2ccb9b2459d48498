package mcmc

import (
	"context"
	"math"
	"slices"

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
	type row struct {
		lo int
		a  []float64
		b  float64
	}
	rows := make([]row, 0, len(fs))
	for i, f := range fs {
		if i&0x3fff == 0x3fff && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		lo, hi := n, -1
		b := f.Y - f.Const
		for e, v := range f.Vars {
			if c := col(v); c >= 0 {
				lo, hi = min(lo, c), max(hi, c)
			} else {
				b -= f.Coefs[e] * fixed(v)
			}
		}
		if hi < 0 {
			continue
		}
		s := math.Sqrt(f.Var)
		a := make([]float64, hi-lo+1)
		for e, v := range f.Vars {
			if c := col(v); c >= 0 {
				a[c-lo] += f.Coefs[e] / s
			}
		}
		rows = append(rows, row{lo, a, b / s})
	}
	slices.SortStableFunc(rows, func(x, y row) int { return x.lo - y.lo })
	rb := netjoint.NewRootBand(n, k)
	for i, r := range rows {
		if i&0x3fff == 0x3fff && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rb.AddRow(r.lo, r.a, r.b)
	}
	return rb, nil
}
