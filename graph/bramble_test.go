package graph

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/fg-infer/fg/internal/testkit"
)

// exactTreewidth computes the treewidth of a graph of at most 16 vertices
// by the dynamic programme over vertex sets of Bodlaender, Fomin, Koster,
// Kratsch & Thilikos ("On exact algorithms for treewidth", ESA 2006, §3):
// TW(S) = min over v in S of max(TW(S − v), |Q(S − v, v)|), where Q(S, v)
// is the set of vertices outside S ∪ {v} reachable from v through S, and
// the treewidth is TW(V).
func exactTreewidth(n int, edges [][2]int) int {
	adj := make([]uint32, n)
	for _, e := range edges {
		if e[0] != e[1] {
			adj[e[0]] |= 1 << e[1]
			adj[e[1]] |= 1 << e[0]
		}
	}
	q := func(s uint32, v int) int { // |Q(s, v)|
		seen, frontier := uint32(1)<<v, uint32(1)<<v
		for frontier != 0 {
			var next uint32
			for f := frontier; f != 0; f &= f - 1 {
				next |= adj[bits.TrailingZeros32(f)]
			}
			next &^= seen
			seen |= next
			frontier = next & s // continue only through s
		}
		return bits.OnesCount32(seen &^ s &^ (1 << v))
	}
	tw := make([]int8, 1<<n)
	tw[0] = -1
	for s := uint32(1); s < 1<<n; s++ {
		best := int8(math.MaxInt8)
		for f := s; f != 0; f &= f - 1 {
			v := bits.TrailingZeros32(f)
			r := s &^ (1 << v)
			best = min(best, max(tw[r], int8(q(r, v))))
		}
		tw[s] = best
	}
	return int(tw[1<<n-1])
}

// TestExactTreewidthKnown checks the reference itself on graphs of known
// treewidth: a path 1, a cycle 2, K₆ 5, the 3×4 grid 3, K₃,₃ 3, the
// Petersen graph 4.
func TestExactTreewidthKnown(t *testing.T) {
	var path, cycle [][2]int
	for i := range 9 {
		path = append(path, [2]int{i, i + 1})
	}
	cycle = append(append(cycle, path...), [2]int{9, 0})
	var k33 [][2]int
	for a := range 3 {
		for b := 3; b < 6; b++ {
			k33 = append(k33, [2]int{a, b})
		}
	}
	var petersen [][2]int
	for i := range 5 {
		petersen = append(petersen, [2]int{i, (i + 1) % 5}, [2]int{i, i + 5}, [2]int{5 + i, 5 + (i+2)%5})
	}
	for _, c := range []struct {
		name  string
		n     int
		edges [][2]int
		want  int
	}{
		{"path", 10, path, 1}, {"cycle", 10, cycle, 2}, {"K6", 6, complete(6), 5},
		{"grid 3×4", 12, gridEdges(3, 4), 3}, {"K3,3", 6, k33, 3}, {"Petersen", 10, petersen, 4},
	} {
		if got := exactTreewidth(c.n, c.edges); got != c.want {
			t.Errorf("%s: treewidth %d, want %d", c.name, got, c.want)
		}
	}
}

