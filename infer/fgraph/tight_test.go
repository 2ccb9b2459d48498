package fgraph

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/testkit"
)

// tightSite is three independent variables x_k ~ N(mu_k, p_k) seen through
// one Gaussian likelihood y ~ N(aᵀx + c, r). With a = (1, 1e-6, −1e-6) the
// first member's site is tight: its cavity variance is ~1e12 times the
// rest of the projection's (r + a₂²p₂ + a₃²p₃).
var tightSite = struct {
	mu, p, a []float64
	c, y     float64
}{mu: []float64{0.3, -0.5, 1.1}, p: []float64{2, 0.8, 1.5}, a: []float64{1, 1e-6, -1e-6}, c: 0.2, y: 1.3}

// tightSiteGraph is tightSite at noise r, the likelihood an EP site
// (ep.Gaussian), not a linear-Gaussian factor, with its closed-form
// posterior (testkit.GaussianSite).
func tightSiteGraph(r float64) (g *Graph, mean, vr []float64, logZ float64) {
	ts := tightSite
	g = NewGraph(3)
	for k := range ts.mu {
		g.AddGaussian([]int{k}, []float64{1}, 0, ts.mu[k], ts.p[k])
	}
	g.AddSite(ep.Gaussian{Var: r}, ts.y, []int{0, 1, 2}, ts.a, ts.c)
	mean, vr, logZ = testkit.GaussianSite(ts.mu, ts.p, ts.a, ts.c, ts.y, r)
	return g, mean, vr, logZ
}

// TestTightMemberSites: a Gaussian likelihood site over several variables
// whose noise r (1e-3 … 1e-13) is tiny against a member's cavity: message
// passing on the tree (family = factorized and full) gives the closed-form
// marginals — variances within 1e-10 relative, means within 1e-10
// posterior sd plus the rounding of the mean itself (4ε|E x|; the tight
// member's sd is ~1e-6) — converged, with no skipped update. The member
// messages are the exact leave-one-out form (families.MemberSite); the
// derivative route put the tight member's variance 8e-6 off at r = 1e-12
// and 6e-5 at 1e-13. log Z is checked to 1e-9 relative while r ≥ 1e-7:
// the Bethe energy sums terms of size τ̃ μ² (~1e11 here) that cancel, so
// below that it loses ε·τ̃ (1.3e-5 at r = 1e-12).
func TestTightMemberSites(t *testing.T) {
	for e := 3; e <= 13; e++ {
		r := math.Pow(10, -float64(e))
		for _, fam := range []Family{Factorized, Full} {
			name := fmt.Sprintf("r = %g, %v", r, fam)
			g, mean, vr, logZ := tightSiteGraph(r)
			res, err := Run(context.Background(), g, Settings{Settings: infer.Settings{Tol: 1e-12}, Family: fam})
			if err != nil || res.Status != infer.Converged || res.Skipped != 0 {
				t.Errorf("%s: %v, %v (%s), %d skipped", name, err, res.Status, res.Message, res.Skipped)
				continue
			}
			testkit.CheckMarginals(t, name, res.Mean, res.Var, mean, vr, 1e-10)
			lz := math.Abs(res.LogZ/logZ - 1)
			if !res.HasLogZ || (r >= 1e-7 && !(lz <= 1e-9)) {
				t.Errorf("%s: log Z %.3g relative off (has %v)", name, lz, res.HasLogZ)
			}
		}
	}
}
