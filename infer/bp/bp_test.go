package bp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/jtree"
	"github.com/fg-infer/fg/lang/ast"
)

// randomTree builds a random factor tree: variables of 2–3 states joined by
// factors of arity 2–3 whose variables are one existing and 1–2 new ones,
// plus random single-variable factors (including a repeated-variable one).
func randomTree(rng *rand.Rand, n int) *graph.Graph {
	g := &graph.Graph{}
	add := func() int {
		li := g.AddLatent("x"+strconv.Itoa(len(g.Vars)), graph.Cat, 2+rng.IntN(2), nil, ast.NoPos)
		return g.Latents[li].First
	}
	add()
	for len(g.Vars) < n {
		vars := []int{rng.IntN(len(g.Vars))}
		for k := 0; k < 1+rng.IntN(2); k++ {
			vars = append(vars, add())
		}
		g.AddFactor(randomFactor(rng, g, vars))
	}
	for k := 0; k < n/2; k++ {
		v := rng.IntN(len(g.Vars))
		g.AddFactor(randomFactor(rng, g, []int{v}))
	}
	g.AddFactor(randomFactor(rng, g, []int{0, 0}))
	return g
}

func randomFactor(rng *rand.Rand, g *graph.Graph, vars []int) graph.Factor {
	size := 1
	for _, v := range vars {
		size *= g.Vars[v].Card
	}
	t := make([]float64, size)
	for k := range t {
		t[k] = math.Exp(1.5 * rng.NormFloat64())
	}
	return graph.Factor{Kind: factor.Table{}, Vars: vars, Table: t}
}

// On a tree BP is exact: marginals and the Bethe log Z equal the junction
// tree's (itself checked against enumeration and libDAI), to 1e-9.
func TestExactOnTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 40; trial++ {
		g := randomTree(rng, 3+rng.IntN(10))
		ex, err := jtree.Run(context.Background(), g, jtree.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		for _, sch := range []infer.Schedule{infer.Sequential, infer.Parallel, infer.Random, infer.Residual} {
			s := Settings{infer.Settings{Schedule: sch, Tol: 1e-13, Seed: uint64(trial)}}
			res, err := Run(context.Background(), g, s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != infer.Converged {
				t.Fatalf("trial %d %v: %v %s", trial, sch, res.Status, res.Message)
			}
			if d := math.Abs(res.LogZ - ex.LogZ); !(d <= 1e-9) {
				t.Errorf("trial %d %v: Bethe logZ %.12g, exact %.12g", trial, sch, res.LogZ, ex.LogZ)
			}
			for v := range g.Vars {
				for k := range ex.Marginals[v] {
					if d := math.Abs(res.Marginals[v][k] - ex.Marginals[v][k]); !(d <= 1e-9) {
						t.Errorf("trial %d %v var %d: %v exact %v", trial, sch, v, res.Marginals[v], ex.Marginals[v])
					}
				}
			}
		}
	}
}

// Fractional BP with α = 1 is BP; relaxed BP with a prohibitive penalty
// keeps every b = 0 and is BP too (identical arithmetic, so 1e-12).
func TestSpecialCasesReduceToBP(t *testing.T) {
	g := loopyGraph(rand.New(rand.NewPCG(1, 1)), 4, 0.5)
	bp, err := Run(context.Background(), g, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []infer.Divergence{infer.Alpha{A: 1}, infer.RelaxedKL{C: 1e6}} {
		res, err := Run(context.Background(), g, Settings{infer.Settings{Divergence: d}})
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(res.LogZ-bp.LogZ) <= 1e-12) || res.Iterations != bp.Iterations {
			t.Errorf("%v: logZ %v (%d passes), BP %v (%d)", d, res.LogZ, res.Iterations, bp.LogZ, bp.Iterations)
		}
		for _, b := range res.B {
			if b != 0 {
				t.Errorf("%v: relaxation weight %v", d, b)
			}
		}
	}
}

// loopyGraph is an r×r spin grid (torus) with random fields and couplings
// of scale w in fg's graph form.
func loopyGraph(rng *rand.Rand, r int, w float64) *graph.Graph {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{r, r}, ast.NoPos)
	for i := 0; i < r*r; i++ {
		h := rng.NormFloat64()
		g.AddFactor(graph.Factor{Kind: factor.Field{}, Vars: []int{i}, Table: []float64{math.Exp(-h), math.Exp(h)}})
	}
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			for _, nb := range []int{i*r + (j+1)%r, ((i+1)%r)*r + j} {
				J := w * rng.NormFloat64()
				g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{i*r + j, nb}, Table: []float64{math.Exp(J), math.Exp(-J), math.Exp(-J), math.Exp(J)}})
			}
		}
	}
	return g
}

