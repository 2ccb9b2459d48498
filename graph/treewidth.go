package graph

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
)

// TreewidthLowerBound returns a lower bound on the treewidth of the
// interaction graph (variables adjacent when they share a factor): the
// minor-min-width bound MMD+ with the min-d strategy (Gogate & Dechter
// 2004; Bodlaender & Koster, "Treewidth computations II. Lower bounds",
// 2011, §4). The treewidth of a graph is at least its minimum degree and
// does not grow under edge contraction, so the largest minimum degree met
// while repeatedly contracting a vertex of minimum degree into its
// neighbour of least degree bounds it from below. Every elimination order
// then has a clique of at least bound + 1 variables: the junction tree's
// budget can be judged before any ordering work.
//
// The bound is strong on dense and expander-like graphs (K_n: n − 1, the
// treewidth) and weak on planar ones: every minor of a planar graph is
// planar and has a vertex of degree at most 5, so on grids it is at most 5
// whatever the treewidth. The interaction graph of an R×C grid model (R,
// C ≥ 3, every vertex and edge of the grid and nothing else: grid(R, C),
// libDAI's createfg grids) is therefore recognised first, and its
// treewidth min(R, C) returned (the R×C grid has treewidth min(R, C);
// Bodlaender, "A partial k-arboretum of graphs with bounded treewidth",
// 1998, §13). Other planar-like graphs (tori, grids with an edge missing
// or diagonals added, geodesic domes) get the bound of a bramble of
// crosses (bramble.go): t disjoint rings around a central vertex crossed
// by t disjoint paths prove treewidth ≥ t − 1, found in a ball of radius
// about 2t + t/4 on grids. With stop > 0 only the bramble of stop + 1
// crosses is sought (it suffices); with stop ≤ 0 the largest the search
// finds. What neither bound proves is left to the budget checks of the
// ordering (EliminationOrderBudget): a 100×100 grid missing an edge, whose
// boundary cuts rings of radius 50.
//
// The contractions stop as soon as the bound reaches stop (pass a value
// ≤ 0 for no early stop), so refusing a graph costs no more than needed.
// Adjacency is kept in slices, and a min-heap of (degree, id) with lazily
// invalidated entries picks the vertex, so a sparse graph of n vertices
// whose degrees stay small takes O(n log n), far less than the min-fill
// ordering up to its first clique over budget (docs/performance.md,
// "Elimination orders"). It returns ctx.Err() when ctx ends (checked every
// 4096 contractions).
func (g *Graph) TreewidthLowerBound(ctx context.Context, stop int) (int, error) {
	lb, _, err := g.treewidthLowerBound(ctx, stop)
	return lb, err
}

// treewidthLowerBound is TreewidthLowerBound with the name of the bound
// that gave it.
func (g *Graph) treewidthLowerBound(ctx context.Context, stop int) (int, string, error) {
	c := newContractor(g)
	if r, cols, ok := c.grid(); ok {
		return min(r, cols), fmt.Sprintf("a %d×%d grid", r, cols), nil
	}
	lb, why := 0, ""
	if stop > 0 {
		if b := c.crossBramble(stop + 1); b >= stop {
			return b, fmt.Sprintf("a bramble of %d rings crossed by %d disjoint paths", b+1, b+1), nil
		}
	} else if t := c.largestCrossBramble(); t > 0 {
		lb, why = t-1, fmt.Sprintf("a bramble of %d rings crossed by %d disjoint paths", t, t)
	}
	if ctx.Err() != nil {
		return 0, "", ctx.Err()
	}
	mmd := 0
	const mmdWhy = "minor-min-width bound"
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return 0, "", ctx.Err()
		}
		v, ok := c.pop()
		if !ok {
			break
		}
		mmd = max(mmd, len(c.nb[v]))
		if stop > 0 && mmd >= stop {
			break
		}
		c.contract(v)
	}
	if mmd > lb {
		return mmd, mmdWhy, nil
	}
	return lb, why, nil
}

