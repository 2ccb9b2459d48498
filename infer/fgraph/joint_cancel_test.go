package fgraph

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/testkit"
)

// cycleGraph is n variables on a cycle of factors N(0; x_i + 0.5 x_{i+1}, 1)
// (a loop: no variable has its own prior, so the joint takes the
// information form, precision eigenvalues |1 + 0.5 e^{iθ}|² ≥ 0.25), or,
// with priors, each variable also N(x_i; 0, 1) (directed: the cycle's n
// factors are then observations, conditioned on in one chunk of n).
func cycleGraph(n int, priors bool) *Graph {
	g := NewGraph(n)
	for i := 0; i < n; i++ {
		if priors {
			g.AddGaussian([]int{i}, []float64{1}, 0, 0, 1)
		}
		g.AddGaussian([]int{i, (i + 1) % n}, []float64{1, 0.5}, 0, 0, 1)
	}
	return g
}

// TestDenseJointCancels: runs of a 3000-variable dense joint (several
// seconds of O(n³) work: the information form's Cholesky and inverse, the
// directed form's conditioning on 3000 observations, and Enumerate's
// factorisation of each configuration) canceled after 300 ms return within
// testkit.StopCPU of CPU time (a Ctrl-C is answered within about a second;
// CPU time, unlike wall time, does not depend on the machine's load), with
// status Canceled, no numbers and ctx's error.
func TestDenseJointCancels(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of dense factorisations")
	}
	testkit.LimitProcs(t)
	const n = 3000
	gated := func() *Graph {
		g := cycleGraph(n, false)
		z := g.AddDiscrete([]float64{0.5, 0.5})
		g.AddGate(z, 1, []Branch{{Lik: ep.Gaussian{Var: 1}, Vars: []int{0}, Coefs: []float64{1}}, {Lik: ep.Gaussian{Var: 2}, Vars: []int{1}, Coefs: []float64{1}}})
		return g
	}
	for _, tc := range []struct {
		name string
		run  func(context.Context) (*Result, error)
	}{
		{"information form", func(ctx context.Context) (*Result, error) { return Run(ctx, cycleGraph(n, false), Settings{}) }},
		{"conditioning", func(ctx context.Context) (*Result, error) { return Run(ctx, cycleGraph(n, true), Settings{}) }},
		{"enumerate", func(ctx context.Context) (*Result, error) { return Enumerate(ctx, gated()) }},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		at := make(chan time.Duration, 1)
		timer := time.AfterFunc(300*time.Millisecond, func() { at <- testkit.ProcessCPU(t); cancel() })
		res, err := tc.run(ctx)
		end := testkit.ProcessCPU(t)
		if timer.Stop() {
			t.Fatalf("%s: finished before the cancellation (%v): make the graph larger", tc.name, err)
		}
		cancel()
		if d := end - <-at; d > testkit.StopCPU {
			t.Errorf("%s: returned after %v of CPU time after the cancellation", tc.name, d)
		}
		if !errors.Is(err, context.Canceled) || res == nil || res.Status != infer.Canceled || res.Mean != nil {
			if res != nil {
				t.Errorf("%s: status %v, %d means, error %v", tc.name, res.Status, len(res.Mean), err)
			} else {
				t.Errorf("%s: no result, error %v", tc.name, err)
			}
		}
	}
}
