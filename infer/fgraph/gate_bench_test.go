package fgraph

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// BenchmarkGateSweep: one sequential sweep of gated EP on the clutter
// problem with explicit indicators and 10⁵ observations (x ~ N(0, 100),
// z_i ~ Categorical(½, ½) selecting N(y_i; x, 1) or N(y_i; 0, 10)): 10⁵ gate
// updates, each two branch evidences and a moment-matched mixture:
//
//	go test -run '^$' -bench GateSweep -benchtime 5x ./infer/fgraph
func BenchmarkGateSweep(b *testing.B) {
	const n = 100000
	r := rand.New(rand.NewPCG(7, 8))
	g := NewGraph(1)
	g.AddGaussian([]int{0}, []float64{1}, 0, 0, 100)
	for range n {
		y := 2 + r.NormFloat64()
		if r.Float64() < 0.5 {
			y = math.Sqrt(10) * r.NormFloat64()
		}
		z := g.AddDiscrete([]float64{0.5, 0.5})
		g.AddGate(z, y, []Branch{{Lik: ep.Gaussian{Var: 1}, Vars: []int{0}, Coefs: []float64{1}}, {Lik: ep.Gaussian{Var: 10}}})
	}
	s := Settings{Settings: infer.Settings{MaxIter: 1}, Family: Factorized}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res, err := Run(context.Background(), g, s); err != nil || res.Iterations != 1 {
			b.Fatal(err)
		}
	}
}
