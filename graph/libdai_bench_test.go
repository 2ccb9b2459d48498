package graph

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
)

// libDAIGrid is an r×r Ising grid in libDAI's format, as libDAI's createfg
// writes one: a field factor per variable, then a coupling factor per edge
// (r = 1000: 2 998 000 factors, about 200 MB of text).
func libDAIGrid(r int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d\n\n", r*r+2*r*(r-1))
	for v := range r * r {
		h := 0.1 * float64(v%17-8)
		fmt.Fprintf(&b, "1\n%d\n2\n2\n0 %g\n1 %g\n\n", v, math.Exp(-h), math.Exp(h))
	}
	a, c := math.Exp(0.25), math.Exp(-0.25)
	for i := range r {
		for j := range r {
			v := i*r + j
			if j+1 < r {
				fmt.Fprintf(&b, "2\n%d %d\n2 2\n4\n0 %g\n1 %g\n2 %g\n3 %g\n\n", v, v+1, a, c, c, a)
			}
			if i+1 < r {
				fmt.Fprintf(&b, "2\n%d %d\n2 2\n4\n0 %g\n1 %g\n2 %g\n3 %g\n\n", v, v+r, a, c, c, a)
			}
		}
	}
	return b.Bytes()
}

// BenchmarkParseLibDAIGrid reads r×r Ising grids in libDAI form (r = 1000,
// 3·10⁶ factors, without -short; more than the reader's former limit of
// 10⁶). Reported: the reading speed (MB/s of text, by wall clock, and
// MB/cpu-s, by the process's CPU time, which a loaded machine does not
// stretch), ns/factor and live-B/factor, the heap the graph keeps per
// factor after a GC.
func BenchmarkParseLibDAIGrid(b *testing.B) {
	sides := []int{300}
	if !testing.Short() {
		sides = append(sides, 1000)
	}
	for _, r := range sides {
		src := libDAIGrid(r)
		b.Run(fmt.Sprint(r), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			var live float64
			n := 0
			cpu0, _ := testkit.CPUTime()
			for i := 0; i < b.N; i++ {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				g, err := ParseLibDAI(bytes.NewReader(src), "grid.fg", tableKind{})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				n = g.NumFactors()
				live += float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
				runtime.KeepAlive(g)
			}
			if cpu1, err := testkit.CPUTime(); err == nil && cpu1 > cpu0 {
				cpu := cpu1 - cpu0
				// GC cycles included: the two forced per iteration are a few
				// percent of a parse
				b.ReportMetric(float64(len(src))*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/factor")
			b.ReportMetric(live/float64(b.N), "live-B/factor")
		})
	}
}
