package graph

import (
	"math"
	"slices"
)

// A bramble of a graph is a family of connected vertex sets that pairwise
// touch (share a vertex or are joined by an edge); its order is the least
// size of a vertex set meeting every member. The treewidth of a graph is
// the largest order of its brambles minus one (Seymour & Thomas, "Graph
// searching and a min-max theorem for tree-width", JCTB 58, 1993), so any
// bramble of order k proves treewidth ≥ k − 1. Bodlaender, Grigoriev &
// Koster ("Treewidth lower bounds with brambles", Algorithmica 51, 2008)
// build brambles from grid-like structures for planar graphs, where the
// degree-based bounds (minor-min-width and its kin, at most 5 on any
// planar graph) say nothing.
//
// The brambles here are made of crosses. Take p pairwise disjoint
// connected sets R₁…R_p (rings) and q pairwise disjoint connected sets
// P₁…P_q (paths) such that every ring meets every path. The crosses
// Rᵢ ∪ Pⱼ are connected, and two crosses Rᵢ ∪ Pⱼ and R_a ∪ P_b meet (Rᵢ
// meets P_b): a bramble. A set X of fewer than min(p, q) vertices misses
// some ring (each vertex lies in at most one) and some path, hence their
// cross: the order is at least min(p, q), and the treewidth at least
// min(p, q) − 1. On an R×C grid, the rows and columns give min(R, C) − 1.
//
// The rings and paths are found around a central vertex s (the middle of
// a longest path found by two breadth-first sweeps): with Lᵣ the vertices
// at distance r from s, the rings are the annuli L_{r₀+2i} ∪ L_{r₀+2i+1}
// (two layers, since the layers of a bipartite graph — grids, tori — have
// no inner edges; each ring is the annulus's component that the most paths
// meet), and the paths are vertex-disjoint paths from L_{r₀} to the
// outermost layer, found by augmenting paths (Menger). A path from L_{r₀}
// to L_{r₁} passes through every layer in between (distances change by at
// most one along an edge), so it meets every annulus. The search is
// local: it reads the ball of radius r₁ around s only, after the two
// sweeps, O(n + m) in all.

// crossBramble returns a lower bound on the treewidth from a bramble of
// crosses with t rings and t paths (t ≥ 2) around the centre of the
// component of a vertex of largest degree, or 0 when it finds none. The
// bound is min(rings, paths) − 1 of the crosses found, each one checked
// (checkCrosses) before it is trusted.
func (c *contractor) crossBramble(t int) int {
	if t < 2 || len(c.nb) == 0 {
		return 0
	}
	b := newBallSearch(c.nb)
	return b.crossBramble(b.centre(), t)
}

// crossBramble is the search of contractor.crossBramble around s.
func (b *ballSearch) crossBramble(s, t int) int {
	r0, r1, ok := b.layers(s, t)
	if !ok {
		return 0
	}
	paths := b.disjointPaths(r0, r1, t)
	if len(paths) < t {
		return 0
	}
	rings := b.rings(r0, t, paths)
	paths = keepCrossing(rings, paths)
	if !checkCrosses(b.nb, rings, paths) {
		return 0
	}
	return min(len(rings), len(paths)) - 1
}

// largestCrossBramble returns the largest t for which crossBramble finds
// t rings and t paths (0 when none): doubling t, then bisecting between the
// last size found and the first missed. The search at one size is a
// heuristic, so a size below the one returned may fail; the one returned
// was found.
func (c *contractor) largestCrossBramble() int {
	if len(c.nb) == 0 {
		return 0
	}
	b := newBallSearch(c.nb)
	s := b.centre()
	ok, bad := 0, 2
	for ; b.crossBramble(s, bad) == bad-1; bad *= 2 {
		ok = bad
	}
	if ok == 0 {
		return 0
	}
	for bad-ok > 1 {
		if mid := (ok + bad) / 2; b.crossBramble(s, mid) == mid-1 {
			ok = mid
		} else {
			bad = mid
		}
	}
	return ok
}

