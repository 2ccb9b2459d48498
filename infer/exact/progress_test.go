package exact

import (
	"context"
	"math"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestProgress: "quad" reports its evaluations with total 0 and a finite
// error estimate, ending at most at Result.Evaluations, and goes on
// counting during Expect; "is" reports up to
// its known total, the largest report being the total itself (the two passes
// over the samples after the pilot runs).
func TestProgress(t *testing.T) {
	p := Problem{Mean: []float64{0, 0}, Cov: mat.NewSymDense(2, []float64{1, 0, 0, 1}),
		LogLik: func(w []float64) float64 { return -math.Log1p(math.Exp(-(w[0] - 0.5*w[1]))) }}
	type report struct {
		evals, total int
		err          float64
	}
	for _, method := range []string{"quad", "is"} {
		var mu sync.Mutex
		var got []report
		s := Settings{Method: method, Samples: 100000, Workers: 2,
			Progress: func(e, total int, err float64) { mu.Lock(); got = append(got, report{e, total, err}); mu.Unlock() }}
		res, err := Run(context.Background(), p, s)
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: %v, %d reports", method, err, len(got))
		}
		most := 0
		for _, r := range got {
			most = max(most, r.evals)
			if r.evals > res.Evaluations || r.evals <= 0 {
				t.Errorf("%s: report of %d evaluations, the run made %d", method, r.evals, res.Evaluations)
			}
			if method == "quad" && (r.total != 0 || math.IsNaN(r.err)) {
				t.Errorf("quad: report %+v: want total 0 and an error estimate", r)
			}
			if method == "is" && (r.total != res.Evaluations || !math.IsNaN(r.err)) {
				t.Errorf("is: report %+v: want total %d and no error estimate", r, res.Evaluations)
			}
		}
		if method == "is" && most != res.Evaluations {
			t.Errorf("is: the reports reach %d evaluations, not the total %d", most, res.Evaluations)
		}
		if method == "quad" { // Expect's pass goes on counting
			n := len(got)
			if _, _, err := res.Expect(context.Background(), []func([]float64) float64{func(w []float64) float64 { return w[0] }}); err != nil {
				t.Fatal(err)
			}
			if len(got) == n || got[len(got)-1].evals <= most || !math.IsNaN(got[len(got)-1].err) {
				t.Errorf("quad: Expect reported %d times, last %+v after %d evaluations", len(got)-n, got[len(got)-1], most)
			}
		}
	}
}
