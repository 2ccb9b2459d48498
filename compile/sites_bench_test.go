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
