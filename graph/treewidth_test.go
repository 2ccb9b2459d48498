package graph

import (
	"context"
	"testing"
)

// TestTreewidthLowerBound: the minor-min-width bound is a lower bound —
// at most the induced width of the min-fill order, itself at least the
// treewidth — and exact where the treewidth is known: 1 on a tree (a
// chain), 2 on a cycle, n − 1 on the complete graph K_n, and at least
// about half the side on grids (treewidth k on a k×k grid). stop ends the
// contractions once the bound reaches it.
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
		{"grid 10×10", gridGraph(10, 10), 2, 5},
		{"grid 20×20", gridGraph(20, 20), 2, 5},
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
