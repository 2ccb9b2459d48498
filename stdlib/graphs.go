package stdlib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Graph is an undirected simple graph on vertices 0..N-1, the value of
// geodesic_dome() and grid(). Edges are pairs (i, j) with i < j in a fixed
// order; Faces, when known, are the cycles bounding the faces of a planar
// embedding (vertex lists in cyclic order).
type Graph struct {
	N     int
	Edges [][2]int
	Faces [][]int
}

// Degree returns the degree of every vertex.
func (g *Graph) Degree() []int {
	d := make([]int, g.N)
	for _, e := range g.Edges {
		d[e[0]]++
		d[e[1]]++
	}
	return d
}

// GeodesicDome returns the C60 graph (the truncated icosahedron, the
// "geodesic dome" of Qi & Guo §6.2): 60 vertices, 90 edges, every vertex of
// degree 3, 12 pentagonal and 20 hexagonal faces.
//
// Construction: take the icosahedron with vertices the cyclic permutations
// of (0, ±1, ±φ), φ = (1+√5)/2, and edges between vertices at distance 2.
// Truncation replaces each directed edge u→v by a vertex p(u→v) (one third of
// the way from u to v), so the 30 edges give 60 vertices. C60 edges are
// p(u→v)–p(v→u) for every icosahedron edge (30 hexagon–hexagon edges) and
// p(u→v)–p(u→w) whenever v and w are adjacent neighbours of u (60 pentagon
// edges). Pentagons surround the 12 icosahedron vertices, hexagons replace
// the 20 triangles. Vertex p(u→v) is numbered by the order of (u, v) over
// the icosahedron's directed edges, u the slow index.
func GeodesicDome() *Graph {
	pts := icosahedron()
	adj := make([][]bool, 12)
	for i := range adj {
		adj[i] = make([]bool, 12)
		for j := range adj[i] {
			adj[i][j] = i != j && math.Abs(dist(pts[i], pts[j])-2) < 1e-9
		}
	}
	id := map[[2]int]int{}
	for u := 0; u < 12; u++ {
		for v := 0; v < 12; v++ {
			if adj[u][v] {
				id[[2]int{u, v}] = len(id)
			}
		}
	}
	g := &Graph{N: len(id)}
	for u := 0; u < 12; u++ {
		for v := u + 1; v < 12; v++ {
			if adj[u][v] {
				g.addEdge(id[[2]int{u, v}], id[[2]int{v, u}])
			}
			for w := 0; w < 12; w++ {
				if adj[u][v] && adj[u][w] && v < w && adj[v][w] {
					g.addEdge(id[[2]int{u, v}], id[[2]int{u, w}])
				}
			}
		}
		for v := 0; v < u; v++ {
			for w := v + 1; w < 12; w++ {
				if adj[u][v] && adj[u][w] && adj[v][w] {
					g.addEdge(id[[2]int{u, v}], id[[2]int{u, w}])
				}
			}
		}
	}
	g.sortEdges()
	g.Faces = domeFaces(adj, id)
	return g
}

// domeFaces lists the 12 pentagons (around each icosahedron vertex, in
// cyclic order) and the 20 hexagons (one per icosahedron triangle).
func domeFaces(adj [][]bool, id map[[2]int]int) [][]int {
	var faces [][]int
	for u := 0; u < 12; u++ {
		var ring []int
		for v := 0; v < 12; v++ {
			if adj[u][v] {
				ring = append(ring, v)
				break
			}
		}
		for len(ring) < 5 {
			last := ring[len(ring)-1]
			for w := 0; w < 12; w++ {
				if adj[u][w] && adj[last][w] && (len(ring) < 2 || w != ring[len(ring)-2]) && w != ring[0] {
					ring = append(ring, w)
					break
				}
			}
		}
		f := make([]int, 5)
		for k, v := range ring {
			f[k] = id[[2]int{u, v}]
		}
		faces = append(faces, f)
	}
	for a := 0; a < 12; a++ {
		for b := a + 1; b < 12; b++ {
			for c := b + 1; c < 12; c++ {
				if adj[a][b] && adj[b][c] && adj[a][c] {
					faces = append(faces, []int{id[[2]int{a, b}], id[[2]int{b, a}], id[[2]int{b, c}],
						id[[2]int{c, b}], id[[2]int{c, a}], id[[2]int{a, c}]})
				}
			}
		}
	}
	return faces
}

