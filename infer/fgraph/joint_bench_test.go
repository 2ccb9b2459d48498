package fgraph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
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

// regression is Bayesian linear regression with d weights (the last an
// intercept), N(0, 4) priors and m Gaussian observations of noise 0.5: a
// loopy linear-Gaussian graph with far more observations than variables.
func regression(d, m int) *Graph {
	rng := rand.New(rand.NewPCG(1, 2))
	g := NewGraph(d)
	vars := make([]int, d)
	for j := range vars {
		vars[j] = j
		g.AddGaussian([]int{j}, []float64{1}, 0, 0, 4)
	}
	for i := 0; i < m; i++ {
		c := make([]float64, d)
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		c[d-1] = 1
		g.AddGaussian(vars, c, 0, rng.NormFloat64(), 0.5)
	}
	return g
}

// BenchmarkDenseJoint solves linear-Gaussian graphs on the dense joint:
// GP regression with a latent bias (a block, a scalar prior and n Gaussian
// observations) with and without the joint covariance kept, a random walk
// of n steps observed at every step (forced onto the dense joint), and a
// regression with 6 weights and 10⁵ observations. It reports the process
// CPU time per run (cpu-ns/op, see BenchmarkRandomWalk) beside the wall
// time:
//
//	go test -run '^$' -bench DenseJoint -benchtime 3x ./infer/fgraph
func BenchmarkDenseJoint(b *testing.B) {
	type bench struct {
		name string
		g    *Graph
		s    Settings
	}
	var cases []bench
	for _, n := range []int{400, 1000} {
		gp := biasGPRegression(n, 1, 0.1)
		walk := newChain(n, 1, 0, 1, 9).graph()
		cases = append(cases, bench{fmt.Sprintf("gp/n=%d", n), gp, Settings{}},
			bench{fmt.Sprintf("gp-cov/n=%d", n), gp, Settings{Cov: true}},
			bench{fmt.Sprintf("walk/n=%d", n), walk, Settings{dense: true}})
	}
	cases = append(cases, bench{"regression/d=6,m=1e5", regression(6, 100_000), Settings{}})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cpu0 := testkit.ProcessCPU(b)
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), c.g, c.s)
				if err != nil || res.Status != infer.Converged || !res.Exact {
					b.Fatal(err, res)
				}
			}
			b.ReportMetric(float64(testkit.ProcessCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