// TestBrambleBoundIsLowerBound: the bound from brambles of crosses of
// every size, and TreewidthLowerBound, never exceed the treewidth. Against
// the exact treewidth on small graphs (n ≤ 15): cycles with random chords,
// random graphs of bandwidth ≤ 3, random edge subsets of triangulated
// grids, random stacked triangulations (planar 3-trees). Against an upper
// bound on larger ones where the search finds brambles close to it: the
// bandwidth (random graphs of bandwidth k = 2…12 on 3000 vertices; a path
// decomposition of width k), min(R, C) on thin R×C grids (read with the
// grid recogniser bypassed), and the min-fill order's width on thinned
// grids, tori, triangulated grids and a 2000-vertex stacked triangulation.
func TestBrambleBoundIsLowerBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	found := 0
	check := func(name string, n int, edges [][2]int, upper int) {
		t.Helper()
		c := newContractor(pairGraph(n, edges))
		for size := 2; size <= upper+3; size++ {
			b := c.crossBramble(size)
			if b > upper {
				t.Fatalf("%s: a bramble of %d crosses gives %d, above the treewidth's upper bound %d", name, size, b, upper)
			}
			if b > 0 {
				found++
			}
		}
		lb, err := pairGraph(n, edges).TreewidthLowerBound(context.Background(), 0)
		if err != nil || lb > upper {
			t.Fatalf("%s: bound %d (%v) above %d", name, lb, err, upper)
		}
	}
	for trial := range 200 {
		n := 8 + trial%8
		var edges [][2]int
		for v := range n {
			edges = append(edges, [2]int{v, (v + 1) % n})
		}
		for range trial % 4 {
			edges = append(edges, [2]int{rng.IntN(n), rng.IntN(n)})
		}
		check("cycle with chords", n, edges, exactTreewidth(n, edges))
		band := bandedEdges(rng, n, 1+trial%3)
		check("banded", n, band, exactTreewidth(n, band))
	}
	for trial := range 60 {
		r, c := 3, 5
		if trial%2 == 1 {
			r = 4
		}
		if r*c > 15 {
			c = 3
		}
		edges := thinned(rng, triangulatedEdges(r, c), 0.2)
		check("thinned triangulated grid", r*c, edges, exactTreewidth(r*c, edges))
		es := stackedTriangulation(rng, 14)
		check("stacked triangulation", 14, es, exactTreewidth(14, es))
	}
	small := found
	if small == 0 {
		t.Errorf("no bramble found on the small graphs: the comparison with the exact treewidth tested nothing")
	}
	for k := 2; k <= 12; k += 2 {
		check("banded", 3000, bandedEdges(rng, 3000, k), k)
	}
	for _, k := range []int{3, 5, 8} {
		check("thin grid", k*400, gridEdges(k, 400), k)
	}
	for _, c := range []struct {
		name  string
		n     int
		edges [][2]int
	}{
		{"grid 30×30 thinned 5%", 900, thinned(rng, gridEdges(30, 30), 0.05)},
		{"torus 30×30", 900, torusEdges(30)},
		{"triangulated 40×40 thinned 10%", 1600, thinned(rng, triangulatedEdges(40, 40), 0.1)},
		{"stacked triangulation 2000", 2000, stackedTriangulation(rng, 2000)},
	} {
		_, w, _, _ := pairGraph(c.n, c.edges).EliminationOrder(MinFill)
		check(c.name, c.n, c.edges, w)
		lb, _ := pairGraph(c.n, c.edges).TreewidthLowerBound(context.Background(), 0)
		t.Logf("%s: bound %d, min-fill width %d", c.name, lb, w)
	}
	t.Logf("brambles found: %d on small graphs, %d on large", small, found-small)
}

// bandedEdges returns a random connected graph of bandwidth ≤ k on n
// vertices: v joined to v − 1 and to each of v − 2 … v − k with
// probability ½. Its treewidth is at most k (bags {v, …, v + k}).
func bandedEdges(rng *rand.Rand, n, k int) [][2]int {
	var es [][2]int
	for v := 1; v < n; v++ {
		es = append(es, [2]int{v - 1, v})
		for d := 2; d <= k && d <= v; d++ {
			if rng.IntN(2) == 0 {
				es = append(es, [2]int{v - d, v})
			}
		}
	}
	return es
}