// ballSearch holds the breadth-first layers around a centre and the
// scratch of the path search.
type ballSearch struct {
	nb     [][]int32
	dist   []int32 // distance from the centre; -1 beyond the ball
	order  []int32 // the ball in breadth-first order
	starts []int   // layer r is order[starts[r]:starts[r+1]]
}

func newBallSearch(nb [][]int32) *ballSearch {
	d := make([]int32, len(nb))
	for v := range d {
		d[v] = -1
	}
	return &ballSearch{nb: nb, dist: d}
}

// bfs runs a breadth-first search from s, layer by layer, until the
// component ends or done (which reads the complete layers so far) reports
// true, and leaves the distances, order and layer starts in b. It resets
// the previous search's distances first.
func (b *ballSearch) bfs(s int, done func() bool) {
	for _, v := range b.order {
		b.dist[v] = -1
	}
	b.order = append(b.order[:0], int32(s))
	b.starts = append(b.starts[:0], 0, 1)
	b.dist[s] = 0
	for r := 0; ; r++ {
		lo, hi := b.starts[r], b.starts[r+1]
		if lo == hi || done() {
			break
		}
		for _, v := range b.order[lo:hi] {
			for _, w := range b.nb[v] {
				if b.dist[w] < 0 {
					b.dist[w] = int32(r + 1)
					b.order = append(b.order, w)
				}
			}
		}
		b.starts = append(b.starts, len(b.order))
	}
	for len(b.starts) > 1 && b.starts[len(b.starts)-1] == b.starts[len(b.starts)-2] {
		b.starts = b.starts[:len(b.starts)-1] // no empty last layer
	}
}

// centre returns a vertex of least estimated eccentricity: breadth-first
// sweeps from four far-apart anchors — a, the farthest vertex from a
// vertex of largest degree; b, the farthest from a; c, the farthest from
// both (largest min(d_a, d_b)); d, the farthest from c — and the vertex
// minimising max(d_a, d_b, d_c, d_d) (on a grid: the middle, where a
// midpoint of one longest path may be a corner).
func (b *ballSearch) centre() int {
	v0 := 0
	for v, ns := range b.nb {
		if len(ns) > len(b.nb[v0]) {
			v0 = v
		}
	}
	never := func() bool { return false }
	b.bfs(v0, never)
	anchor := int(b.order[len(b.order)-1])
	far := make([]int32, len(b.order))  // max distance to the anchors so far, in the component's order
	near := make([]int32, len(b.order)) // min distance to the anchors so far
	var comp []int32                    // the component in the first sweep's order
	for k := range 4 {
		b.bfs(anchor, never)
		if k == 0 {
			comp = slices.Clone(b.order)
			for i := range near {
				near[i] = math.MaxInt32
			}
		}
		for i, v := range comp {
			far[i] = max(far[i], b.dist[v])
			near[i] = min(near[i], b.dist[v])
		}
		switch k {
		case 0:
			anchor = int(b.order[len(b.order)-1])
		case 1:
			anchor = int(comp[slices.Index(near, slices.Max(near))])
		case 2:
			anchor = int(b.order[len(b.order)-1])
		}
	}
	return int(comp[slices.Index(far, slices.Min(far))])
}

// layers runs the breadth-first search from s far enough for t rings of
// two layers beyond the first layer r₀ of at least t vertices (room for t
// disjoint paths), and returns r₀ and the outermost layer r₁ = r₀ + 2t − 1;
// ok is false when the component ends before r₁.
func (b *ballSearch) layers(s, t int) (r0, r1 int, ok bool) {
	r0 = -1
	b.bfs(s, func() bool {
		r := len(b.starts) - 2 // the last complete layer
		if r0 < 0 && b.starts[r+1]-b.starts[r] >= t {
			r0 = r
		}
		return r0 >= 0 && r >= r0+2*t-1
	})
	r1 = r0 + 2*t - 1
	return r0, r1, r0 >= 0 && len(b.starts)-2 >= r1
}