func icosahedron() [][3]float64 {
	phi := (1 + math.Sqrt(5)) / 2
	var pts [][3]float64
	for _, s1 := range []float64{-1, 1} {
		for _, s2 := range []float64{-phi, phi} {
			pts = append(pts, [3]float64{0, s1, s2}, [3]float64{s1, s2, 0}, [3]float64{s2, 0, s1})
		}
	}
	return pts
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

func (g *Graph) addEdge(i, j int) {
	if i > j {
		i, j = j, i
	}
	g.Edges = append(g.Edges, [2]int{i, j})
}

func (g *Graph) sortEdges() {
	sort.Slice(g.Edges, func(a, b int) bool {
		if g.Edges[a][0] != g.Edges[b][0] {
			return g.Edges[a][0] < g.Edges[b][0]
		}
		return g.Edges[a][1] < g.Edges[b][1]
	})
}

// Grid returns the R×C grid graph with vertex r·C + c. Edges go right
// ((r, c)–(r, c+1)) then down ((r, c)–(r+1, c)) for each vertex in row-major
// order; with periodic the last column links to the first and the last row
// to the first (a torus). Self-loops and repeated edges (a periodic side of
// length 1 or 2) are dropped, so the result is a simple graph.
func Grid(R, C int, periodic bool) (*Graph, error) {
	if R < 1 || C < 1 {
		return nil, fmt.Errorf("grid(%d, %d): sides must be at least 1", R, C)
	}
	if float64(R)*float64(C) > MaxGraphNodes {
		return nil, fmt.Errorf("grid(%d, %d): %g vertices exceed the limit %g", R, C, float64(R)*float64(C), float64(MaxGraphNodes))
	}
	g := &Graph{N: R * C, Edges: make([][2]int, 0, 2*R*C)}
	// Only a periodic side of 1 or 2 links a vertex to itself or twice to
	// the same neighbour; other grids need no set of the edges seen (which
	// for 10⁶ vertices costs more than the grid).
	var seen map[[2]int]bool
	if periodic && (R <= 2 || C <= 2) {
		seen = map[[2]int]bool{}
	}
	link := func(a, b int) {
		if a == b {
			return
		}
		k := [2]int{min(a, b), max(a, b)}
		if seen == nil || !seen[k] {
			if seen != nil {
				seen[k] = true
			}
			g.Edges = append(g.Edges, k)
		}
	}
	for r := 0; r < R; r++ {
		for c := 0; c < C; c++ {
			v := r*C + c
			if c+1 < C || periodic {
				link(v, r*C+(c+1)%C)
			}
			if r+1 < R || periodic {
				link(v, ((r+1)%R)*C+c)
			}
		}
	}
	return g, nil
}

// Size limits: MaxElements bounds a declared data array (1e8 float64s =
// 800 MB); MaxGenerated the draws of random_normal (80 MB); MaxGraphNodes
// the vertices of a generated graph.
const (
	MaxElements   = 1e8
	MaxGenerated  = 1e7
	MaxGraphNodes = 1e6
)

// RandomSeq is the stream behind random_normal: a math/rand/v2 generator on
// PCG seeded with (seed, 0x9e3779b97f4a7c15).
func RandomSeq(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// RandomNormal returns n draws mean + sd·z where z are successive
// NormFloat64 values of RandomSeq(seed). The same seed always gives the same
// numbers, and random_normal(s, n) is a prefix of random_normal(s, n+1).
func RandomNormal(seed uint64, n int, mean, sd float64) ([]float64, error) {
	if n < 0 || float64(n) > MaxGenerated {
		return nil, fmt.Errorf("random_normal: n = %d out of range 0..%g", n, float64(MaxGenerated))
	}
	if !(sd >= 0) || math.IsInf(sd, 0) || math.IsNaN(mean) || math.IsInf(mean, 0) {
		return nil, fmt.Errorf("random_normal: need finite mean and sd ≥ 0, got mean %g, sd %g", mean, sd)
	}
	r := RandomSeq(seed)
	out := make([]float64, n)
	for i := range out {
		out[i] = mean + sd*r.NormFloat64()
	}
	return out, nil
}

// Rows selects rows of a row-major matrix with cols columns (cols == 0: the
// elements of a vector) at the 0-based indices idx.
func Rows(data []float64, rows, cols int, idx []int) ([]float64, error) {
	w := max(cols, 1)
	out := make([]float64, 0, len(idx)*w)
	for _, i := range idx {
		if i < 0 || i >= rows {
			return nil, fmt.Errorf("rows: index %d out of range 0..%d", i, rows)
		}
		out = append(out, data[i*w:(i+1)*w]...)
	}
	return out, nil
}