// contractor holds the interaction graph for edge contractions: neighbour
// lists without repetitions, and the (degree, id) heap of the live
// vertices.
type contractor struct {
	nb       [][]int32
	alive    []bool
	itemHeap // heapItem.c is the degree when pushed
}

func newContractor(g *Graph) *contractor {
	n := len(g.Vars)
	c := &contractor{nb: make([][]int32, n), alive: make([]bool, n)}
	for i := range g.Factors() {
		vs := distinctVars(g.Factor(i).Vars)
		for a := range vs {
			for b := a + 1; b < len(vs); b++ {
				c.link(int32(vs[a]), int32(vs[b]))
			}
		}
	}
	c.itemHeap = make(itemHeap, n)
	for v := range n {
		c.alive[v] = true
		c.itemHeap[v] = heapItem{float64(len(c.nb[v])), v}
	}
	heap.Init(c)
	return c
}

// link adds the edge {a, b} unless present.
func (c *contractor) link(a, b int32) {
	if !slices.Contains(c.nb[a], b) {
		c.nb[a] = append(c.nb[a], b)
		c.nb[b] = append(c.nb[b], a)
	}
}

// pop removes and returns the live vertex of least degree (ties: smallest
// id), skipping stale entries.
func (c *contractor) pop() (int, bool) {
	for c.Len() > 0 {
		it := heap.Pop(c).(heapItem)
		if c.alive[it.v] && int(it.c) == len(c.nb[it.v]) {
			return it.v, true
		}
	}
	return 0, false
}

// contract merges v into its neighbour u of least degree (ties: smallest
// id): u inherits v's other neighbours and v disappears. An isolated v is
// only removed.
func (c *contractor) contract(v int) {
	c.alive[v] = false
	ns := c.nb[v]
	c.nb[v] = nil
	if len(ns) == 0 {
		return
	}
	u := ns[0]
	for _, w := range ns[1:] {
		if len(c.nb[w]) < len(c.nb[u]) || len(c.nb[w]) == len(c.nb[u]) && w < u {
			u = w
		}
	}
	for _, w := range ns {
		c.nb[w] = slices.DeleteFunc(c.nb[w], func(x int32) bool { return x == int32(v) })
	}
	for _, w := range ns {
		if w != u {
			c.link(u, w)
		}
	}
	for _, w := range ns {
		heap.Push(c, heapItem{float64(len(c.nb[w])), int(w)})
	}
}

// grid recognises an R×C grid (R, C ≥ 3), of treewidth min(R, C), and
// returns R and C. It walks the first row and column from the corner of
// least id (the grid's four vertices of degree 2), places every other
// vertex (i, j) as the one common neighbour of (i−1, j) and (i, j−1)
// besides (i−1, j−1), and accepts only when every vertex is placed once
// and every vertex's neighbours are exactly its grid neighbours. O(n).
func (c *contractor) grid() (rows, cols int, ok bool) {
	n := len(c.nb)
	corner, corners := -1, 0
	for v := range n {
		switch d := len(c.nb[v]); {
		case d == 2:
			corners++
			if corner < 0 {
				corner = v
			}
		case d < 2 || d > 4:
			return 0, 0, false
		}
	}
	if corners != 4 || n < 9 {
		return 0, 0, false
	}
	row, okr := c.boundary(corner, int(c.nb[corner][0]))
	col, okc := c.boundary(corner, int(c.nb[corner][1]))
	R, C := len(col), len(row)
	if !okr || !okc || R < 3 || C < 3 || R*C != n {
		return 0, 0, false
	}
	at := make([]int32, n) // at[i·C + j] is the vertex at (i, j)
	placed := make([]bool, n)
	for j, v := range row {
		at[j], placed[v] = int32(v), true
	}
	for i, v := range col[1:] {
		if placed[v] {
			return 0, 0, false
		}
		at[(i+1)*C], placed[v] = int32(v), true
	}
	for i := 1; i < R; i++ {
		for j := 1; j < C; j++ {
			up, left, diag := at[(i-1)*C+j], at[i*C+j-1], at[(i-1)*C+j-1]
			w := int32(-1)
			for _, x := range c.nb[up] {
				if x != diag && slices.Contains(c.nb[left], x) {
					if w >= 0 {
						return 0, 0, false
					}
					w = x
				}
			}
			if w < 0 || placed[w] {
				return 0, 0, false
			}
			at[i*C+j], placed[w] = w, true
		}
	}
	for i := range R {
		for j := range C {
			want := 0
			for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				a, b := i+d[0], j+d[1]
				if a < 0 || a >= R || b < 0 || b >= C {
					continue
				}
				want++
				if !slices.Contains(c.nb[at[i*C+j]], at[a*C+b]) {
					return 0, 0, false
				}
			}
			if len(c.nb[at[i*C+j]]) != want {
				return 0, 0, false
			}
		}
	}
	return R, C, true
}

