package ep

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkClutterSweep: one sequential EP sweep of Minka's clutter problem
// (x ~ N(0, 100), y_i ~ ½ N(x, 1) + ½ N(0, 10)) with 10⁵ observations on a
// one-element block: 10⁵ closed-form mixture site updates (ep.Run with
// max_iter = 1, so the set-up and log Z_EP are included).
func BenchmarkClutterSweep(b *testing.B) {
	const n = 100000
	r := rand.New(rand.NewPCG(7, 8))
	p := &Problem{Mean: []float64{0}, Cov: mat.NewSymDense(1, []float64{100})}
	w, comps := []float64{0.5, 0.5}, []factor.Site{factor.Normal{Var: 1}, nil}
	for i := 0; i < n; i++ {
		y := 2 + r.NormFloat64()
		if r.Float64() < 0.5 {
			y = math.Sqrt(10) * r.NormFloat64()
		}
		c, _, _ := factor.Normal{Var: 10}.LogLik(y, 0)
		p.Sites = append(p.Sites, Site{Lik: factor.Mixture{W: w, Comps: comps, LogC: []float64{0, c}}, Y: y, Index: 0})
	}
	s := Settings{Settings: infer.Settings{Schedule: infer.Sequential, Divergence: infer.KL{}, MaxIter: 1, Tol: 1e-6, Damping: 1}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res, err := Run(context.Background(), p, s); err != nil || res.Iterations != 1 {
			b.Fatal(err)
		}
	}
}
