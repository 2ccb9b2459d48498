package quad

import (
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/stdlib/loss"
)

// benchSite times one mini-batch site computation at d = 31, s = 10 (the
// breast-cancer setting of roche Table 1: QLA 0.63 ms, GQ 0.40 ms, VQ 1.59 ms
// per mini-batch for the logistic loss in the paper's Python).
func benchSite(b *testing.B, sc Scheme, l loss.Loss) {
	rng := rand.New(rand.NewPCG(21, 22))
	const d, s = 31, 10
	f := randomBatch(rng, s, d, l)
	mu, sd := make([]float64, d), make([]float64, d)
	for i := range d {
		mu[i], sd[i] = 0.3*rng.NormFloat64(), 0.5+rng.Float64()
	}
	w := newWork(d)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.compute(sc, f, mu, sd); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSiteLALogistic(b *testing.B) { benchSite(b, Scheme{Kind: Laplace}, loss.Logistic{}) }
func BenchmarkSiteQLALogistic(b *testing.B) {
	benchSite(b, Scheme{Kind: QuickLaplace}, loss.Logistic{})
}
func BenchmarkSiteGQLogistic(b *testing.B) { benchSite(b, Scheme{Kind: GQ}, loss.Logistic{}) }
func BenchmarkSiteVQLogistic(b *testing.B) { benchSite(b, Scheme{Kind: VQ}, loss.Logistic{}) }
func BenchmarkSiteVQHinge(b *testing.B)    { benchSite(b, Scheme{Kind: VQ}, loss.Hinge{}) }
func BenchmarkSiteVQQuasi01(b *testing.B)  { benchSite(b, Scheme{Kind: VQ}, loss.Quasi01{Eps: 0.1}) }
func BenchmarkSiteVQColdLogistic(b *testing.B) {
	benchSite(b, Scheme{Kind: VQ, ColdStart: true}, loss.Logistic{})
}