// The flow network of disjointPaths: each ball vertex v in the shell r₀ ≤
// dist ≤ r₁ is split into in(v) → out(v) of capacity one (vertex-disjoint
// paths), an edge {u, w} gives out(u) → in(w) and out(w) → in(u), the
// source feeds in(v) for v in L_{r₀} and out(v) feeds the sink for v in
// L_{r₁}. The flow is kept as each used vertex's predecessor and successor
// on its path.
const (
	flowSource = -2 // prev of a path's first vertex
	flowSink   = -3 // next of a path's last vertex
)

// disjointPaths returns up to t vertex-disjoint paths from L_{r₀} to
// L_{r₁} inside the shell, by breadth-first augmenting paths in the
// residual network (Ford–Fulkerson): each augmentation adds one path and
// may reroute the others, O(t · shell) in all.
func (b *ballSearch) disjointPaths(r0, r1, t int) [][]int32 {
	shell := b.order[b.starts[r0]:b.starts[r1+1]]
	loc := make(map[int32]int32, len(shell)) // ball vertex → shell index
	for i, v := range shell {
		loc[v] = int32(i)
	}
	m := len(shell)
	prev, next := make([]int32, m), make([]int32, m)
	for i := range prev {
		prev[i], next[i] = -1, -1
	}
	// Residual search state over the 2m nodes in(i) = 2i, out(i) = 2i + 1.
	from := make([]int32, 2*m) // the node an augmenting search came from; -1 unseen; flowSource
	queue := make([]int32, 0, 2*m)
	inFirst, inLast := func(i int32) bool { return b.dist[shell[i]] == int32(r0) }, func(i int32) bool { return b.dist[shell[i]] == int32(r1) }
	found := 0
	for found < t {
		for i := range from {
			from[i] = -1
		}
		queue = queue[:0]
		for i := range int32(m) {
			if inFirst(i) && prev[i] != flowSource {
				from[2*i] = flowSource
				queue = append(queue, 2*i)
			}
		}
		end := int32(-1) // the out node that reached the sink
		visit := func(x, y int32) {
			if from[y] == -1 {
				from[y] = x
				queue = append(queue, y)
			}
		}
		for q := 0; q < len(queue) && end < 0; q++ {
			x := queue[q]
			i := x / 2
			if x%2 == 0 { // in(i)
				if prev[i] == -1 {
					visit(x, 2*i+1) // in(i) → out(i), i unused
				} else if prev[i] >= 0 {
					visit(x, 2*prev[i]+1) // cancel prev[i] → i
				}
				continue
			}
			// out(i)
			if inLast(i) && next[i] != flowSink {
				end = x
				break
			}
			if prev[i] != -1 {
				visit(x, 2*i) // cancel in(i) → out(i)
			}
			for _, w := range b.nb[shell[i]] {
				j, ok := loc[w]
				if ok && next[i] != j {
					visit(x, 2*j)
				}
			}
		}
		if end < 0 {
			break
		}
		b.augment(from, end, prev, next)
		found++
	}
	var paths [][]int32
	for i := range int32(m) {
		if prev[i] != flowSource {
			continue
		}
		var p []int32
		for j := i; ; j = next[j] {
			p = append(p, shell[j])
			if next[j] < 0 || len(p) > m {
				break
			}
		}
		paths = append(paths, p)
	}
	return paths
}

// augment pushes one unit along the augmenting path that reached the sink
// from node end, recording the new predecessors and successors: a forward
// edge out(i) → in(j) links i to j, a backward in(i) → out(i) frees i (its
// old links are cancelled by the neighbouring backward edges of the path),
// source → in(i) and out(i) → sink mark the ends.
func (b *ballSearch) augment(from []int32, end int32, prev, next []int32) {
	var path []int32
	for x := end; x != flowSource; x = from[x] {
		path = append(path, x)
	}
	slices.Reverse(path)
	prev[path[0]/2] = flowSource
	for k := 0; k+1 < len(path); k++ {
		x, y := path[k], path[k+1]
		i, j := x/2, y/2
		switch {
		case x%2 == 1 && y%2 == 0 && i != j: // out(i) → in(j)
			next[i], prev[j] = j, i
		case x%2 == 1 && y%2 == 0: // out(i) → in(i), backward: i leaves every path
			next[i], prev[i] = -1, -1
		}
	}
	next[end/2] = flowSink
}

