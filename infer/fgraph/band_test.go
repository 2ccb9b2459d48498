package fgraph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
)

// vectorChain is a chain of d-dimensional states written as scalar
// factors the way compile writes x[t] ~ mvnormal(A x[t−1], Q): element i
// of x_t regressed on x_{t−1} and on the elements of x_t before it (random
// coefficients), plus a noisy reading of a random combination of x_t's
// elements per step. Variables are time-major (x_t,i is d·t + i), or
// element-major (i·T + t) when byElement.
func vectorChain(T, d int, byElement bool, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 3))
	idx := func(t, i int) int {
		if byElement {
			return i*T + t
		}
		return d*t + i
	}
	g := NewGraph(T * d)
	for i := 0; i < d; i++ {
		g.AddGaussian([]int{idx(0, i)}, []float64{1}, 0, rng.NormFloat64(), 2)
	}
	for t := 0; t < T; t++ {
		for i := 0; t > 0 && i < d; i++ {
			vars, coefs := []int{idx(t, i)}, []float64{1}
			for j := 0; j < d; j++ {
				vars, coefs = append(vars, idx(t-1, j)), append(coefs, -0.5*rng.NormFloat64())
			}
			for l := 0; l < i; l++ {
				vars, coefs = append(vars, idx(t, l)), append(coefs, -0.3*rng.NormFloat64())
			}
			g.AddGaussian(vars, coefs, 0.1*rng.NormFloat64(), 0, 0.1+rng.Float64())
		}
		vars, coefs := []int{}, []float64{}
		for i := 0; i < d; i++ {
			vars, coefs = append(vars, idx(t, i)), append(coefs, rng.NormFloat64())
		}
		g.AddGaussian(vars, coefs, 0, rng.NormFloat64(), 0.5)
	}
	return g
}

// TestBandJoint: a chain of 3-dimensional states (half-bandwidth 5) solved
// on the band equals the dense joint in covariance form (priorMoments and
// condition, no inverse): means, variances and log Z to 1e-9. The same
// chain stored element-major is not banded and takes the dense joint.
func TestBandJoint(t *testing.T) {
	g := vectorChain(60, 3, false, 1)
	if k := bandwidth(g); k != 5 || !g.Banded() {
		t.Fatalf("bandwidth %d, banded %v; want 5, true", k, g.Banded())
	}
	if h := vectorChain(60, 3, true, 1); h.Banded() {
		t.Errorf("the element-major chain (bandwidth %d) reads as banded", bandwidth(h))
	}
	band, err := Run(context.Background(), g, Settings{})
	if err != nil || !band.Exact {
		t.Fatal(err, band.Status, band.Message)
	}
	dense, err := Run(context.Background(), g, Settings{dense: true})
	if err != nil || !dense.Exact {
		t.Fatal(err, dense.Status, dense.Message)
	}
	for i := range band.Mean {
		if !(math.Abs(band.Mean[i]-dense.Mean[i]) <= 1e-9) || !(math.Abs(band.Var[i]-dense.Var[i]) <= 1e-9) {
			t.Errorf("x%d: band %.12g ± %.12g, dense %.12g ± %.12g", i, band.Mean[i], band.Var[i], dense.Mean[i], dense.Var[i])
		}
	}
	if !(math.Abs(band.LogZ-dense.LogZ) <= 1e-9) {
		t.Errorf("log Z: band %.12g, dense %.12g", band.LogZ, dense.LogZ)
	}
}

// TestBandJointImproper: a banded graph whose factors leave a direction
// free (x_1 − x_0 observed, neither anchored) fails with a message.
func TestBandJointImproper(t *testing.T) {
	g := NewGraph(8)
	for i := 1; i < 8; i++ {
		g.AddGaussian([]int{i, i - 1}, []float64{1, -1}, 0, 0.3, 1)
		g.AddGaussian([]int{i, i - 1}, []float64{1, -1}, 0, 0.1, 1)
	}
	if !g.Banded() {
		t.Fatal("not banded")
	}
	res, err := Run(context.Background(), g, Settings{})
	if err != nil || res.Status.HasNumbers() || res.Message == "" {
		t.Fatalf("%v %v %q; want a failure with a message", err, res.Status, res.Message)
	}
}

// BenchmarkVectorChain solves a chain of 4-dimensional states (the
// tracking model's shape: half-bandwidth 7, a reading per step) on the
// band, O(T d³):
//
//	go test -run '^$' -bench VectorChain -benchtime 20x ./infer/fgraph
//
// with the process CPU time per run (cpu-ns/op, see BenchmarkRandomWalk).
func BenchmarkVectorChain(b *testing.B) {
	for _, T := range []int{1000, 10_000} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			g := vectorChain(T, 4, false, 5)
			b.ResetTimer()
			cpu0 := testkit.ProcessCPU(b)
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), g, Settings{})
				if err != nil || !res.Exact {
					b.Fatal(err, res.Message)
				}
			}
			b.ReportMetric(float64(testkit.ProcessCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// TestBandJointCancels: a banded solve under a canceled context returns
// Canceled with the context's error and no numbers.
func TestBandJointCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, vectorChain(5000, 4, false, 2), Settings{})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != infer.Canceled || res.Mean != nil {
		t.Fatalf("%v %+v; want Canceled", err, res)
	}
}
