package compile

import (
	"fmt"
	"testing"
)

// BenchmarkCompileSites compiles N probit sites on one element of a small
// latent (as in cmd/fg/testdata/badinput/ep_999999_probit_sites); B/op and
// allocs/op divided by N are the memory compile spends per likelihood site.
func BenchmarkCompileSites(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		src := fmt.Sprintf("model sites\nlatent w: real[3] ~ normal(0, 1)\nfor i in 0..%d {\n  1 ~ probit(w[0])\n}\ninfer ep\n", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := CompileSource("sites.fg", []byte(src), Options{}); err != nil {
					b.Fatal(err)
				}
			}
			_ = n
		})
	}
}