// TestBrambleBoundFindsGrids: where the treewidth is large and the graph
// planar but not a plain grid, brambles of crosses reach the size asked
// for: on a torus, a grid missing an edge and a triangulated grid of side
// 60, every size t up to 12 (the rings reach about 2.25t from the centre
// on a grid, where the boundary at 30 would cut them), and on a geodesic
// dome of frequency 12 up to 8.
func TestBrambleBoundFindsGrids(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     int
		edges [][2]int
		upto  int
	}{
		{"torus 60×60", 3600, torusEdges(60), 12},
		{"grid 60×60 less an edge", 3600, gridEdges(60, 60)[1:], 12},
		{"triangulated 60×60", 3600, triangulatedEdges(60, 60), 12},
		{"dome ν = 12", 1442, domeEdges(12), 8},
	} {
		if m := maxVertex(c.edges) + 1; m != c.n {
			t.Fatalf("%s: %d vertices, want %d", c.name, m, c.n)
		}
		for size := 2; size <= c.upto; size++ {
			if b := newContractor(pairGraph(c.n, c.edges)).crossBramble(size); b != size-1 {
				t.Errorf("%s: %d crosses give %d, want %d", c.name, size, b, size-1)
			}
		}
	}
}

// TestCheckCrossesRejects: the certificate check refuses rings that share
// a vertex, a path that is not connected, and a ring a path misses.
func TestCheckCrossesRejects(t *testing.T) {
	g := newContractor(gridGraph(4, 4)) // vertex (i, j) is 4i + j
	rows := [][]int32{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}
	cols := [][]int32{{0, 4, 8}, {1, 5, 9}, {2, 6, 10}}
	if !checkCrosses(g.nb, rows, cols) {
		t.Fatalf("rows and columns of a grid refused")
	}
	for name, bad := range map[string][2][][]int32{
		"shared vertex":     {{{0, 1, 2, 3}, {3, 7, 6, 5}}, cols},
		"disconnected path": {rows, {{0, 8, 4}, {1, 9}}},
		"missed ring":       {rows, {{0, 4}, {1, 5, 9}}},
	} {
		if checkCrosses(g.nb, bad[0], bad[1]) {
			t.Errorf("%s accepted", name)
		}
	}
}

// TestCliqueBudgetLargePlanar: on 10⁶-variable planar graphs that are not
// exact grids — a 1000×1000 torus, the 1000×1000 grid missing one edge, a
// triangulated grid and a geodesic dome — the bramble proves treewidth ≥
// 25 for binary variables, so CheckCliqueBudget refuses 2²⁵ entries
// without contracting the graph: within 3 s of CPU (the min-fill ordering
// ran ~30 s before its refusal).
func TestCliqueBudgetLargePlanar(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10⁶-variable graphs")
	}
	for _, c := range []struct {
		name  string
		n     int
		edges func() [][2]int
	}{
		{"torus 1000×1000", 1000 * 1000, func() [][2]int { return torusEdges(1000) }},
		{"grid 1000×1000 less an edge", 1000 * 1000, func() [][2]int { es := gridEdges(1000, 1000); return append(es[:1000], es[1001:]...) }},
		{"triangulated 1000×1000", 1000 * 1000, func() [][2]int { return triangulatedEdges(1000, 1000) }},
		{"dome ν = 316", 10*316*316 + 2, func() [][2]int { return domeEdges(316) }},
	} {
		g := pairGraph(c.n, c.edges())
		cpu := testkit.ProcessCPU(t)
		err := g.CheckCliqueBudget(context.Background(), 1<<25)
		used := testkit.ProcessCPU(t) - cpu
		var b *CliqueBoundError
		if !errors.As(err, &b) || b.Bound < 25 {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		t.Logf("%s: %v in %v of CPU", c.name, err, used)
		if used > 3*time.Second {
			t.Errorf("%s: the bound took %v of CPU", c.name, used)
		}
	}
}

// triangulatedEdges lists the R×C grid's edges and one diagonal of each
// square.
func triangulatedEdges(r, c int) [][2]int {
	es := gridEdges(r, c)
	for i := range r - 1 {
		for j := range c - 1 {
			es = append(es, [2]int{i*c + j, (i+1)*c + j + 1})
		}
	}
	return es
}

