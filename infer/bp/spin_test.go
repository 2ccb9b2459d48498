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

// spinTestGraph is loopyGraph with the cases the spin state treats apart:
// variable 0 observed through a zero table entry (prior ratio +Inf; with
// hard: log Z then takes the log messages),
// variable 1 with a field of 300 (ratio e^600: cavity products overflow),
// a coupling table whose entries differ by 1e250, and asymmetric tables
// (T(0, 1) ≠ T(1, 0)) on some edges in both orientations.
func spinTestGraph(seed uint64, hard bool) *graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 9))
	g := loopyGraph(rng, 5, 0.4)
	for _, e := range [][2]int{{3, 8}, {9, 4}, {12, 13}, {18, 12}} {
		g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: e[:], Table: []float64{rng.Float64(), rng.Float64(), 2 * rng.Float64(), rng.Float64()}})
	}
	if hard {
		g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: []int{0}, Table: []float64{0, 1}})
	}
	g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: []int{1}, Table: []float64{math.Exp(-300), math.Exp(300)}})
	g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: []int{2, 7}, Table: []float64{1, 1e-250, 1e-250, 1}})
	return g
}

// TestSpinMatchesLogDomain: the spin state (ratios, linear domain) gives
// the log-domain engine's marginals, log Z and convergence trace to 1e-10
// on every schedule it serves, slow paths included.
func TestSpinMatchesLogDomain(t *testing.T) {
	for _, sch := range []infer.Schedule{infer.Sequential, infer.Random, infer.Parallel} {
		for seed := uint64(1); seed <= 4; seed++ {
			p, err := NewProblem(spinTestGraph(seed, seed%2 == 0))
			if err != nil {
				t.Fatal(err)
			}
			s := Settings{infer.Settings{Schedule: sch, Seed: seed, MaxIter: 60, Tol: 1e-12}}
			if en, _ := newEngine(p, &s, true); en.sp == nil {
				t.Fatalf("%v: the spin state was not used", sch)
			}
			fast, err := p.run(context.Background(), s, true)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := p.run(context.Background(), s, false)
			if err != nil {
				t.Fatal(err)
			}
			compareResults(t, sch, fast, ref, 1e-10)
		}
	}
}

func compareResults(t *testing.T, sch infer.Schedule, got, want *Result, tol float64) {
	t.Helper()
	if got.Status != want.Status || len(got.Trace) != len(want.Trace) {
		t.Fatalf("%v: status %v after %d passes, log domain %v after %d", sch, got.Status, len(got.Trace), want.Status, len(want.Trace))
	}
	if d := math.Abs(got.LogZ - want.LogZ); d > tol*math.Max(1, math.Abs(want.LogZ)) {
		t.Errorf("%v: log Z %.15g, log domain %.15g", sch, got.LogZ, want.LogZ)
	}
	for i, m := range got.Marginals {
		for k := range m {
			if d := math.Abs(m[k] - want.Marginals[i][k]); d > tol || math.IsNaN(d) {
				t.Fatalf("%v: marginal %d(%d) %v, log domain %v", sch, i, k, m[k], want.Marginals[i][k])
			}
		}
	}
	for k := range got.Trace {
		if d := math.Abs(got.Trace[k] - want.Trace[k]); d > tol {
			t.Fatalf("%v: pass %d measure %v, log domain %v", sch, k, got.Trace[k], want.Trace[k])
		}
	}
}

// TestSpinNotUsed: models outside the spin state's scope keep the
// log-domain engine (a three-state variable, damping, fractional BP, the
// residual schedule).
func TestSpinNotUsed(t *testing.T) {
	g := spinTestGraph(1, true)
	p, err := NewProblem(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []infer.Settings{
		{Damping: 0.5},
		{Divergence: infer.Alpha{A: 0.8}},
		{Schedule: infer.Residual},
		{Divergence: infer.RelaxedKL{C: 1}},
	} {
		if en, _ := newEngine(p, &Settings{s}, true); en.sp != nil {
			t.Errorf("%+v: spin state used", s)
		}
	}
	g.AddLatent("c", graph.Cat, 3, nil, g.Latents[0].Pos)
	p, err = NewProblem(g)
	if err != nil {
		t.Fatal(err)
	}
	if en, _ := newEngine(p, &Settings{}, true); en.sp != nil {
		t.Error("three-state variable: spin state used")
	}
}

// TestSpinCavityOverflow: a cavity product that overflows on the way
// (1e200 · 1e200 · 1e-250) takes the log domain and gives the message of
// the exact product 1e150.
func TestSpinCavityOverflow(t *testing.T) {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{5}, ast.NoPos)
	tab := []float64{0.3, 0.9, 0.2, 0.7}
	g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: []int{0, 1}, Table: tab})
	for v := 2; v < 5; v++ {
		g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: []int{1, v}, Table: []float64{1, 1e-260, 1e-260, 1}})
	}
	p, err := NewProblem(g)
	if err != nil {
		t.Fatal(err)
	}
	en, err := newEngine(p, &Settings{}, true)
	if err != nil || en.sp == nil {
		t.Fatalf("spin state not used (%v)", err)
	}
	sp := en.sp
	into1 := sp.r[sp.start[1]:sp.start[2]] // from factors 0, 1, 2, 3
	into1[1], into1[2], into1[3] = 1e200, 1e200, 1e-250
	rho := 1e150
	// x0 is the receiving variable at position 0: T(x0, x1) = tab[x0 + 2·x1].
	want := (tab[1] + tab[3]*rho) / (tab[0] + tab[2]*rho)
	if got := sp.calc(sp.start[0], sp.r); !(math.Abs(got-want) <= 1e-12*want) {
		t.Errorf("message ratio %.15g, want %.15g", got, want)
	}
}
