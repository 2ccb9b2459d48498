package graph

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fg-infer/fg/internal/testkit"
)

// TestTreewidthLowerBound: the bound is a lower bound —
// at most the induced width of the min-fill order, itself at least the
// treewidth — and exact where the treewidth is known: 1 on a tree (a
// chain), 2 on a cycle, n − 1 on the complete graph K_n, min(R, C) on an
// R×C grid (recognised); on a grid with one edge missing, planar and not
// recognised, the minor-min-width bound is at most 5 (see the function),
// as on the torus. stop ends the contractions once the bound reaches it.
func TestTreewidthLowerBound(t *testing.T) {
	chain := make([][2]int, 0, 99)
	for i := range 99 {
		chain = append(chain, [2]int{i, i + 1})
	}
	cycle := append(append([][2]int(nil), chain...), [2]int{99, 0})
	for _, c := range []struct {
		name   string
		g      *Graph
		lo, hi int
	}{
		{"chain", pairGraph(100, chain), 1, 1},
		{"cycle", pairGraph(100, cycle), 2, 2},
		{"K7", pairGraph(7, complete(7)), 6, 6},
		{"grid 10×10", gridGraph(10, 10), 10, 10},
		{"grid 20×20", gridGraph(20, 20), 20, 20},
		{"grid 7×30", gridGraph(7, 30), 7, 7},
		{"grid 20×20 less an edge", pairGraph(400, gridEdges(20, 20)[1:]), 3, 20},
		{"torus 12×12", pairGraph(144, torusEdges(12)), 2, 12},
	} {
		lb, err := c.g.TreewidthLowerBound(context.Background(), 0)
		_, w, _, _ := c.g.EliminationOrder(MinFill)
		if err != nil || lb < c.lo || lb > c.hi || lb > w {
			t.Errorf("%s: bound %d (%v), want %d…%d and ≤ min-fill width %d", c.name, lb, err, c.lo, c.hi, w)
		}
		t.Logf("%s: bound %d, min-fill width %d", c.name, lb, w)
	}
	if lb, _ := pairGraph(40, complete(40)).TreewidthLowerBound(context.Background(), 26); lb != 39 {
		t.Errorf("stop 26 on K40: bound %d, want the first degree met (39)", lb)
	}
}

// complete lists the edges of K_n.
func complete(n int) [][2]int {
	var es [][2]int
	for a := range n {
		for b := a + 1; b < n; b++ {
			es = append(es, [2]int{a, b})
		}
	}
	return es
}

// torusEdges lists the edges of the k×k grid wrapped both ways.
func torusEdges(k int) [][2]int {
	var es [][2]int
	for i := range k {
		for j := range k {
			es = append(es, [2]int{i*k + j, i*k + (j+1)%k}, [2]int{i*k + j, ((i+1)%k)*k + j})
		}
	}
	return es
}

// TestTreewidthLowerBoundLargeGrid: a 1000×1000 grid is recognised and its
// treewidth bound (1000) found in bounded CPU time — the min-fill
// ordering ran for about 29 s of CPU (on a loaded 2-core machine) before
// its first clique over 2²⁵ entries — so the junction tree's budget
// refuses it before any ordering.
func TestTreewidthLowerBoundLargeGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10⁶-variable grid")
	}
	g := gridGraph(1000, 1000)
	cpu := testkit.ProcessCPU(t)
	err := g.CheckCliqueBudget(context.Background(), 1<<25)
	used := testkit.ProcessCPU(t) - cpu
	var b *CliqueBoundError
	if !errors.As(err, &b) || b.Bound != 1000 {
		t.Fatalf("%v", err)
	}
	t.Logf("%v in %v of CPU", err, used)
	if used > 5*time.Second {
		t.Errorf("the bound took %v of CPU", used)
	}
}
