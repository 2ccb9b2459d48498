package stdlib

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// cycles counts the simple cycles of length k by brute force: every cycle is
// found 2k times (k starting points, 2 directions), so the count is divided.
func cycles(g *Graph, k int) (int, map[string]bool) {
	adj := make([][]int, g.N)
	for _, e := range g.Edges {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	found := map[string]bool{}
	path := []int{}
	on := make([]bool, g.N)
	var walk func(v int)
	walk = func(v int) {
		if len(path) == k {
			for _, w := range adj[v] {
				if w == path[0] {
					found[cycleKey(path)] = true
				}
			}
			return
		}
		for _, w := range adj[v] {
			if !on[w] && w > path[0] {
				on[w] = true
				path = append(path, w)
				walk(w)
				path = path[:len(path)-1]
				on[w] = false
			}
		}
	}
	for s := 0; s < g.N; s++ {
		path = append(path[:0], s)
		on[s] = true
		walk(s)
		on[s] = false
	}
	return len(found), found
}

func cycleKey(c []int) string {
	s := append([]int(nil), c...)
	sort.Ints(s)
	b := []byte{}
	for _, v := range s {
		b = append(b, byte(v), ',')
	}
	return string(b)
}

func TestGeodesicDomeIsC60(t *testing.T) {
	g := GeodesicDome()
	if g.N != 60 || len(g.Edges) != 90 {
		t.Fatalf("V=%d E=%d, want 60, 90", g.N, len(g.Edges))
	}
	seen := map[[2]int]bool{}
	for _, e := range g.Edges {
		if e[0] >= e[1] || e[0] < 0 || e[1] >= 60 || seen[e] {
			t.Fatalf("bad or repeated edge %v", e)
		}
		seen[e] = true
	}
	for v, d := range g.Degree() {
		if d != 3 {
			t.Errorf("vertex %d has degree %d", v, d)
		}
	}
	// Girth 5; exactly 12 five-cycles and 20 six-cycles (the faces).
	for k := 3; k <= 4; k++ {
		if n, _ := cycles(g, k); n != 0 {
			t.Errorf("%d cycles of length %d, want 0", n, k)
		}
	}
	n5, c5 := cycles(g, 5)
	n6, c6 := cycles(g, 6)
	if n5 != 12 || n6 != 20 {
		t.Errorf("5-cycles %d, 6-cycles %d; want 12, 20", n5, n6)
	}
	// Euler: V − E + F = 2 with the returned faces, and each face is one of
	// the brute-force cycles, each edge lies on exactly two faces.
	if len(g.Faces) != 32 || 60-90+len(g.Faces) != 2 {
		t.Fatalf("%d faces", len(g.Faces))
	}
	onFaces := map[[2]int]int{}
	var p, h int
	for _, f := range g.Faces {
		switch {
		case len(f) == 5 && c5[cycleKey(f)]:
			p++
		case len(f) == 6 && c6[cycleKey(f)]:
			h++
		default:
			t.Errorf("face %v is not a 5- or 6-cycle", f)
		}
		for i := range f {
			a, b := f[i], f[(i+1)%len(f)]
			if !seen[[2]int{min(a, b), max(a, b)}] {
				t.Errorf("face %v: %d-%d is not an edge", f, a, b)
			}
			onFaces[[2]int{min(a, b), max(a, b)}]++
		}
	}
	if p != 12 || h != 20 {
		t.Errorf("pentagons %d hexagons %d", p, h)
	}
	for e, n := range onFaces {
		if n != 2 {
			t.Errorf("edge %v on %d faces", e, n)
		}
	}
	// Every vertex lies on one pentagon and two hexagons.
	on5 := make([]int, 60)
	for _, f := range g.Faces[:12] {
		for _, v := range f {
			on5[v]++
		}
	}
	for v, n := range on5 {
		if n != 1 {
			t.Errorf("vertex %d on %d pentagons", v, n)
		}
	}
}

func TestGrid(t *testing.T) {
	cases := []struct {
		r, c     int
		periodic bool
		edges    int
	}{
		{10, 10, false, 180}, {10, 10, true, 200}, {1, 5, false, 4}, {2, 2, true, 4}, {3, 1, true, 3}, {1, 1, true, 0},
	}
	for _, tc := range cases {
		g, err := Grid(tc.r, tc.c, tc.periodic)
		if err != nil {
			t.Fatal(err)
		}
		if g.N != tc.r*tc.c || len(g.Edges) != tc.edges {
			t.Errorf("grid(%d,%d,%v): N=%d E=%d want E=%d", tc.r, tc.c, tc.periodic, g.N, len(g.Edges), tc.edges)
		}
	}
	g, _ := Grid(4, 5, true)
	for v, d := range g.Degree() {
		if d != 4 {
			t.Errorf("torus vertex %d degree %d", v, d)
		}
	}
	if _, err := Grid(0, 3, false); err == nil {
		t.Error("grid(0, 3) accepted")
	}
	if _, err := Grid(100000, 100000, false); err == nil {
		t.Error("huge grid accepted")
	}
}

// TestGridEdgesDistinct: on every small grid the edges are distinct
// unordered pairs of distinct vertices, in the order of a reference that
// drops repeats with a set.
func TestGridEdgesDistinct(t *testing.T) {
	for r := 1; r <= 5; r++ {
		for c := 1; c <= 5; c++ {
			for _, periodic := range []bool{false, true} {
				g, err := Grid(r, c, periodic)
				if err != nil {
					t.Fatal(err)
				}
				var want [][2]int
				seen := map[[2]int]bool{}
				add := func(a, b int) {
					k := [2]int{min(a, b), max(a, b)}
					if a != b && !seen[k] {
						seen[k] = true
						want = append(want, k)
					}
				}
				for i := 0; i < r; i++ {
					for j := 0; j < c; j++ {
						if j+1 < c || periodic {
							add(i*c+j, i*c+(j+1)%c)
						}
						if i+1 < r || periodic {
							add(i*c+j, ((i+1)%r)*c+j)
						}
					}
				}
				if !slices.Equal(g.Edges, want) {
					t.Errorf("grid(%d, %d, %v): edges %v, want %v", r, c, periodic, g.Edges, want)
				}
			}
		}
	}
}

func TestRandomNormal(t *testing.T) {
	a, err := RandomNormal(7, 200000, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RandomNormal(7, 10, 1, 2)
	for i := range b {
		if a[i] != b[i] {
			t.Fatal("not a prefix / not deterministic")
		}
	}
	// The documented stream: NormFloat64 of math/rand/v2 on PCG(seed, 0x9e3779b97f4a7c15).
	r := rand.New(rand.NewPCG(7, 0x9e3779b97f4a7c15))
	for i := 0; i < 10; i++ {
		if want := 1 + 2*r.NormFloat64(); a[i] != want {
			t.Fatalf("draw %d = %g, documented stream gives %g", i, a[i], want)
		}
	}
	c, _ := RandomNormal(8, 10, 1, 2)
	if c[0] == a[0] {
		t.Error("different seeds give the same stream")
	}
	var m, v float64
	for _, x := range a {
		m += x
	}
	m /= float64(len(a))
	for _, x := range a {
		v += (x - m) * (x - m)
	}
	v /= float64(len(a))
	// Standard errors: sd/sqrt(n) ≈ 0.0045 for the mean, ≈ 0.013 for the variance (4·sqrt(2/n)).
	if !(math.Abs(m-1) <= 0.02) || !(math.Abs(v-4) <= 0.06) {
		t.Errorf("mean %g var %g, want 1, 4", m, v)
	}
	if _, err := RandomNormal(1, 3, 0, -1); err == nil {
		t.Error("negative sd accepted")
	}
}

func TestRows(t *testing.T) {
	got, err := Rows([]float64{1, 2, 3, 4, 5, 6}, 3, 2, []int{2, 0})
	if err != nil || len(got) != 4 || got[0] != 5 || got[1] != 6 || got[2] != 1 {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := Rows([]float64{1, 2}, 2, 0, []int{2}); err == nil || err.Error() != "rows: index 2 out of range 0..2" {
		t.Errorf("err = %v", err)
	}
}
