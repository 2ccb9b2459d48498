package compile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
)

// Dump writes a deterministic text rendering of a compiled model for golden
// tests and `fg graph`: the factor graph (graph.Dump), then every Gaussian
// block (prior, a summary of its covariance, sites and mini-batch factors
// evaluated at w = 0 and w = 1), infer specs, predicts, expects and learn.
// Numbers use the shortest representation that round-trips.
func Dump(w io.Writer, m *Model) error {
	if err := graph.DumpFactors(w, m.Graph, m.Factors()); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "model %s\n", m.Name)
	for _, k := range sortedKeys(m.Params) {
		fmt.Fprintf(bw, "param %s = %s\n", k, valueString(m.Params[k]))
	}
	for _, k := range sortedKeys(m.Data) {
		fmt.Fprintf(bw, "data %s = %s\n", k, valueString(m.Data[k]))
	}
	for i, b := range m.Blocks() {
		dumpBlock(bw, i, b)
	}
	if m.FactorGraph != nil && m.Blocks() == nil {
		dumpFactorGraph(bw, m.FactorGraph)
	}
	if m.Net != nil {
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := graph.DumpNet(w, m.Net); err != nil {
			return err
		}
	}
	for _, s := range m.Infers {
		clamp := ""
		if s.NonNegativeSites {
			clamp = " nonnegative_sites"
		}
		fmt.Fprintf(bw, "infer %s method=%s div=%v schedule=%v seed=%d damping=%s tol=%s max_iter=%d approx=%s gh=%d family=%s passes=%d mcmc=%d/%d/%d%s options=%s\n",
			s.Label, s.Method, s.Settings.Divergence, s.Settings.Schedule, s.Settings.Seed, num(s.Settings.Damping),
			num(s.Settings.Tol), s.Settings.MaxIter, s.Approx.Kind, s.Approx.N, s.Family, s.Passes, s.Samples, s.Burnin, s.Chains, clamp, mapString(s.Options))
	}
	for _, p := range m.Predicts {
		if p.Sparse != nil {
			fmt.Fprintf(bw, "predict %s block=%d libsvm=%s %dx%d lik=%s %v\n", p.Name, p.Block, filepath.ToSlash(p.Sparse.Path), p.Sparse.Rows, p.Sparse.Cols, p.Lik.Name(), p.Lik.Params())
			continue
		}
		if p.Net != nil {
			fmt.Fprintf(bw, "predict %s net %s n=%d\n", p.Name, p.Net.Kind.Name(), len(p.Net.Factors))
			continue
		}
		r, c := p.Xnew.Dims()
		lik, params := "", map[string]float64(nil)
		if p.Lik != nil {
			lik, params = p.Lik.Name(), p.Lik.Params()
		}
		fmt.Fprintf(bw, "predict %s block=%d xnew=%dx%d sum=%s lik=%s %v\n", p.Name, p.Block, r, c, num(mat.Sum(p.Xnew)), lik, params)
		if f := p.FG; f != nil {
			fmt.Fprintf(bw, "  fg vars=%d+%d dense=%d out=%s*g+%v site=%s*g+%v\n", f.Vars[0], len(f.Vars), f.Dense, num(f.Scale), f.Rest, num(f.SiteScale), f.SiteRest)
		}
	}
	for _, e := range m.Expects {
		at := m.Fset.Position(e.Pos)
		fmt.Fprintf(bw, "expect %T for=%q at %d:%d\n", e.Expr, e.For, at.Line, at.Column)
	}
	if m.Learn != nil {
		for _, p := range m.Learn.Params {
			fmt.Fprintf(bw, "learn %s bounded=%v [%s, %s]\n", p.Name, p.Bounded, num(p.Lo), num(p.Hi))
		}
	}
	return bw.Flush()
}

func dumpBlock(bw *bufio.Writer, i int, b *graph.Block) {
	p := b.Prior
	fmt.Fprintf(bw, "block %d %s latent=%d N=%d prior=%s nu=%s mean=%s\n", i, b.Name, b.Latent, b.N, p.Kind.Name(), num(p.Nu), floats(p.Mean, 6))
	if p.Cov != nil {
		fmt.Fprintf(bw, "  cov trace=%s sum=%s first=%s\n", blasNum(mat.Trace(p.Cov)), blasNum(entrySum(p.Cov)), blasFloats(mat.Row(nil, 0, p.Cov), 4))
	} else if p.Var != nil {
		fmt.Fprintf(bw, "  var (diagonal, not formed densely) sum=%s first=%s\n", num(sum(p.Var)), floats(p.Var, 4))
	}
	if p.X != nil {
		r, c := p.X.Dims()
		fmt.Fprintf(bw, "  kernel %s X=%dx%d\n", kernelString(p.Kernel), r, c)
	}
	dumpFITC(bw, p.FITC)
	for _, s := range b.Sites {
		fmt.Fprintf(bw, "  site %s %s y=%s index=%d proj=%s params=%v factor=%d\n", s.Label, s.Lik.Name(), num(s.Y), s.Index, floats(s.Proj, 8), s.Lik.Params(), s.Factor)
	}
	for _, s := range b.Streams {
		fmt.Fprintf(bw, "  stream %s %s params=%v data=%s labels=%s %dx%d\n", s.Label, s.Lik.Name(), s.Lik.Params(), filepath.ToSlash(s.Data), filepath.ToSlash(s.Labels), s.Rows, s.Cols)
	}
	zero, one := make([]float64, b.N), make([]float64, b.N)
	for j := range one {
		one[j] = 1
	}
	g, h := make([]float64, b.N), make([]float64, b.N)
	for _, f := range b.Batches {
		v := f.F.Derivs(one, g, h)
		fmt.Fprintf(bw, "  batch %s factor=%d logf(0)=%s logf(1)=%s grad(1)=%s hdiag(1)=%s\n", f.Label, f.Factor,
			num(f.F.LogF(zero)), num(v), floats(g, 4), floats(h, 4))
	}
}

