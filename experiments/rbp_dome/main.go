// Command rbp_dome reproduces Qi & Guo §6.2 (qi-guo-relaxed-ep-rbp.md,
// "Results on MRF inference", Figure 9): on the 60-node geodesic dome (C60),
//
//	p(x) ∝ exp( Σ_i J_i x_i − Σ_{(i,j)} J_ij x_i x_j ),   x_i ∈ {−1, +1},
//
// with J_i ~ N(0, 1) and J_ij ~ |N(1, 1)| (weak) or |N(5, 5)| (strong), it
// compares BP, damped BP (step 0.8), fractional BP (power 0.8) and relaxed
// BP (c = 0.1) against the junction tree: the error of a run is the mean
// over nodes of |p_exact(x_i = +1) − p_approx(x_i = +1)|. It prints the
// mean error, its standard error and the number of non-converged runs per
// method and condition, and writes runs.csv, summary.csv and errors.png.
//
// N(m, v) is read as mean m and variance v (the paper's own convention: its
// Gaussians N(f | m, v) are parameterised by variances); -reading sd uses
// v as a standard deviation instead.
//
//	go run ./experiments/rbp_dome [-reps 50] [-seed 1] [-reading variance|sd] [-c 0.1,1] [-out out/rbp_dome]
//
// Measured (seed 1, 50 repetitions, sequential schedule, tol 1e-9, 1000
// passes; `go run ./experiments/rbp_dome -c 0.1,0.3,1,3`), mean error ± s.e.
// (runs not converged):
//
//	           BP             damped 0.8     fractional 0.8  RBP c=0.1      RBP c=0.3      RBP c=1
//	weak     0.019±.002 (0)  0.019±.002 (0)  0.066±.006 (0)  0.096±.008 (1)  0.035±.004 (0)  0.019±.002 (0)
//	strong   0.428±.014 (50) 0.411±.028 (49) 0.188±.025 (10) 0.221±.024 (48) 0.351±.021 (48) 0.403±.019 (50)
//
// With -reading sd the strong row is BP 0.376, damped 0.327, fractional
// 0.186, RBP(0.1) 0.208 (weak is the same: N(1, 1)). So the paper's claim
// holds only in part here: on strong couplings RBP (c = 0.1) halves BP's
// error, but fractional BP is as good or better and RBP rarely converges;
// on weak couplings RBP with c = 0.1 relaxes ~18% of the edges and is worse
// than BP (it equals BP from c ≈ 1 on). The relaxed objective used is
// KL(q̂^r ‖ Π_j q^r_j) + c·b (infer/bp/relaxed.go); the paper's penalty
// scale for the discrete case is not specified beyond "c = 0.1".
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/bp"
	"github.com/fg-infer/fg/infer/jtree"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

type config struct {
	reps    int
	seed    uint64
	reading string
	out     string
	maxIter int
	tol     float64
	rbpC    []float64 // relaxed BP penalties (the paper: 0.1)
}

type condition struct {
	name       string
	mean, spec float64 // J_ij ~ |N(mean, spec)|, spec a variance or an sd by reading
}

type method struct {
	name string
	s    bp.Settings
}

// run is one (condition, repetition, method) outcome.
type run struct {
	cond, method string
	rep          int
	err          float64
	converged    bool
	iters        int
	relaxed      float64 // fraction of edges with b > 0 (relaxed BP)
	meanB        float64
}

func methods(c config) []method {
	base := infer.Settings{Schedule: infer.Sequential, Tol: c.tol, MaxIter: c.maxIter}
	with := func(f func(*infer.Settings)) bp.Settings { s := base; f(&s); return bp.Settings{Settings: s} }
	ms := []method{
		{"BP", with(func(*infer.Settings) {})},
		{"damped BP (0.8)", with(func(s *infer.Settings) { s.Damping = 0.8 })},
		{"fractional BP (0.8)", with(func(s *infer.Settings) { s.Divergence = infer.Alpha{A: 0.8} })},
	}
	for _, C := range c.rbpC {
		ms = append(ms, method{fmt.Sprintf("RBP (c = %g)", C), with(func(s *infer.Settings) { s.Divergence = infer.RelaxedKL{C: C} })})
	}
	return ms
}

