package compile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fg-infer/fg/internal/testkit"
)

// frontEndInputs builds the front-end stress inputs (inputs that once took
// quadratic time or memory to check) with n
// statements (or literal elements): they must check in time linear in n.
var frontEndInputs = []struct {
	name string
	gen  func(n int) string
}{
	{"params", func(n int) string {
		var b strings.Builder
		b.WriteString("model m\n")
		for i := range n {
			fmt.Fprintf(&b, "param p%d = %d\n", i, i)
		}
		return b.String()
	}},
	{"semicolons", func(n int) string { return "model m\n" + strings.Repeat(";", n) + "\n" }},
	{"blank_lines", func(n int) string { return "model m\n" + strings.Repeat("\n", n) }},
	{"literal", func(n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "model m\ndata x: real[%d] = [", n)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d", i%7)
		}
		b.WriteString("]\n")
		return b.String()
	}},
}

// BenchmarkCheckFrontEnd runs `fg check`'s compilation (parse, lower,
// evaluate, build) on each stress input at 10⁴ and 10⁵ statements; the
// two sizes should differ by about 10× in time and memory. Besides ns/op
// (wall time, inflated on a shared machine) it reports cpu-ns/op, the
// process's user+system CPU time per operation.
func BenchmarkCheckFrontEnd(b *testing.B) {
	for _, in := range frontEndInputs {
		for _, n := range []int{10_000, 100_000} {
			src := []byte(in.gen(n))
			b.Run(fmt.Sprintf("%s/n=%d", in.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				cpu := testkit.ProcessCPU(b)
				for b.Loop() {
					if _, err := Check("m.fg", src, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(testkit.ProcessCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