// Relaxed BP on strong couplings relaxes some factors (b > 0) and the
// weights lie in [0, 1]; its fixed point satisfies the relaxed update.
func TestRelaxedReportsWeights(t *testing.T) {
	g := loopyGraph(rand.New(rand.NewPCG(2, 3)), 4, 3)
	res, err := Run(context.Background(), g, Settings{infer.Settings{Divergence: infer.RelaxedKL{C: 0.1}, MaxIter: 2000, Tol: 1e-9}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.B) != g.NumFactors() {
		t.Fatalf("%d weights for %d factors", len(res.B), g.NumFactors())
	}
	n := 0
	for a, b := range res.B {
		if b < 0 || b > 1 || (len(g.Factor(a).Vars) == 1 && b != 0) {
			t.Errorf("factor %d: b = %v", a, b)
		}
		if b > 0 {
			n++
		}
	}
	if n == 0 {
		t.Error("no factor relaxed on strong couplings")
	}
	t.Logf("status %v after %d passes, %d of %d factors relaxed", res.Status, res.Iterations, n, g.NumFactors())
}

// The relaxed objective is the multi-information: zero for a product table,
// and log 2 for two perfectly correlated fair bits.
func TestMultiInformation(t *testing.T) {
	coff := []int{0, 2, 4}
	if mi := multiInformation([]float64{0, 1, 2, 3}, coff, 2); !(math.Abs(mi) <= 1e-15) {
		t.Errorf("product table: %v", mi)
	}
	inf := math.Inf(-1)
	if mi := multiInformation([]float64{0, inf, inf, 0}, coff, 2); !(math.Abs(mi-math.Ln2) <= 1e-15) {
		t.Errorf("copy table: %v want log 2", mi)
	}
}

// NewSpinPairwise builds the same problem as the graph route.
func TestSpinPairwiseMatchesGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n := 9
	h := make([]float64, n)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	var edges [][2]int32
	var J []float64
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{n}, ast.NoPos)
	for a := 0; a < n; a++ {
		for _, b := range []int{(a + 1) % n, (a + 3) % n} {
			j := rng.NormFloat64()
			edges, J = append(edges, [2]int32{int32(a), int32(b)}), append(J, j)
			g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{a, b}, Table: []float64{math.Exp(j), math.Exp(-j), math.Exp(-j), math.Exp(j)}})
		}
	}
	for i := range h {
		g.AddFactor(graph.Factor{Kind: factor.Field{}, Vars: []int{i}, Table: []float64{math.Exp(-h[i]), math.Exp(h[i])}})
	}
	p, err := NewSpinPairwise(n, h, edges, J)
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Run(context.Background(), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), g, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(a.LogZ-b.LogZ) <= 1e-12) || a.Iterations != b.Iterations {
		t.Errorf("pairwise logZ %v (%d), graph %v (%d)", a.LogZ, a.Iterations, b.LogZ, b.Iterations)
	}
	for i := range a.Marginals {
		if !(math.Abs(a.Marginals[i][1]-b.Marginals[i][1]) <= 1e-12) {
			t.Errorf("var %d: %v vs %v", i, a.Marginals[i], b.Marginals[i])
		}
	}
	if _, err := NewSpinPairwise(2, nil, [][2]int32{{0, 0}}, []float64{1}); err == nil {
		t.Error("self-loop accepted")
	}
}