func parseList(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("-c: %q is not a penalty ≥ 0", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func main() {
	var c config
	flag.IntVar(&c.reps, "reps", 50, "repetitions per condition")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the random potentials")
	flag.StringVar(&c.reading, "reading", "variance", "N(m, v): v is a variance or an sd")
	flag.StringVar(&c.out, "out", filepath.Join("out", "rbp_dome"), "output directory")
	flag.IntVar(&c.maxIter, "maxiter", 1000, "maximum passes per run")
	flag.Float64Var(&c.tol, "tol", 1e-9, "convergence tolerance (largest belief change)")
	cs := flag.String("c", "0.1", "comma-separated relaxed-BP penalties c")
	flag.Parse()
	var err error
	if c.rbpC, err = parseList(*cs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	runs, err := experiment(context.Background(), c)
	if err == nil {
		err = write(c, runs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func conditions(reading string) ([]condition, error) {
	if reading != "variance" && reading != "sd" {
		return nil, fmt.Errorf("-reading must be variance or sd, not %q", reading)
	}
	return []condition{{"weak", 1, 1}, {"strong", 5, 5}}, nil
}

// experiment runs every condition, repetition and method.
func experiment(ctx context.Context, c config) ([]run, error) {
	conds, err := conditions(c.reading)
	if err != nil {
		return nil, err
	}
	dome := stdlib.GeodesicDome()
	var runs []run
	for ci, cond := range conds {
		rng := rand.New(rand.NewPCG(c.seed, uint64(ci)))
		for rep := 0; rep < c.reps; rep++ {
			g := domeModel(dome, rng, cond, c.reading)
			ex, err := jtree.Run(ctx, g, jtree.Settings{})
			if err != nil {
				return nil, err
			}
			for _, m := range methods(c) {
				res, err := bp.Run(ctx, g, m.s)
				if err != nil {
					return nil, err
				}
				runs = append(runs, outcome(cond.name, m.name, rep, ex, res, g))
			}
		}
	}
	return runs, nil
}

// domeModel draws one MRF on the dome.
func domeModel(dome *stdlib.Graph, rng *rand.Rand, cond condition, reading string) *graph.Graph {
	g := &graph.Graph{}
	g.AddLatent("x", graph.Spin, 2, []int{dome.N}, ast.NoPos)
	for i := 0; i < dome.N; i++ {
		h := rng.NormFloat64() // J_i ~ N(0, 1)
		f := factor.Field{H: h}
		g.AddFactor(graph.Factor{Kind: factor.Field{}, Vars: []int{i}, ScalarName: "h", Scalar: h, Table: f.Table()})
	}
	sd := cond.spec
	if reading == "variance" {
		sd = math.Sqrt(cond.spec)
	}
	for _, e := range dome.Edges {
		J := math.Abs(cond.mean + sd*rng.NormFloat64())
		// exp(−J x_i x_j) over (x_i, x_j) in libDAI order: (−,−) (+,−) (−,+) (+,+).
		f := factor.Ising{J: -J}
		g.AddFactor(graph.Factor{Kind: factor.Ising{}, Vars: []int{e[0], e[1]}, ScalarName: "J", Scalar: f.J, Table: f.Table()})
	}
	return g
}

func outcome(cond, name string, rep int, ex *jtree.Result, res *bp.Result, g *graph.Graph) run {
	r := run{cond: cond, method: name, rep: rep, converged: res.Status == infer.Converged, iters: res.Iterations}
	for i := range ex.Marginals {
		r.err += math.Abs(ex.Marginals[i][1] - res.Marginals[i][1])
	}
	r.err /= float64(len(ex.Marginals))
	if res.B != nil {
		n := 0
		for a, b := range res.B {
			if len(g.Factor(a).Vars) == 2 {
				n++
				r.meanB += b
				if b > 0 {
					r.relaxed++
				}
			}
		}
		r.relaxed /= float64(n)
		r.meanB /= float64(n)
	}
	return r
}
