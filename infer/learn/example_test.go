package learn_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/learn"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// Example learns the lengthscale, signal variance and noise variance of a
// GP regression (Gaussian sites, where log Z_EP is the exact evidence) on
// 30 noisy samples of sin(x), all three on the log scale.
func Example() {
	rng := rand.New(rand.NewPCG(1, 1))
	n := 30
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range y {
		x := 6 * rng.Float64()
		X.Set(i, 0, x)
		y[i] = math.Sin(x) + 0.1*rng.NormFloat64()
	}
	build := func(x []float64) ([]*learn.Block, error) {
		k := learn.Kernel{Kind: kernel.KindSE, Hyper: []float64{x[0], x[1]}}
		K, err := k.Gram(X)
		if err != nil {
			return nil, err
		}
		dK, err := k.Grads(X) // ∂K/∂ℓ, ∂K/∂σ_f²
		if err != nil {
			return nil, err
		}
		p := &ep.Problem{Cov: K}
		for i, yi := range y {
			p.Sites = append(p.Sites, ep.Site{Lik: ep.Gaussian{Var: x[2]}, Y: yi, Index: i})
		}
		dnoise := make([]float64, n) // ∂σ_n²/∂x_2 = 1 at every site
		for i := range dnoise {
			dnoise[i] = 1
		}
		return []*learn.Block{{
			Problem: p,
			DCov:    []*mat.SymDense{dK[0], dK[1], nil},
			DLik:    [][]float64{nil, nil, dnoise},
		}}, nil
	}
	pos := learn.Transform{Kind: learn.Log}
	params := []learn.Param{
		{Name: "ell", Init: 1, Transform: pos},
		{Name: "sf2", Init: 1, Transform: pos},
		{Name: "sn2", Init: 0.5, Transform: pos},
	}
	res, err := learn.Optimize(context.Background(), build, params, learn.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status)
	fmt.Printf("ell %.2f  sf2 %.2f  sn2 %.4f\n", res.X[0], res.X[1], res.X[2])
	fmt.Printf("log Z %.2f → %.2f\n", res.InitLogZ, res.LogZ)
	// Output:
	// converged
	// ell 1.71  sf2 0.84  sn2 0.0091
	// log Z -24.51 → 14.32
}