func TestStatusAndErrors(t *testing.T) {
	g := loopyGraph(rand.New(rand.NewPCG(9, 9)), 5, 1)
	res, err := Run(context.Background(), g, Settings{infer.Settings{MaxIter: 2}})
	if err != nil || res.Status != infer.IterationLimit || len(res.Trace) != 2 || res.Message == "" {
		t.Errorf("iteration limit: %v %+v", err, res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	res, err = Run(ctx, g, Settings{infer.Settings{Progress: func(int, float64) { calls++; cancel() }, Tol: 1e-15}})
	if !errors.Is(err, context.Canceled) || res.Status != infer.Canceled || calls != 1 || res.Marginals == nil {
		t.Errorf("cancel: %v %v calls %d", err, res.Status, calls)
	}
	bad := []Settings{
		{infer.Settings{Divergence: infer.Alpha{A: 0}}},
		{infer.Settings{Divergence: infer.RelaxedKL{C: -1}}},
		{infer.Settings{Divergence: infer.T{Nu: 3}}},
		{infer.Settings{Damping: 1.5}},
		{infer.Settings{Schedule: infer.Schedule(9)}},
	}
	for _, s := range bad {
		if _, err := Run(context.Background(), g, s); err == nil {
			t.Errorf("settings %+v accepted", s.Settings)
		}
	}
	r := &graph.Graph{}
	r.AddLatent("w", graph.Real, 0, nil, ast.NoPos)
	if _, err := Run(context.Background(), r, Settings{}); err == nil {
		t.Error("real variable accepted")
	}
}

// Zero table entries (hard constraints) stay exact on a tree and never
// produce NaN: x0 = x1 forced by an equality table.
func TestHardConstraints(t *testing.T) {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Cat, 3, []int{2}, ast.NoPos)
	g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: []int{0, 1}, Table: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}})
	g.AddFactor(graph.Factor{Kind: factor.Table{}, Vars: []int{0}, Table: []float64{1, 2, 0}})
	res, err := Run(context.Background(), g, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.0 / 3, 2.0 / 3, 0}
	for v := 0; v < 2; v++ {
		for k := range want {
			if !(math.Abs(res.Marginals[v][k]-want[k]) <= 1e-12) {
				t.Errorf("var %d: %v want %v", v, res.Marginals[v], want)
			}
		}
	}
	if !(math.Abs(res.LogZ-math.Log(3)) <= 1e-12) {
		t.Errorf("logZ %v want log 3", res.LogZ)
	}
}

// At a relaxed-BP fixed point every factor satisfies eq. 26: the belief of
// each of its variables is the marginal of the relaxed tilted distribution
// q̂^r (eq. 23) divided by m^b, and b minimises Q(b) = KL(q̂^r ‖ Π q^r) + C·b
// (checked on a 2001-point grid with Q evaluated independently).
func TestRelaxedFixedPoint(t *testing.T) {
	g := loopyGraph(rand.New(rand.NewPCG(6, 1)), 3, 2)
	p, err := NewProblem(g)
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{infer.Settings{Divergence: infer.RelaxedKL{C: 0.1}, Tol: 1e-12, MaxIter: 5000}}
	en, _ := newEngine(p, &s, true)
	sc, _ := newScheduler(en, &s)
	bel, old := make([]float64, len(p.prior)), make([]float64, len(p.prior))
	for it := 0; it < 5000; it++ {
		sc.pass()
		en.beliefs(bel)
		if maxDiff(bel, old) < 1e-13 {
			break
		}
		copy(old, bel)
	}
	relaxed := 0
	for a := 0; a < p.NumFactors(); a++ {
		b := en.selfW[a]
		if b > 0 {
			relaxed++
		}
		checkEq26(t, en, bel, int32(a), b)
		checkMinimiser(t, en, int32(a), b)
	}
	if relaxed == 0 {
		t.Fatal("no factor relaxed: the test checks nothing beyond BP")
	}
}

