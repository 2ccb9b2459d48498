package run

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/internal/datadir"
)

// BenchmarkLearnPima times a whole learning run of
// examples/gpml/learn_se_probit.fg on pima_ripley_se_probit (n = 200, D = 7)
// from (log ℓ, log sf) = (1, 0.5), GPML's start for that case; the optimum
// must reach GPML minimize's nlZ 102.264174 (pima_ripley_se_probit_opt100).
//
//	go test -run '^$' -bench LearnPima -benchtime 3x ./infer/run/
func BenchmarkLearnPima(b *testing.B) {
	set := map[string]string{"dir": strconv.Quote(datadir.Path("reference", "gpml", "pima_ripley_se_probit")), "log_ell": "1", "log_sf": "0.5"}
	m, err := compile.CompileFile("../../examples/gpml/learn_se_probit.fg", compile.Options{Set: set})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, learned, trace, err := Learn(context.Background(), m, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if best := trace[len(trace)-1]; math.Abs(best-102.26417423299408) > 1e-5 {
			b.Fatalf("nlZ %.9f at %+v, GPML 102.264174233", best, learned)
		}
	}
}
