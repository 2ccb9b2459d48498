package ep

import (
	"testing"

	"github.com/fg-infer/fg/infer"
)

func BenchmarkZZSweep4000(b *testing.B) {
	e := benchEngine(b, 4000, infer.Sequential)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := e.sweepSequential(1); err != nil {
			b.Fatal(err)
		}
	}
	gflops(b, 64e9)
}
