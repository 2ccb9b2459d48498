package ep

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestFITCTightSites: FITC EP with Gaussian sites of tiny noise. On
// repeatedSites (tinyX under se(1, 1), f[0] observed three times) with
// inducing inputs 0, 1.7 and 3.4 — three of the data inputs, whose FITC
// term g_i is only the jitter, so their sites dominate their direction of
// u, and five inputs between them with g_i ≈ 0.1 … 0.5 — every site's
// cavity, read from the marginal as 1/σ² − τ̃, cancels once r ≪ g_i + Q_ii.
// The engine's cavities now equal the leave-one-out closed form under the
// FITC prior (gaussLOO on the explicit Kt = Q + diag(g), Cholesky
// factorisations) to 1e-8 relative for r = 1e-3 … 1e-12 under both
// schedules, and the posterior marginals and log Z_EP the closed form to
// 1e-8 relative, also when the three observations of f[0] are equal.
func TestFITCTightSites(t *testing.T) {
	X := mat.NewDense(len(tinyX), 1, append([]float64(nil), tinyX...))
	Z := mat.NewDense(3, 1, []float64{0, 1.7, 3.4})
	k := kernel.SE{Lengthscale: 1, Var: 1}
	n := len(tinyY)
	for c := range 20 {
		e, equal := 3+c%10, c >= 10
		r := math.Pow(10, -float64(e))
		p := fitcProblem(k, X, Z, tinyY, Gaussian{Var: r})
		p.Sites = repeatedSites(r)
		if equal {
			p.Sites = repeatedAt(r, tinyY[0], tinyY[0])
		}
		Kt := explicitKt(t, p)
		wantZ, _, _ := gaussLOO(t, Kt, p.Sites, -1, 0)
		for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel} {
			name := fmt.Sprintf("r=1e-%d/equal=%v/%v", e, equal, sched)
			s := Settings{Settings: infer.Settings{Schedule: sched, Tol: 1e-9, MaxIter: 100}}
			rl, _ := newRule(nil, 1)
			pr, err := newFITCPrior(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			eng := newFITCEngine(p, pr, s.withDefaults(), rl)
			res := eng.loop(context.Background())
			if !convergedTo(t, name, res.Status, res.Stats.Skipped, res.HasLogZ, res.Message, res.LogZ, wantZ) {
				continue
			}
			for i := range n {
				_, m, v := gaussLOO(t, Kt, p.Sites, -1, i)
				if !relClose(res.Mean[i], m, 1e-8) || !relClose(res.Var[i], v, 1e-8) {
					t.Errorf("%s: f[%d] = %.15g ± %.10g, closed form %.15g ± %.10g", name, i, res.Mean[i], res.Var[i], m, v)
				}
			}
			for j, s := range p.Sites {
				i := s.Index
				tc, nc := eng.cavity(j, 1, eng.st.mu[i], eng.st.sdiag[i])
				_, m, v := gaussLOO(t, Kt, p.Sites, j, i)
				if !relClose(1/tc, v, 1e-8) || !relClose(nc/tc, m, 1e-8) {
					t.Errorf("%s: cavity of site %d N(%.15g, %.10g), leave-one-out %.15g, %.10g", name, j, nc/tc, 1/tc, m, v)
				}
			}
		}
	}
}
