package jtree

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/internal/datadir"
	"github.com/fg-infer/fg/internal/refdata"
	"github.com/fg-infer/fg/lang/ast"
)

func readReference(t *testing.T, path string) *refdata.LibDAI {
	t.Helper()
	r, err := refdata.ReadLibDAI(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Reference: libDAI JTREE (HUGIN, MINFILL) on data/reference/libdai, to 1e-9.
func TestMatchesLibDAIJTree(t *testing.T) {
	dir := datadir.Dir()
	models, _ := filepath.Glob(filepath.Join(dir, "reference", "libdai", "*.fg"))
	if len(models) == 0 {
		t.Fatal("no libDAI models in data/reference/libdai")
	}
	for _, m := range models {
		base := strings.TrimSuffix(m, ".fg")
		t.Run(filepath.Base(base), func(t *testing.T) {
			g, err := graph.ReadLibDAI(m, factor.Table{})
			if err != nil {
				t.Fatal(err)
			}
			ref := readReference(t, base+".jtree.tsv")
			for _, h := range []string{graph.MinFill, graph.MinWeight} {
				res, err := Run(context.Background(), g, Settings{Heuristic: h})
				if err != nil {
					t.Fatal(err)
				}
				if d := math.Abs(res.LogZ - ref.LogZ); !(d <= 1e-9) {
					t.Errorf("%s: logZ %.15g, libDAI %.15g (diff %.3g)", h, res.LogZ, ref.LogZ, d)
				}
				for v := range g.Vars {
					want := ref.Marginals[g.VarName(v)]
					for k, p := range res.Marginals[v] {
						if !(math.Abs(p-want[k]) <= 1e-9) {
							t.Errorf("%s: var %s state %d: %.15g, libDAI %.15g", h, g.VarName(v), k, p, want[k])
						}
					}
				}
			}
		})
	}
}

// randomGraph has n variables of 1–3 states and m factors of arity 0–3
// (repeated variables and zero entries allowed), possibly disconnected.
func randomGraph(rng *rand.Rand, n, m int) *graph.Graph {
	g := &graph.Graph{}
	for i := 0; i < n; i++ {
		g.AddLatent("x"+strconv.Itoa(i), graph.Cat, 1+rng.IntN(3), nil, ast.NoPos)
	}
	for a := 0; a < m; a++ {
		ar := rng.IntN(4)
		f := graph.Factor{Kind: factor.Table{}, Vars: make([]int, ar)}
		size := 1
		for k := range f.Vars {
			f.Vars[k] = rng.IntN(n)
			size *= g.Vars[f.Vars[k]].Card
		}
		f.Table = make([]float64, size)
		for k := range f.Table {
			if rng.Float64() > 0.1 {
				f.Table[k] = math.Exp(3 * rng.NormFloat64())
			}
		}
		g.AddFactor(f)
	}
	return g
}

// bruteForce enumerates every joint state.
func bruteForce(g *graph.Graph) (float64, [][]float64) {
	n := len(g.Vars)
	x := make([]int, n)
	marg := make([][]float64, n)
	for v := range marg {
		marg[v] = make([]float64, g.Vars[v].Card)
	}
	z := 0.0
	for {
		p := 1.0
		for _, f := range g.Factors() {
			idx, s := 0, 1
			for _, v := range f.Vars {
				idx += x[v] * s
				s *= g.Vars[v].Card
			}
			p *= f.Table[idx]
		}
		z += p
		for v := range x {
			marg[v][x[v]] += p
		}
		k := 0
		for ; k < n; k++ {
			if x[k]++; x[k] < g.Vars[k].Card {
				break
			}
			x[k] = 0
		}
		if k == n {
			break
		}
	}
	for v := range marg {
		for k := range marg[v] {
			marg[v][k] /= z
		}
	}
	return math.Log(z), marg
}

// Reference: exhaustive enumeration of the joint, to 1e-10 relative.
func TestMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 200; trial++ {
		g := randomGraph(rng, 1+rng.IntN(8), rng.IntN(14))
		logZ, marg := bruteForce(g)
		if math.IsInf(logZ, -1) {
			if _, err := Run(context.Background(), g, Settings{}); err == nil {
				t.Errorf("trial %d: zero mass not reported", trial)
			}
			continue
		}
		h := []string{graph.MinFill, graph.MinWeight}[trial%2]
		res, err := Run(context.Background(), g, Settings{Heuristic: h})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if d := math.Abs(res.LogZ - logZ); !(d <= 1e-10*math.Max(1, math.Abs(logZ))) {
			t.Errorf("trial %d: logZ %v want %v", trial, res.LogZ, logZ)
		}
		for v := range marg {
			for k := range marg[v] {
				if !(math.Abs(res.Marginals[v][k]-marg[v][k]) <= 1e-10) {
					t.Errorf("trial %d var %d: %v want %v", trial, v, res.Marginals[v], marg[v])
				}
			}
		}
	}
}

// TestBudgetRefusal: K12 over a budget of 1000 entries is refused by the
// treewidth lower bound, before any ordering (treewidth ≥ 11: a clique of
// 12 binary variables, 4096 entries); under the default budget it is
// solved. A 20×20 grid (treewidth 20, but the lower bound, planar, is at
// most 5) is refused by the min-fill ordering's budget checks (a clique
// over 2²⁵ entries, or the cliques so far over the memory budget, which
// depends on the machine).
func TestBudgetRefusal(t *testing.T) {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{12}, ast.NoPos)
	for a := 0; a < 12; a++ {
		for b := a + 1; b < 12; b++ {
			g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{a, b}, Table: []float64{1, 2, 2, 1}})
		}
	}
	_, err := Run(context.Background(), g, Settings{MaxTableSize: 1000})
	if err == nil || !strings.Contains(err.Error(), "treewidth ≥ 11 (minor-min-width bound)") || !strings.Contains(err.Error(), "4096 entries") {
		t.Fatalf("error %v", err)
	}
	if _, err := Run(context.Background(), g, Settings{}); err != nil {
		t.Fatal(err)
	}
	grid := &graph.Graph{}
	grid.AddLatent("x", graph.Spin, 2, []int{400}, ast.NoPos)
	for r := range 20 {
		for c := range 20 {
			if c+1 < 20 {
				grid.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{20*r + c, 20*r + c + 1}, Table: []float64{1, 2, 2, 1}})
			}
			if r+1 < 20 {
				grid.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{20*r + c, 20*(r+1) + c}, Table: []float64{1, 2, 2, 1}})
			}
		}
	}
	_, err = Run(context.Background(), grid, Settings{})
	if err == nil || !regexp.MustCompile(`^jtree: the min-fill elimination order.* over the (memory )?budget of [0-9.e+]+ entries; use an approximate method \(bp\)$`).MatchString(err.Error()) {
		t.Fatalf("20×20 grid: %v", err)
	}
}

func TestRejectsBadInput(t *testing.T) {
	g := &graph.Graph{}
	g.AddLatent("w", graph.Real, 0, nil, ast.NoPos)
	if _, err := Run(context.Background(), g, Settings{}); err == nil {
		t.Error("real variable accepted")
	}
	g = &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, nil, ast.NoPos)
	g.AddFactor(graph.Factor{Kind: factor.Field{}, Vars: []int{0}, Table: []float64{1}})
	if _, err := Run(context.Background(), g, Settings{}); err == nil {
		t.Error("short table accepted")
	}
	g.SetFactor(0, graph.Factor{Kind: factor.Field{}, Vars: []int{0}, Table: []float64{1, math.NaN()}})
	if _, err := Run(context.Background(), g, Settings{}); err == nil {
		t.Error("NaN entry accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.SetFactor(0, graph.Factor{Kind: factor.Field{}, Vars: []int{0}, Table: []float64{1, 2}})
	if _, err := Run(ctx, g, Settings{}); err == nil {
		t.Error("canceled context ignored")
	}
}
