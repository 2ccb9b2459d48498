package exact

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/graph"
	nt "github.com/fg-infer/fg/infer/netjoint/nettest"
)

// BenchmarkNetForwardBackward: forward–backward on a two-state HMM with
// known parameters and Gaussian emissions at T = 10⁴ and 10⁵ (O(T K²)).
func BenchmarkNetForwardBackward(b *testing.B) {
	for _, T := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var n graph.Net
			prev := -1
			for t := 0; t < T; t++ {
				z := nt.Var(&n, "z", graph.Discrete, 2)
				if prev < 0 {
					nt.Factor(&n, nt.Categorical, z, nt.D("p", 0.5, 0.5))
				} else {
					nt.Factor(&n, nt.Categorical, z, nt.Select("p", prev, nt.D("p", 0.9, 0.1), nt.D("p", 0.2, 0.8)))
				}
				nt.Obs(&n, nt.Normal, 2*rng.Float64(), nt.Select("mean", z, nt.D("mean", 0), nt.D("mean", 2)), nt.D("var", 1))
				prev = z
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := RunNet(context.Background(), &n, NetSettings{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNetPoissonGamma: the closed form of 10⁴ and 10⁵ independent
// Poisson rates with Gamma(2, 1) priors and five counts each.
func BenchmarkNetPoissonGamma(b *testing.B) {
	for _, J := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("groups=%d", J), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var n graph.Net
			for j := 0; j < J; j++ {
				r := nt.Var(&n, "rate", graph.Gamma, 1)
				nt.Factor(&n, nt.Gamma, r, nt.D("shape", 2), nt.D("rate", 1))
				for i := 0; i < 5; i++ {
					nt.Obs(&n, nt.Poisson, float64(rng.IntN(6)), nt.V("rate", r))
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := RunNet(context.Background(), &n, NetSettings{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
