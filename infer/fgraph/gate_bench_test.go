package fgraph

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/families"
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
	benchGateSweep(b, 100000)
}

// BenchmarkRelaxedGateUpdate: one relaxed_kl(c = 0.01) update of a gate
// with two branches on one variable (oneGate: Gaussian branches; probit:
// the same gate with probit branches, whose E[log Φ] is a Gauss–Hermite
// sum): the line search over b (a log grid of ~300 evaluations of the
// relaxed KL, then Brent on its slope) and the messages:
//
//	go test -run '^$' -bench RelaxedGateUpdate ./infer/fgraph
func BenchmarkRelaxedGateUpdate(b *testing.B) {
	probit := NewGraph(1)
	probit.AddGaussian([]int{0}, []float64{1}, 0, 0.5, 4)
	z := probit.AddDiscrete([]float64{0.5, 0.5})
	probit.AddGate(z, 1, []Branch{{Lik: ep.Probit{}, Vars: []int{0}, Coefs: []float64{1}}, {Lik: ep.Probit{}, Vars: []int{0}, Coefs: []float64{-0.5}, C: 1}})
	for _, tc := range []struct {
		name string
		g    *Graph
	}{{"gaussian", oneGateGraph()}, {"probit", probit}} {
		b.Run(tc.name, func(b *testing.B) {
			st := newState(tc.g)
			fk := tc.g.fac(0)
			st.set(&fk, 0, families.Gaussian{Prec: 1 / oneGate.s0, Shift: oneGate.mu0 / oneGate.s0}) // the prior's message
			sc := newGateScratch(tc.g)
			sc.rx = &relaxation{c: 0.01, b: make([]float64, 1)}
			for i := 0; i < b.N; i++ {
				if !sc.gateMessages(tc.g, st, 0, 1) || !(sc.rx.b[0] > 0) {
					b.Fatalf("update skipped or not relaxed (b = %g)", sc.rx.b[0])
				}
			}
		})
	}
}

func benchGateSweep(b *testing.B, n int) {
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
