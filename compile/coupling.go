package compile

import (
	"math"
	"math/rand/v2"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// EP serves `factor exp(...)` potentials in the fully factorised family
// (infer/ffep: one Gaussian per element, the tilted moments by a numerical
// scheme). The schemes read the potential along each element's axis through
// the cavity mean μ: laplace and quick_laplace by its diagonal curvature, gq
// and vq at the 2d + 1 points μ, μ ± γσ_j e_j (Roche's rules). A potential
// of one element, or a separable one, is seen whole; a potential that
// couples elements is not — its mixed terms are invisible to the schemes,
// not only its correlation to the family. On exp(−2(x₁ − x₀ − 1)²) with a
// N(0, I) prior, the only factor besides the prior, the tilted distribution
// is the posterior, so fully factorised EP with its exact moments would give
// the exact marginals x₀ = −0.444 ± 0.745; laplace gives −0.444 ± 0.447 (the
// diagonal curvature 1 + 4), vq −0.8 ± 0.447 (log f interpolated on the
// axes: the slice at x₁ = 0) and gq −0.698 ± 0.785 (five points). So the
// default family (full) is refused there, and a line that writes family =
// factorized gets a warning naming the factor (infer/run's
// couplingWarning).

// checkCoupledBatches refuses family = full when a block's exp(...)
// potential couples several of its elements, at the family option (or the
// infer line), naming the potential's position.
func (c *compiler) checkCoupledBatches(s *ast.InferStmt) {
	for _, b := range c.m.Blocks() {
		for _, f := range b.Batches {
			if Couples(f.F, b.N) {
				c.fail(optionValue(s, "family"), "factor %s at %s couples several elements of `%s`: EP runs exp(...) factors in the fully factorised family with moment schemes that read the potential along each element's axis (laplace: its diagonal curvature; gq, vq: points on the axes), which miss the coupling; write family = factorized to accept that approximation, or use infer exact or infer mcmc",
					f.Label, c.fset.Position(f.Pos), b.Name)
				return
			}
		}
	}
}

// couplingProbes is the number of elements whose gradient sensitivity
// couples checks per probe point.
const couplingProbes = 32

// Couples reports whether the potential f of an n-vector couples elements:
// at two seeded points, moving one element on which f depends changes the
// gradient in another (a mixed second derivative, by a finite difference).
// A separable potential such as exp(−Σ w_i²) does not couple. A potential
// flat at both points (a hinge loss past its kink) reads as not coupled.
func Couples(f graph.Potential, n int) bool {
	rng := rand.New(rand.NewPCG(7, 11))
	w, g0, g1, h := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for range 2 {
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		f.Derivs(w, g0, h)
		var dep []int
		for i, g := range g0 {
			if g != 0 && !math.IsNaN(g) && !math.IsInf(g, 0) {
				dep = append(dep, i)
			}
		}
		if len(dep) < 2 {
			continue
		}
		for _, j := range dep[:min(len(dep), couplingProbes)] {
			step := 1e-4 * (1 + math.Abs(w[j]))
			w[j] += step
			f.Derivs(w, g1, h)
			w[j] -= step
			for _, k := range dep {
				if k != j && math.Abs(g1[k]-g0[k]) > 1e-7*(1+math.Abs(g0[k])) {
					return true
				}
			}
		}
	}
	return false
}
