package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/fg-infer/fg/lang/ast"
)

// pairGraph builds n binary variables and one pairwise table factor per edge.
func pairGraph(n int, edges [][2]int) *Graph {
	g := &Graph{}
	g.AddLatent("x", Cat, 2, []int{n}, ast.NoPos)
	for _, e := range edges {
		g.AddFactor(Factor{Kind: tableKind{}, Vars: []int{e[0], e[1]}, Table: []float64{1, 1, 1, 1}})
	}
	return g
}

func gridEdges(r, c int) [][2]int {
	var es [][2]int
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if j+1 < c {
				es = append(es, [2]int{i*c + j, i*c + j + 1})
			}
			if i+1 < r {
				es = append(es, [2]int{i*c + j, (i+1)*c + j})
			}
		}
	}
	return es
}

func TestComponents(t *testing.T) {
	g := pairGraph(6, [][2]int{{0, 2}, {2, 4}, {1, 5}})
	got := g.Components()
	want := [][]int{{0, 2, 4}, {1, 5}, {3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestHasCycle(t *testing.T) {
	cases := []struct {
		name string
		g    *Graph
		want bool
	}{
		{"chain", pairGraph(4, [][2]int{{0, 1}, {1, 2}, {2, 3}}), false},
		{"forest", pairGraph(5, [][2]int{{0, 1}, {3, 4}}), false},
		{"triangle", pairGraph(3, [][2]int{{0, 1}, {1, 2}, {2, 0}}), true},
		{"grid2x2", pairGraph(4, gridEdges(2, 2)), true},
		{"parallel factors", pairGraph(2, [][2]int{{0, 1}, {1, 0}}), true},
	}
	// A 3-ary factor and a pairwise factor sharing two of its variables form
	// the bipartite cycle f0 – x0 – f1 – x1 – f0.
	tri := pairGraph(3, nil)
	tri.AddFactor(Factor{Kind: tableKind{}, Vars: []int{0, 1, 2}, Table: make([]float64, 8)})
	tri.AddFactor(Factor{Kind: tableKind{}, Vars: []int{0, 1}, Table: make([]float64, 4)})
	cases = append(cases, struct {
		name string
		g    *Graph
		want bool
	}{"hyperedge", tri, true})
	for _, c := range cases {
		if got := c.g.HasCycle(); got != c.want {
			t.Errorf("%s: HasCycle = %v want %v", c.name, got, c.want)
		}
	}
}

// inducedWidth replays an elimination order on the interaction graph with
// adjacency matrices: an independent check of EliminationOrder's bookkeeping.
func inducedWidth(g *Graph, order []int) (int, float64) {
	n := len(g.Vars)
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for _, f := range g.Factors() {
		for _, a := range f.Vars {
			for _, b := range f.Vars {
				adj[a][b] = a != b
			}
		}
	}
	gone := make([]bool, n)
	w, size := 0, 0.0
	for _, v := range order {
		var ns []int
		for u := 0; u < n; u++ {
			if adj[v][u] && !gone[u] {
				ns = append(ns, u)
			}
		}
		s := float64(g.Vars[v].Card)
		for _, a := range ns {
			s *= float64(g.Vars[a].Card)
			for _, b := range ns {
				adj[a][b] = adj[a][b] || a != b
			}
		}
		w, size = max(w, len(ns)), math.Max(size, s)
		gone[v] = true
	}
	return w, size
}

func TestEliminationOrder(t *testing.T) {
	var complete [][2]int
	for a := 0; a < 8; a++ {
		for b := a + 1; b < 8; b++ {
			complete = append(complete, [2]int{a, b})
		}
	}
	cases := []struct {
		name       string
		g          *Graph
		minW, maxW int // known treewidth bounds
	}{
		{"chain", pairGraph(6, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}), 1, 1},
		{"cycle", pairGraph(5, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}}), 2, 2},
		{"K8", pairGraph(8, complete), 7, 7},
		{"grid4x4", pairGraph(16, gridEdges(4, 4)), 4, 4},
		{"grid6x6", pairGraph(36, gridEdges(6, 6)), 6, 7},
	}
	for _, c := range cases {
		for _, h := range []string{MinFill, MinWeight} {
			order, w, size, err := c.g.EliminationOrder(h)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int]bool{}
			for _, v := range order {
				seen[v] = true
			}
			if len(order) != len(c.g.Vars) || len(seen) != len(order) {
				t.Fatalf("%s %s: not a permutation: %v", c.name, h, order)
			}
			rw, rs := inducedWidth(c.g, order)
			if rw != w || rs != size || size != math.Pow(2, float64(w+1)) {
				t.Errorf("%s %s: width %d size %g, replay gives %d %g", c.name, h, w, size, rw, rs)
			}
			if h == MinFill && (w < c.minW || w > c.maxW) {
				t.Errorf("%s %s: width %d outside [%d, %d]", c.name, h, w, c.minW, c.maxW)
			}
		}
	}
	if _, _, _, err := pairGraph(2, nil).EliminationOrder("best"); err == nil {
		t.Error("unknown heuristic accepted")
	}
}

