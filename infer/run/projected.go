package run

import (
	"math"

	"github.com/fg-infer/fg/families"

	"github.com/fg-infer/fg/infer/ep"
)

// Projection and Tilted make a site a quad.Projected potential, so that
// fully factorised EP (ffBlock) can use the exact tilted marginals of its
// projection under approx = exact (infer/ffep/projected.go).

// Projection returns the non-zero coordinates of the site's projection a
// and their values.
func (p sitePotential) Projection() ([]int32, []float64) {
	if p.s.Proj == nil {
		return []int32{int32(p.s.Index)}, []float64{1}
	}
	var idx []int32
	var a []float64
	for i, x := range p.s.Proj {
		if x != 0 {
			idx, a = append(idx, int32(i)), append(a, x)
		}
	}
	return idx, a
}

// Tilted returns log Z(m, v) of the site's likelihood and its derivatives
// in m, by the kind's Tilted rule (closed forms for probit, step, normal;
// fixed quadrature for student_t, poisson_log, mixture); NaN for a kind
// without one (logistic), so the update is skipped and counted — compile
// refuses approx = exact for such sites.
func (p sitePotential) Tilted(m, v float64) (float64, float64, float64) {
	lik, ok := p.s.Lik.(ep.Likelihood)
	if !ok {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return lik.Tilted(p.s.Y, m, v, 1)
}

// GaussianSite is the site's likelihood itself as a site in the
// projection (τ = 1/r, ν = y/r) when it is Gaussian in it
// (families.GaussianSiter), so that approx = exact computes its members'
// sites in leave-one-out form (ffep.GaussianProjected).
func (p sitePotential) GaussianSite() (families.Gaussian, bool) {
	g, ok := p.s.Lik.(families.GaussianSiter)
	if !ok {
		return families.Gaussian{}, false
	}
	return g.GaussianSite(p.s.Y), true
}
