package tep

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
)

// tpProblem is a Student-t process classification problem with n points in
// 2-D, squared-exponential scale matrix and the step likelihood.
func tpProblem(n int, nu float64) *Problem {
	rng := rand.New(rand.NewPCG(21, 22))
	x := make([][2]float64, n)
	for i := range x {
		x[i] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			d := (x[i][0]-x[j][0])*(x[i][0]-x[j][0]) + (x[i][1]-x[j][1])*(x[i][1]-x[j][1])
			v := math.Exp(-d / 2)
			if i == j {
				v += 0.01
			}
			K.SetSym(i, j, v)
		}
	}
	p := &Problem{Nu: nu, Scale: K}
	for i := 0; i < n; i++ {
		y := 1.0
		if x[i][0]+0.3*rng.NormFloat64() < 0 {
			y = -1
		}
		p.Sites = append(p.Sites, Site{Lik: factor.Step{Eps: 0.05}, Y: y, Index: i})
	}
	return p
}

// BenchmarkSweepTP150 measures one t-EP sweep (150 site updates, with the
// O(k³) setup and final posterior) of Student-t process classification.
// Measured on the 2-core dev machine, ms per op, full-matrix sites (O(k³)
// per site, ref_test.go) → relative sites (O(k²)): n = 100: 17.7 → 2.7,
// 150: 60 → 6.7, 200: 146 → 13.8, 400: 1343 → 88 (memory at 400:
// 277 MB → 17 MB). BenchmarkFitTP200: 19.5 s (89 sweeps) → 1.1 s (119).
func BenchmarkSweepTP150(b *testing.B) { benchSweepTP(b, 150) }

// BenchmarkSweepTP100, 200 and 400 show the growth with n = k.
func BenchmarkSweepTP100(b *testing.B) { benchSweepTP(b, 100) }
func BenchmarkSweepTP200(b *testing.B) { benchSweepTP(b, 200) }
func BenchmarkSweepTP400(b *testing.B) { benchSweepTP(b, 400) }

func benchSweepTP(b *testing.B, n int) {
	p := tpProblem(n, 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), p, infer.Settings{MaxIter: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitTP200 is a whole fit (damping 0.5, ‖Δμ‖ < 1e-8) of Student-t
// process classification with n = k = 200.
func BenchmarkFitTP200(b *testing.B) {
	p := tpProblem(200, 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Run(context.Background(), p, infer.Settings{Damping: 0.5}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Iterations), "sweeps")
	}
}