// rings returns the t annuli L_{r₀+2i} ∪ L_{r₀+2i+1}, each reduced to its
// connected component (inside the annulus) that the most paths meet.
func (b *ballSearch) rings(r0, t int, paths [][]int32) [][]int32 {
	onPath := make(map[int32]int, 64*t)
	for k, p := range paths {
		for _, v := range p {
			onPath[v] = k
		}
	}
	rings := make([][]int32, 0, t)
	for i := range t {
		lo, hi := r0+2*i, r0+2*i+1
		in := func(v int32) bool { d := b.dist[v]; return d >= int32(lo) && d <= int32(hi) }
		seen := make(map[int32]bool)
		var best []int32
		bestHits := -1
		for _, s := range b.order[b.starts[lo]:b.starts[hi+1]] {
			if seen[s] {
				continue
			}
			comp := []int32{s}
			seen[s] = true
			for q := 0; q < len(comp); q++ {
				for _, w := range b.nb[comp[q]] {
					if in(w) && !seen[w] {
						seen[w] = true
						comp = append(comp, w)
					}
				}
			}
			hit := make(map[int]bool)
			for _, v := range comp {
				if k, ok := onPath[v]; ok {
					hit[k] = true
				}
			}
			if len(hit) > bestHits {
				best, bestHits = comp, len(hit)
			}
		}
		rings = append(rings, best)
	}
	return rings
}

// keepCrossing returns the paths that meet every ring.
func keepCrossing(rings, paths [][]int32) [][]int32 {
	ringOf := make(map[int32]int, 64*len(rings))
	for k, r := range rings {
		for _, v := range r {
			ringOf[v] = k
		}
	}
	var kept [][]int32
	for _, p := range paths {
		hit := make([]bool, len(rings))
		count := 0
		for _, v := range p {
			if k, ok := ringOf[v]; ok && !hit[k] {
				hit[k] = true
				count++
			}
		}
		if count == len(rings) {
			kept = append(kept, p)
		}
	}
	return kept
}

// checkCrosses reports whether rings and paths make a bramble of crosses:
// the rings pairwise disjoint and each connected, the same for the paths,
// and every ring meeting every path. It reads nothing but the adjacency,
// so a bound it accepts does not rest on how the sets were found.
func checkCrosses(nb [][]int32, rings, paths [][]int32) bool {
	ringOf, pathOf := map[int32]int{}, map[int32]int{}
	for _, family := range []struct {
		sets [][]int32
		of   map[int32]int
	}{{rings, ringOf}, {paths, pathOf}} {
		for k, set := range family.sets {
			if len(set) == 0 {
				return false
			}
			for _, v := range set {
				if _, dup := family.of[v]; dup {
					return false // two sets share v, or v repeats
				}
				family.of[v] = k
			}
			if !connected(nb, set, family.of, k) {
				return false
			}
		}
	}
	meets := make(map[[2]int]bool)
	for v, p := range pathOf {
		if r, ok := ringOf[v]; ok {
			meets[[2]int{r, p}] = true
		}
	}
	return len(meets) == len(rings)*len(paths)
}

// connected reports whether set (whose vertices are those with of[v] == k)
// induces a connected subgraph.
func connected(nb [][]int32, set []int32, of map[int32]int, k int) bool {
	seen := map[int32]bool{set[0]: true}
	stack := []int32{set[0]}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range nb[v] {
			if kw, ok := of[w]; ok && kw == k && !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return len(seen) == len(set)
}
