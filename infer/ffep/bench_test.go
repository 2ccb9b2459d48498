package ffep

import (
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/stdlib/ad"
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

// BenchmarkSiteVQJets times the same VQ site through an ad.Potential (the
// form compile builds from `factor exp(-sum(logistic_loss(...)))`), which
// evaluates 2d+1 points by generic jets instead of shifted margins.
func BenchmarkSiteVQJets(b *testing.B) {
	rng := rand.New(rand.NewPCG(21, 22))
	const d, s = 31, 10
	bt := randomBatch(rng, s, d, loss.Logistic{})
	pot := ad.Potential{D: d, F: func(w []ad.Jet) ad.Jet {
		terms := make([]ad.Jet, s)
		for k := range bt.X {
			terms[k] = loss.LogisticLoss(ad.DotConst(bt.X[k], w).Scale(bt.Y[k]))
		}
		return ad.Sum(terms).Neg()
	}}
	mu, sd := make([]float64, d), make([]float64, d)
	for i := range d {
		mu[i], sd[i] = 0.3*rng.NormFloat64(), 0.5+rng.Float64()
	}
	w := newWork(d)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.compute(Scheme{Kind: VQ}, pot, mu, sd); err != nil {
			b.Fatal(err)
		}
	}
}
