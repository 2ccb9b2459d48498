package compile

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkCompileSites compiles n probit sites on one element of a small
// latent (as cmd/fg/testdata/badinput/ep_999999_probit_sites does with
// n = 999999). B/op and allocs/op divided by n are what compile allocates
// per likelihood site; live-B/site is the heap the compiled model keeps
// per site (measured after a GC).
func BenchmarkCompileSites(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		src := fmt.Sprintf("model sites\nlatent w: real[3] ~ normal(0, 1)\nfor i in 0..%d {\n  1 ~ probit(w[0])\n}\ninfer ep\n", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			var live uint64
			for i := 0; i < b.N; i++ {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				m, err := CompileSource("sites.fg", []byte(src), Options{})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(m)
				live += after.HeapAlloc - before.HeapAlloc
			}
			b.ReportMetric(float64(live)/float64(b.N*n), "live-B/site")
		})
	}
}

// BenchmarkCompilePredictSites compiles n = 10⁵ step sites of one
// likelihood and a predict over the latent they observe, whose
// compilation checks that every site has the same likelihood: a Gaussian
// block's sites (block) and a factor graph's affine sites (factor graph).
func BenchmarkCompilePredictSites(b *testing.B) {
	const head = "model sites\nlatent w: real[2] ~ normal(0, 1)\n"
	for _, c := range []struct{ name, src string }{
		{"block", head + "for i in 0..100000 {\n  1 ~ step(w[0] + 0.5 * w[1], 0.1)\n}\npredict p = predictive(w, [[1, 2]])\ninfer ep\n"},
		{"factor graph", head + "latent b: real ~ normal(0, 1)\nfor i in 0..100000 {\n  1 ~ step(w[0] + 0.5 * w[1] + b, 0.1)\n}\npredict p = predictive(w, [[1, 2]])\ninfer ep\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := CompileSource("sites.fg", []byte(c.src), Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