func kernelString(k graph.KernelSpec) string {
	if len(k.Args) > 0 {
		parts := make([]string, len(k.Args))
		for i, a := range k.Args {
			parts[i] = kernelString(a)
		}
		return k.Kind.String() + "(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%s%s%v", k.Kind, floats(k.Hyper, 8), k.HyperParams)
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// blasNum renders a number computed through the build's BLAS (a prior
// covariance) to 12 significant digits: gonum's pure Go and OpenBLAS sum
// in different orders, and a dump must read the same under both builds.
func blasNum(x float64) string { return strconv.FormatFloat(x, 'g', 12, 64) }

// blasFloats renders up to n numbers as blasNum, then "... (len)".
func blasFloats(x []float64, n int) string { return render(x, n, blasNum) }

// entrySum is the sum of a covariance's entries, or 0 where it is within
// the rounding of the sum (N·ε·Σ|a_ij| over its N entries): a centred
// linear kernel's entries cancel, and their last bits — which differ
// between BLAS builds — would be all that a dump shows of them.
func entrySum(a mat.Matrix) float64 {
	r, c := a.Dims()
	s, abs := mat.Sum(a), 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			abs += math.Abs(a.At(i, j))
		}
	}
	if math.Abs(s) <= float64(r*c)*0x1p-52*abs {
		return 0
	}
	return s
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// floats renders up to n numbers, then "... (len)".
func floats(x []float64, n int) string { return render(x, n, num) }

// render renders up to n numbers of x with f, then "... (len)"; "-" for nil.
func render(x []float64, n int, f func(float64) string) string {
	if x == nil {
		return "-"
	}
	parts := make([]string, 0, n)
	for i, v := range x {
		if i == n {
			parts = append(parts, fmt.Sprintf("... (%d)", len(x)))
			break
		}
		parts = append(parts, f(v))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func valueString(v Value) string {
	switch {
	case v.Nodes > 0 || v.Edges != nil:
		return fmt.Sprintf("graph nodes=%d edges=%d", v.Nodes, len(v.Edges))
	case v.Num != nil || v.Shape != nil:
		return fmt.Sprintf("%s%v %s", v.Domain, v.Shape, floats(v.Num, 6))
	}
	return strconv.Quote(v.Str)
}

func mapString(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// dumpFactorGraph writes a factor-graph model: its variables, dense blocks,
// linear-Gaussian factors and affine sites.
func dumpFactorGraph(bw *bufio.Writer, g *FactorGraph) {
	fmt.Fprintf(bw, "factorgraph vars=%d first=%v gaussians=%d sites=%d dense=%d\n", g.NumVars, g.First, g.NumGaussians(), g.NumSites(), len(g.Dense))
	for _, d := range g.Dense {
		fmt.Fprintf(bw, "  dense %s latent=%d vars=%s prior=%s mean=%s factor=%d\n", d.Name, d.Latent, intRange(d.Vars()), d.Prior.Kind.Name(), floats(d.Prior.Mean, 6), d.Factor)
		if d.Prior.Cov != nil {
			fmt.Fprintf(bw, "    cov trace=%s sum=%s\n", blasNum(mat.Trace(d.Prior.Cov)), blasNum(entrySum(d.Prior.Cov)))
		}
	}
	for i, f := range g.Gaussians() {
		fmt.Fprintf(bw, "  gaussian %s target=%d aff=%s var=%s factor=%d\n", g.GaussianLabel(i), f.Target, affineString(f.Aff), num(f.Var), f.Factor)
	}
	for i, s := range g.Sites() {
		fmt.Fprintf(bw, "  site %s %s y=%s aff=%s params=%v factor=%d\n", g.SiteLabel(i), s.Shared.Lik.Name(), num(s.Y), affineString(s.Aff), s.Shared.Lik.Params(), s.Factor)
	}
	dumpGates(bw, g)
}

// dumpGates writes the discrete variables and the gates of a factor graph.
func dumpGates(bw *bufio.Writer, g *FactorGraph) {
	for d, v := range g.Discrete {
		fmt.Fprintf(bw, "  discrete %d var=%d prior=%s\n", d, v.Var, floats(v.Prior, 6))
	}
	for _, gt := range g.Gates {
		fmt.Fprintf(bw, "  gate %s selector=%d factor=%d\n", gt.Label, gt.Selector, gt.Factor)
		for k, s := range gt.Branches {
			fmt.Fprintf(bw, "    branch %d %s y=%s aff=%s params=%v\n", k, s.Shared.Lik.Name(), num(s.Y), affineString(s.Aff), s.Shared.Lik.Params())
		}
	}
}

// affineString renders an Affine as 1*v3 -0.9*v2 +0.1.
func affineString(a graph.Form) string {
	parts := make([]string, 0, len(a.Vars)+1)
	for k, v := range a.Vars {
		parts = append(parts, fmt.Sprintf("%s*v%d", num(a.Coefs[k]), v))
	}
	return strings.Join(append(parts, num(a.Const)), " + ")
}

// intRange renders consecutive variables as first..last.
func intRange(vs []int) string {
	if len(vs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d..%d", vs[0], vs[len(vs)-1])
}
