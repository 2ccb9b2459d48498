package bp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// logLinearGrid is an r×r spin grid with a field per variable and a
// coupling per edge (both N(0, 0.5²)), its factors log-linear
// (graph.AddLogLinear: parameters only) or, with tables, as graph.Factor
// values holding exp(θ·φ). A variable pair of the last row repeats as a
// log-linear factor over one variable twice (x_i·x_i: the diagonal).
func logLinearGrid(r int, seed uint64, tables bool) *graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 3))
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{r * r}, ast.NoPos)
	pair, unary := []float64{1, -1, -1, 1}, []float64{-1, 1}
	add := func(kind graph.Kind, theta float64, stat []float64, vars ...int) {
		if tables {
			g.AddFactor(graph.Factor{Kind: kind, Vars: vars, Table: graph.LogLinearTable(theta, stat)})
		} else {
			g.AddLogLinear(kind, ast.NoPos, "J", theta, stat, vars...)
		}
	}
	for v := range r * r {
		add(factor.Field{}, 0.5*rng.NormFloat64(), unary, v)
	}
	for v := range r * r {
		if (v+1)%r != 0 {
			add(factor.Ising{}, 0.5*rng.NormFloat64(), pair, v, v+1)
		}
		if v+r < r*r {
			add(factor.Ising{}, 0.5*rng.NormFloat64(), pair, v, v+r)
		}
	}
	add(factor.Ising{}, 0.3, pair, r*r-1, r*r-1)
	return g
}

// TestLogLinearMatchesTables: a grid of per-edge couplings given as
// parameters (log f = θ·φ, no table per factor) gives the marginals, log Z
// and trace of the same grid given as tables exp(θ·φ), to 1e-12, under
// every BP variant: the spin state (sequential, random, parallel) and the
// log-domain engine (residual, damping, fractional, relaxed). The only
// difference is log(exp(θ·φ)) against θ·φ, a rounding.
func TestLogLinearMatchesTables(t *testing.T) {
	ll, err := NewProblem(logLinearGrid(6, 1, false))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := NewProblem(logLinearGrid(6, 1, true))
	if err != nil {
		t.Fatal(err)
	}
	if ll.theta.vals == nil || len(ll.tab) != 4 || len(tab.tab) != 4*ll.NumFactors() {
		t.Fatalf("log-linear problem: θ %d, %d table entries; with tables %d", len(ll.theta.vals), len(ll.tab), len(tab.tab))
	}
	if en, _ := newEngine(ll, &Settings{}, true); en.sp == nil {
		t.Fatal("the spin state was not used")
	}
	for _, s := range []infer.Settings{
		{Schedule: infer.Sequential}, {Schedule: infer.Random, Seed: 3}, {Schedule: infer.Parallel},
		{Schedule: infer.Residual}, {Damping: 0.5}, {Divergence: infer.Alpha{A: 0.7}},
		{Divergence: infer.RelaxedKL{C: 0.1}, MaxIter: 50},
	} {
		s.Tol = 1e-11
		got, err := ll.Run(context.Background(), Settings{s})
		if err != nil {
			t.Fatal(err)
		}
		want, err := tab.Run(context.Background(), Settings{s})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != infer.Converged && s.MaxIter == 0 {
			t.Errorf("%+v: %v", s, got.Status)
		}
		compareResults(t, s.Schedule, got, want, 1e-12)
		for a, b := range want.B {
			if !(math.Abs(got.B[a]-b) <= 1e-12) {
				t.Errorf("%+v: relaxation weight %d: %v, with tables %v", s, a, got.B[a], b)
			}
		}
	}
}

// TestColumn: a column keeps no array while its values follow base +
// step·a and gives every value back after the first that does not.
func TestColumn(t *testing.T) {
	for _, step := range []int32{0, 1} {
		var c column[int32]
		c.step = step
		for a := range int32(5) {
			c.add(7+step*a, 8)
		}
		if c.vals != nil {
			t.Fatalf("step %d: an array for values that follow the rule", step)
		}
		c.add(-1, 8)
		c.add(3, 8)
		want := []int32{7, 7 + step, 7 + 2*step, 7 + 3*step, 7 + 4*step, -1, 3}
		for a, w := range want {
			if got := c.at(int32(a)); got != w {
				t.Errorf("step %d: value %d = %d, want %d", step, a, got, w)
			}
		}
	}
	p, err := NewProblem(gridGraph(5))
	if err != nil {
		t.Fatal(err)
	}
	if p.theta.vals != nil || p.orig.vals != nil || p.orig.at(0) != 25 {
		t.Errorf("a grid of one coupling table: θ array %d, orig array %d, orig(0) = %d", len(p.theta.vals), len(p.orig.vals), p.orig.at(0))
	}
}