// TestEliminationOrderCanceled: the greedy order stops with the
// context's error (a junction tree on 10⁶ variables ignored Ctrl-C).
func TestEliminationOrderCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := pairGraph(2, nil).EliminationOrderContext(ctx, MinFill); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// scanOrder is the greedy order computed by scanning every remaining
// variable at each step (the O(n²) implementation the heap replaced): the
// reference for TestEliminationOrderHeapEqualsScan.
func scanOrder(g *Graph, cost func(*eliminator, int) float64) []int {
	e := newEliminator(g)
	var order []int
	for len(order) < len(g.Vars) {
		bv, bc := -1, math.Inf(1)
		for v, ok := range e.alive {
			if c := 0.0; ok {
				if c = cost(e, v); bv < 0 || c < bc {
					bv, bc = v, c
				}
			}
		}
		e.eliminate(bv, e.sortedNeighbours(bv))
		order = append(order, bv)
	}
	return order
}

// TestEliminationOrderHeapEqualsScan: the heap with lazy cost updates
// gives exactly the order of the full scan (least cost, ties to the least
// id) on grids, chains, complete graphs and random graphs with mixed
// cardinalities and factors of up to four variables, for both heuristics.
func TestEliminationOrderHeapEqualsScan(t *testing.T) {
	graphs := map[string]*Graph{
		"grid7x9":  pairGraph(63, gridEdges(7, 9)),
		"grid12":   pairGraph(144, gridEdges(12, 12)),
		"isolated": pairGraph(50, nil),
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range 30 {
		g := &Graph{}
		n := 5 + rng.IntN(60)
		for i := range n {
			g.AddLatent(fmt.Sprintf("v%d", i), Cat, 2+rng.IntN(3), nil, ast.NoPos)
		}
		for range rng.IntN(3 * n) {
			vs := rng.Perm(n)[:1+rng.IntN(4)]
			size := 1
			for _, v := range vs {
				size *= g.Vars[v].Card
			}
			g.AddFactor(Factor{Kind: tableKind{}, Vars: vs, Table: make([]float64, size)})
		}
		graphs[fmt.Sprintf("random%d", k)] = g
	}
	for name, g := range graphs {
		for h, cost := range map[string]func(*eliminator, int) float64{MinFill: (*eliminator).fill, MinWeight: (*eliminator).weight} {
			got, _, _, err := g.EliminationOrder(h)
			if err != nil {
				t.Fatal(err)
			}
			if want := scanOrder(g, cost); !slices.Equal(got, want) {
				t.Errorf("%s %s:\nheap %v\nscan %v", name, h, got, want)
			}
		}
	}
}

// TestEliminationOrderBudget: on a 60×60 grid (treewidth 60) the ordering
// stops at the first clique table over the budget of 2¹² entries (a clique
// of 13 binary variables), before it has eliminated every variable (min-fill
// grows the cliques of a grid slowly: about 2300 of 3600 here),
// and reports how far it got; the total budget stops it likewise; with
// infinite budgets it is EliminationOrderContext.
func TestEliminationOrderBudget(t *testing.T) {
	g := gridGraph(60, 60)
	_, _, _, err := g.EliminationOrderBudget(context.Background(), MinFill, 1<<12, math.Inf(1))
	var over *OverBudgetError
	if !errors.As(err, &over) || over.TableSize <= 1<<12 || over.Width < 12 || over.Eliminated >= 3600 {
		t.Fatalf("table budget: %v (%+v)", err, over)
	}
	_, _, _, err = g.EliminationOrderBudget(context.Background(), MinFill, math.Inf(1), 1e5)
	if !errors.As(err, &over) || over.Total <= 1e5 || over.Eliminated >= 3600 {
		t.Fatalf("total budget: %v (%+v)", err, over)
	}
	o1, w1, s1, err1 := g.EliminationOrderBudget(context.Background(), MinWeight, math.Inf(1), math.Inf(1))
	o2, w2, s2, err2 := g.EliminationOrderContext(context.Background(), MinWeight)
	if err1 != nil || err2 != nil || w1 != w2 || s1 != s2 || len(o1) != len(o2) {
		t.Errorf("unbounded: %d %g %v against %d %g %v", w1, s1, err1, w2, s2, err2)
	}
}