// boundary walks the grid's boundary from corner through its neighbour
// next to the following corner (a vertex of degree 2) and returns the
// vertices in order; each step takes the one neighbour of degree ≤ 3 that
// is not the previous vertex (interior vertices have degree 4 when both
// sides are at least 3).
func (c *contractor) boundary(corner, next int) ([]int, bool) {
	line := []int{corner, next}
	prev, cur := corner, next
	for len(c.nb[cur]) == 3 {
		nx := -1
		for _, x := range c.nb[cur] {
			if int(x) != prev && len(c.nb[x]) <= 3 {
				if nx >= 0 {
					return nil, false
				}
				nx = int(x)
			}
		}
		if nx < 0 || len(line) > len(c.nb) {
			return nil, false
		}
		prev, cur = cur, nx
		line = append(line, cur)
	}
	return line, len(c.nb[cur]) == 2
}

// CliqueBoundError is returned by CheckCliqueBudget: the treewidth lower
// bound proves that every elimination order has a clique table over the
// budget.
type CliqueBoundError struct {
	Bound    int     // treewidth ≥ Bound
	Why      string  // the bound that proves it
	Table    float64 // entries of the smallest possible table of Bound + 1 variables
	MaxTable float64
}

func (e *CliqueBoundError) Error() string {
	return fmt.Sprintf("the interaction graph has treewidth ≥ %d (%s), so every elimination order has a clique of at least %d variables: a table of ≥ %g entries, over the budget of %g entries",
		e.Bound, e.Why, e.Bound+1, e.Table, e.MaxTable)
}

// CheckCliqueBudget returns a *CliqueBoundError when TreewidthLowerBound
// proves that every elimination order of g has a clique table of more than
// maxTable entries — a table over b + 1 variables has at least the product
// of the b + 1 smallest cardinalities — and nil when it cannot tell. It
// runs before any ordering, in O(n log n) on sparse graphs.
func (g *Graph) CheckCliqueBudget(ctx context.Context, maxTable float64) error {
	cards := make([]float64, len(g.Vars))
	for v, x := range g.Vars {
		cards[v] = math.Inf(1)
		if x.Card > 0 {
			cards[v] = float64(x.Card)
		}
	}
	slices.Sort(cards)
	// The smallest table over k + 1 variables is Π cards[:k+1]; stop is the
	// first k at which it exceeds the budget.
	stop, table := -1, 1.0
	for k, c := range cards {
		if table *= c; table > maxTable {
			stop = k
			break
		}
	}
	if stop < 0 {
		return nil // no clique of the graph can exceed the budget
	}
	lb, why, err := g.treewidthLowerBound(ctx, stop)
	if err != nil {
		return err
	}
	if lb < stop {
		return nil
	}
	for _, c := range cards[stop+1 : lb+1] {
		table *= c
	}
	return &CliqueBoundError{Bound: lb, Why: why, Table: table, MaxTable: maxTable}
}
