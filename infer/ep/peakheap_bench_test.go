package ep_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/benchdata"
)

// BenchmarkRunPeakHeap: the peak heap of a whole sequential run of 11
// sweeps (a refresh after the 10th, the final factorisation), problem
// included, in M×M matrices of float64 (target: at most 4, docs/performance.md).
func BenchmarkRunPeakHeap(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var peak uint64
			for i := 0; i < b.N; i++ {
				peak = max(peak, benchdata.PeakHeap(func() {
					p := benchdata.ProbitGP(n, uint64(n))
					s := ep.Settings{Settings: infer.Settings{MaxIter: 11, Tol: 1e-300}}
					if _, err := ep.Run(context.Background(), p, s); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(peak)/(8*float64(n)*float64(n)), "matrices")
		})
	}
}