// tilted returns the normalised q̂^r over a binary pairwise factor, directly
// from the definition: f(x) Π_j n_j(x_j) m_j(x_j)^b.
func tilted(en *engine, a int32, b float64) [4]float64 {
	p := en.p
	en.cavities(a, 0)
	t, theta := p.table(a)
	var q [4]float64
	z := 0.0
	for x1 := 0; x1 < 2; x1++ {
		for x0 := 0; x0 < 2; x0++ {
			e0, e1 := p.fstart.at(a), p.fstart.at(a)+1
			l := theta*t[x0+2*x1] + en.cav[x0] + en.cav[2+x1] + b*(en.msg[p.msgStart(e0)+int32(x0)]+en.msg[p.msgStart(e1)+int32(x1)])
			q[x0+2*x1] = math.Exp(l)
			z += q[x0+2*x1]
		}
	}
	for k := range q {
		q[k] /= z
	}
	return q
}

func checkEq26(t *testing.T, en *engine, bel []float64, a int32, b float64) {
	p := en.p
	q := tilted(en, a, b)
	marg := [2][2]float64{{q[0] + q[2], q[1] + q[3]}, {q[0] + q[1], q[2] + q[3]}}
	for k := 0; k < 2; k++ {
		e := p.fstart.at(a) + int32(k)
		i := p.evar[e]
		m := p.msgOf(en.msg, e)
		r0 := marg[k][0] / math.Exp(b*m[0])
		r1 := marg[k][1] / math.Exp(b*m[1])
		want := r1 / (r0 + r1)
		if got := bel[p.voff.at(i)+1]; !(math.Abs(got-want) <= 1e-9) {
			t.Errorf("factor %d var %d (b = %.4f): belief %.12f, eq. 26 gives %.12f", a, i, b, got, want)
		}
	}
}

func checkMinimiser(t *testing.T, en *engine, a int32, b float64) {
	Q := func(b float64) float64 {
		q := tilted(en, a, b)
		m0 := [2]float64{q[0] + q[2], q[1] + q[3]}
		m1 := [2]float64{q[0] + q[1], q[2] + q[3]}
		kl := 0.0
		for x1 := 0; x1 < 2; x1++ {
			for x0 := 0; x0 < 2; x0++ {
				if v := q[x0+2*x1]; v > 0 {
					kl += v * math.Log(v/(m0[x0]*m1[x1]))
				}
			}
		}
		return kl + 0.1*b
	}
	qb := Q(b)
	for k := 0; k <= 2000; k++ {
		if c := float64(k) / 2000; Q(c) < qb-1e-12 {
			t.Errorf("factor %d: Q(%.4f) = %.12g < Q(b = %.6f) = %.12g", a, c, Q(c), b, qb)
			return
		}
	}
}

// TestSharedTables: factors whose graph tables are one slice (the
// compiler's identical potentials) share one engine table, and the run is
// bit-identical to the one on private copies.
func TestSharedTables(t *testing.T) {
	shared, copied := loopyGraph(rand.New(rand.NewPCG(4, 1)), 4, 0), loopyGraph(rand.New(rand.NewPCG(4, 1)), 4, 0)
	tab := []float64{math.Exp(0.7), math.Exp(-0.7), math.Exp(-0.7), math.Exp(0.7)}
	for a := range shared.Factors() {
		if len(shared.Factor(a).Vars) == 2 {
			fs, fc := shared.Factor(a), copied.Factor(a)
			fs.Table, fc.Table = tab, slices.Clone(tab)
			shared.SetFactor(a, fs)
			copied.SetFactor(a, fc)
		}
	}
	ps, err := NewProblem(shared)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := NewProblem(copied)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps.tab) != 4 || len(pc.tab) != 4*pc.NumFactors() {
		t.Fatalf("%d and %d table entries for %d factors", len(ps.tab), len(pc.tab), pc.NumFactors())
	}
	for _, s := range []infer.Settings{{}, {Schedule: infer.Residual}, {Divergence: infer.Alpha{A: 0.8}}} {
		rs, err1 := ps.Run(context.Background(), Settings{s})
		rc, err2 := pc.Run(context.Background(), Settings{s})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		compareResults(t, s.Schedule, rs, rc, 0)
	}
}
