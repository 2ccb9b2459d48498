package learn

import (
	"context"
	"testing"

	"github.com/fg-infer/fg/infer/ep"
)

// BenchmarkGradientPima times one evidence gradient (Result.Cov, R and the
// two trace products) on pima_ripley_se_probit (n = 200) after EP.
func BenchmarkGradientPima(b *testing.B) {
	X, y := gpmlData(b, "pima_ripley_se_probit", "train.csv")
	blocks, err := seBuilder(X, y, probit)([]float64{1, 0.5})
	if err != nil {
		b.Fatal(err)
	}
	res, err := ep.Run(context.Background(), blocks[0].Problem, ep.Settings{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Gradient(res, blocks[0]); err != nil {
			b.Fatal(err)
		}
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