// thinned drops each edge with probability p.
func thinned(rng *rand.Rand, es [][2]int, p float64) [][2]int {
	var out [][2]int
	for _, e := range es {
		if rng.Float64() >= p {
			out = append(out, e)
		}
	}
	return out
}

// stackedTriangulation builds a planar 3-tree of n ≥ 3 vertices: a
// triangle, then each new vertex joined to the corners of a random face,
// which it splits in three.
func stackedTriangulation(rng *rand.Rand, n int) [][2]int {
	es := [][2]int{{0, 1}, {1, 2}, {0, 2}}
	faces := [][3]int{{0, 1, 2}, {0, 1, 2}} // both sides of the triangle
	for v := 3; v < n; v++ {
		k := rng.IntN(len(faces))
		f := faces[k]
		es = append(es, [2]int{f[0], v}, [2]int{f[1], v}, [2]int{f[2], v})
		faces[k] = [3]int{f[0], f[1], v}
		faces = append(faces, [3]int{f[1], f[2], v}, [3]int{f[0], f[2], v})
	}
	return es
}

// domeEdges lists the edges of the geodesic dome of frequency ν: each face
// of the icosahedron divided into ν² triangles, 10ν² + 2 vertices. A point
// of a face is named exactly by its corners' weights (i, j, k), i + j + k
// = ν, so the points on shared edges and corners are found once.
func domeEdges(nu int) [][2]int {
	phi := (1 + math.Sqrt(5)) / 2
	var corners [][3]float64
	for _, a := range []float64{-1, 1} {
		for _, b := range []float64{-phi, phi} {
			corners = append(corners, [3]float64{0, a, b}, [3]float64{a, b, 0}, [3]float64{b, 0, a})
		}
	}
	adjacent := func(a, b int) bool {
		d := 0.0
		for k := range 3 {
			d += (corners[a][k] - corners[b][k]) * (corners[a][k] - corners[b][k])
		}
		return math.Abs(d-4) < 1e-9
	}
	type key [6]int // (corner, weight) pairs sorted by corner, zero weights dropped
	ids := map[key]int{}
	id := func(cs [3]int, ws [3]int) int {
		type cw struct{ c, w int }
		ps := []cw{{cs[0], ws[0]}, {cs[1], ws[1]}, {cs[2], ws[2]}}
		sort.Slice(ps, func(a, b int) bool { return ps[a].c < ps[b].c })
		var k key
		for i := range k {
			k[i] = -1
		}
		n := 0
		for _, p := range ps {
			if p.w > 0 {
				k[2*n], k[2*n+1] = p.c, p.w
				n++
			}
		}
		v, ok := ids[k]
		if !ok {
			v = len(ids)
			ids[k] = v
		}
		return v
	}
	seen := map[[2]int]bool{}
	var es [][2]int
	add := func(a, b int) {
		if a > b {
			a, b = b, a
		}
		if !seen[[2]int{a, b}] {
			seen[[2]int{a, b}] = true
			es = append(es, [2]int{a, b})
		}
	}
	for a := range 12 {
		for b := a + 1; b < 12; b++ {
			for c := b + 1; c < 12; c++ {
				if !adjacent(a, b) || !adjacent(b, c) || !adjacent(a, c) {
					continue
				}
				cs := [3]int{a, b, c}
				for i := 0; i <= nu; i++ {
					for j := 0; i+j <= nu; j++ {
						k := nu - i - j
						v := id(cs, [3]int{i, j, k})
						if i > 0 {
							add(v, id(cs, [3]int{i - 1, j + 1, k}))
							add(v, id(cs, [3]int{i - 1, j, k + 1}))
						}
						if j > 0 {
							add(v, id(cs, [3]int{i, j - 1, k + 1}))
						}
					}
				}
			}
		}
	}
	return es
}

// maxVertex returns the largest vertex of an edge list.
func maxVertex(es [][2]int) int {
	m := 0
	for _, e := range es {
		m = max(m, e[0], e[1])
	}
	return m
}
