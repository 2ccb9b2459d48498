package exact

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func benchProblem(loglik func([]float64) float64) Problem {
	return Problem{Mean: []float64{0, 0}, Cov: mat.NewSymDense(2, []float64{1, 0.3, 0.3, 1}), LogLik: loglik}
}

var benchX = [][]float64{{1, 0.5}, {0.8, -0.3}, {-1, 0.2}, {-0.6, -0.9}, {0.4, 1.2}}
var benchY = []float64{1, 1, -1, -1, -1}

// BenchmarkQuadStep2D: five step sites (ε = 0.05), Tol 1e-3.
func BenchmarkQuadStep2D(b *testing.B) {
	p := benchProblem(stepLoglik(benchX, benchY, 0.05))
	for b.Loop() {
		if _, err := Run(context.Background(), p, Settings{Tol: 1e-3}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQuadProbit2D: five smooth probit sites, Tol 1e-8.
func BenchmarkQuadProbit2D(b *testing.B) {
	ll := func(w []float64) float64 {
		s := 0.0
		for i, x := range benchX {
			s += logPhi(benchY[i] * (x[0]*w[0] + x[1]*w[1]))
		}
		return s
	}
	p := benchProblem(ll)
	for b.Loop() {
		if _, err := Run(context.Background(), p, Settings{Tol: 1e-8}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIS: 1e5 importance samples on the step problem.
func BenchmarkIS(b *testing.B) {
	p := benchProblem(stepLoglik(benchX, benchY, 0.05))
	for b.Loop() {
		if _, err := Run(context.Background(), p, Settings{Method: "is", Samples: 100_000}); err != nil {
			b.Fatal(err)
		}
	}
}
