package factor

import "testing"

// BenchmarkQuadTilted is the cost of one EP moment computation by
// quadTilted for the likelihoods that have no closed form.
func BenchmarkQuadTilted(b *testing.B) {
	cases := []struct {
		name string
		lik  Tilted
		y    float64
	}{
		{"poisson_log", PoissonLog{}, 3},
		{"student_t", StudentT{Nu: 4, Scale: 0.5}, 1.2},
		{"bernoulli_logit", BernoulliLogit{}, 1},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c.lik.Tilted(c.y, 0.3, 0.8, 1)
			}
		})
	}
}
