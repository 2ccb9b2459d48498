package fgraph

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"gonum.org/v1/gonum/mat"
)

// biasGPRegression is GP regression with a latent bias: f ~ GP(0, K) (a
// block, se kernel of variance 2 and lengthscale ℓ over n inputs in
// [−3, 3]), b ~ N(0, 1.5), y_i ~ N(f_i + b, r): a linear-Gaussian graph
// with loops, solved on the dense joint.
func biasGPRegression(n int, ell, r float64) *Graph {
	x := func(i int) float64 { return -3 + 6*float64(i)/float64(n-1) }
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			d := x(i) - x(j)
			K.SetSym(i, j, 2*math.Exp(-0.5*d*d/(ell*ell)))
		}
		K.SetSym(i, i, K.At(i, i)+1e-4)
	}
	g := NewGraph(n + 1)
	vars := make([]int, n)
	for i := range vars {
		vars[i] = i
	}
	g.AddBlock(vars, nil, K)
	g.AddGaussian([]int{n}, []float64{1}, 0, 0, 1.5)
	for i := 0; i < n; i++ {
		g.AddGaussian([]int{i, n}, []float64{1, 1}, 0, math.Sin(2*x(i)), r)
	}
	return g
}

// BenchmarkDenseJoint solves linear-Gaussian graphs on the dense joint:
// GP regression with a latent bias (a block, a scalar prior and n Gaussian
// observations) and a random walk of n steps observed at every step (forced
// onto the dense joint), with and without the joint covariance kept. It
// reports the process CPU time per run (cpu-ns/op, see BenchmarkRandomWalk)
// beside the wall time:
//
//	go test -run '^$' -bench DenseJoint -benchtime 3x ./infer/fgraph
func BenchmarkDenseJoint(b *testing.B) {
	for _, n := range []int{400, 1000} {
		gp := biasGPRegression(n, 1, 0.1)
		walk := newChain(n, 1, 0, 1, 9).graph()
		for _, c := range []struct {
			name string
			g    *Graph
			s    Settings
		}{
			{"gp", gp, Settings{}},
			{"gp-cov", gp, Settings{Cov: true}},
			{"walk", walk, Settings{dense: true}},
		} {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					res, err := Run(context.Background(), c.g, c.s)
					if err != nil || res.Status != infer.Converged || !res.Exact {
						b.Fatal(err, res)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
