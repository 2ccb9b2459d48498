package learn

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/infer/ep"
)

// BenchmarkGradientPima times one evidence gradient (R and the two trace
// products) on pima_ripley_se_probit (n = 200) after EP: from GPML's B-form
// (one Cholesky and inverse of B) and from the running Σ_f that EP keeps
// with KeepCov (what Optimize uses).
func BenchmarkGradientPima(b *testing.B) {
	X, y := gpmlData(b, "pima_ripley_se_probit", "train.csv")
	blocks, err := seBuilder(X, y, probit)([]float64{1, 0.5})
	if err != nil {
		b.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		name := "bform"
		if keep {
			name = "keptcov"
		}
		b.Run(name, func(b *testing.B) {
			res, err := ep.Run(context.Background(), blocks[0].Problem, ep.Settings{KeepCov: keep})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Gradient(res, blocks[0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOptimizeToy2d times a whole learning run on toy2d_se_probit
// (n = 40) from GPML's start (0, 0).
func BenchmarkOptimizeToy2d(b *testing.B) {
	X, y := gpmlData(b, "toy2d_se_probit", "train.csv")
	build := seBuilder(X, y, probit)
	for i := 0; i < b.N; i++ {
		if _, err := Optimize(context.Background(), build, []Param{{Name: "a"}, {Name: "b"}}, Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}
