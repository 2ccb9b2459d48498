package compile

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// maxCovBytes bounds a dense covariance (N² float64s).
const maxCovBytes = 2 << 30

// priorDecl is a latent's prior, compiled.
type priorDecl struct {
	prior  graph.Prior
	factor int
	pos    ast.Pos
}

func (c *compiler) latentStmt(s *ast.LatentStmt) {
	d, card, shape := c.typeOf(s.Type)
	if n := float64(sizeOf(shape)); n > maxLatent || c.streamedWeights(s, d, shape) {
		c.compactLatent(s, d, shape)
		return
	}
	if states := float64(sizeOf(shape)) * float64(card); d.Discrete() && states > graph.MaxGraphEntries {
		c.fail(s.Type, "latent `%s` has %.0f states in all (elements × states of each); the limit is %d", s.Name.Name, states, graph.MaxGraphEntries)
	}
	if d == graph.Int {
		c.fail(s.Type, "latent `%s`: int latents are not supported; use cat(K)", s.Name.Name)
	}
	c.chargeLatent(s, int(sizeOf(shape)))
	if msg := c.an.declError(s.Name); msg != "" {
		c.fail(s.Name, "%s", msg)
	}
	lat := c.m.Graph.AddLatent(s.Name.Name, d, card, shape, s.Pos())
	c.declare(s.Name, &binding{kind: bLatent, lat: lat})
	if s.Prior != nil {
		call, ok := s.Prior.(*ast.CallExpr)
		if !ok {
			c.fail(s.Prior, "a prior is a distribution call, e.g. ~ normal(0, 1)")
		}
		c.setPrior(lat, s.Name, call)
	}
}

// latentElementBytes is what one element of an ordinary latent costs as
// the model compiles: its graph.Var (32 bytes), its ID in the prior
// factor (8) and the prior's own mean and variance (16), with the
// collector's slack — `latent w: real[10⁷] ~ normal(0, 1)` peaked at 644
// MB resident before its first error.
const latentElementBytes = 64

// chargeLatent refuses, at its type and before its graph variables are
// allocated, a latent of n elements whose elements with those of the
// latents before it would cost more than the memory budget as they
// compile (latentElementBytes each). What the engines need later is
// charged where they are chosen (chargeElements for a factor graph).
func (c *compiler) chargeLatent(s *ast.LatentStmt, n int) {
	before := len(c.m.Graph.Vars)
	need, budget := int64(before+n)*latentElementBytes, infer.MemoryBudget()
	if need <= budget {
		return
	}
	with := ""
	if before > 0 {
		with = fmt.Sprintf(" with the %d elements of the latents before it,", before)
	}
	c.fail(s.Type, "latent `%s` has %d elements:%s about %s as the model compiles, at %d bytes each (a graph variable and its prior), more than the memory budget of %s (FG_MEMORY_BUDGET, docs/cli.md)",
		s.Name.Name, n, with, infer.FormatBytes(need), latentElementBytes, infer.FormatBytes(budget))
}

// setPrior compiles `latent x ~ DIST(...)` or `x ~ DIST(...)` for a whole
// latent (lhs names it); parameters that depend on latents make it a
// vectorised conditional (conditional.go).
func (c *compiler) setPrior(lat int, lhs ast.Node, call *ast.CallExpr) {
	if c.net != nil {
		c.netPrior(lhs, lat, c.latentIDs(lat), call)
		return
	}
	l := &c.m.Graph.Latents[lat]
	c.compactUse(lhs.Pos(), lat)
	c.priorTried[lat] = true
	b := c.distribution(call)
	if !b.Prior {
		c.fail(call.Fun, "`%s` is a likelihood and cannot be the prior of latent `%s`; priors are %s",
			b.Name, l.Name, priorNames(l.Domain))
	}
	if !domainIn(l.Domain, b.Domains) {
		c.fail(call.Fun, "%s is a prior for %s latents, but `%s` is %s; priors for %s are %s",
			b.Name, b.Domains[0], l.Name, l.Domain, l.Domain, priorNames(l.Domain))
	}
	if c.mentionsLatent(call) {
		if l.Domain != graph.Real {
			c.fail(call, "the prior of the %s latent `%s` depends on a latent: a discrete latent's prior takes numbers (e.g. %s(p) with p a vector of probabilities); a prior with latent parameters is normal(mean, var) on a real latent",
				l.Domain, l.Name, factor.Categorical{}.Name())
		}
		c.conditional(lhs, c.selection(lat, c.latentIDs(lat), l.Shape), call, lhs.Pos())
		return
	}
	if old, ok := c.prior[lat]; ok {
		c.fail(call, "latent `%s` already has a prior (at %s)", l.Name, c.fset.Position(old.pos))
	}
	a := c.bind(call, b)
	k, _ := factor.Lookup(b.Name, factor.Prior) // b.Prior: every prior builtin is a factor kind
	if _, ok := k.(factor.DiscretePrior); ok {
		c.prior[lat] = &priorDecl{factor: -1, pos: call.Pos()}
		return
	}
	if _, ok := k.(factor.Categorical); ok {
		c.categoricalPrior(lat, a)
		return
	}
	var p graph.Prior
	slotted := c.lf.inSlot(func() { p = c.gaussianPrior(a, l, k) })
	ids := make([]int, l.Size())
	for i := range ids {
		ids[i] = l.First + i
	}
	// The prior is a factor of the real-latent IR only (a dense block or
	// the linear-Gaussian factors of its elements; Model.Factors makes its
	// graph.Factor on demand).
	f := c.addOffGraph()
	if slotted {
		c.lf.priors = append(c.lf.priors, priorSlot{lat: lat, call: call, b: b, k: k, factor: f})
	}
	c.prior[lat] = &priorDecl{prior: p, factor: f, pos: call.Pos()}
}

// priorParams are the parameters of prior p beyond its kind and arrays
// (graph.ParamList): a Student-t prior's ν.
func priorParams(p graph.Prior) []graph.Param {
	if p.Kind.Family() == graph.StudentT {
		return []graph.Param{{Name: "nu", Value: p.Nu}}
	}
	return nil
}

func domainIn(d graph.Domain, ds []graph.Domain) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

func priorNames(d graph.Domain) string {
	var out []string
	for _, n := range stdlib.Names(stdlib.Distribution) {
		b, _ := stdlib.Lookup(stdlib.Distribution, n)
		if b.Prior && domainIn(d, b.Domains) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none (add factors instead)"
	}
	return strings.Join(out, ", ")
}

// distribution looks up the callee of a `~` right-hand side.
func (c *compiler) distribution(call *ast.CallExpr) *stdlib.Builtin {
	name := call.FunName()
	if name == "" {
		c.fail(call.Fun, "expected a distribution name")
	}
	b, err := stdlib.Find(stdlib.Distribution, name)
	if err != nil {
		if bs := stdlib.LookupAny(name); len(bs) > 0 {
			c.fail(call.Fun, "%s", misuse(bs[0]))
		}
		c.fail(call.Fun, "%v", err)
	}
	return b
}

// gaussianPrior evaluates a normal/mvnormal/gp/student_t/tp prior over the
// N elements of a real latent (row-major for arrays).
func (c *compiler) gaussianPrior(a *args, l *graph.Latent, k factor.Kind) graph.Prior {
	n := l.Size()
	if _, ok := k.(factor.NormalPrior); ok {
		// Diagonal: the dense covariance is formed by densePrior once the
		// block is known not to be streamed.
		return graph.Prior{Kind: factor.NormalPrior{}, Mean: c.perElement(a, 0, n, false), Var: c.perElement(a, 1, n, true)}
	}
	if msg := c.covTooLarge(l.Name, n, fitcHint(k)); msg != "" && !isFITC(a, k) {
		c.fail(a.call, "%s", msg)
	}
	switch k := k.(type) {
	case factor.MVNormal:
		return graph.Prior{Kind: k, Mean: c.perElement(a, 0, n, false), Cov: c.covArg(a, 1, n)}
	case factor.StudentTPrior:
		nu := a.positive(0, 0)
		return graph.Prior{Kind: k, Nu: nu, Mean: c.perElement(a, 1, n, false), Cov: diag(c.perElement(a, 2, n, true))}
	case factor.GP:
		return c.processPrior(a, l, k, 0, 0)
	case factor.TP:
		return c.processPrior(a, l, k, 1, a.positive(0, 0))
	}
	c.fail(a.call, "unsupported prior %s", a.b.Name)
	return graph.Prior{}
}

// covTooLarge is the message for a prior that needs an n×n covariance
// over the budget, or "" when it fits.
func (c *compiler) covTooLarge(name string, n int, hint string) string {
	limit := float64(maxCovBytes)
	if c.opt.maxCovBytes > 0 {
		limit = c.opt.maxCovBytes
	}
	if float64(n)*float64(n)*8 <= limit {
		return ""
	}
	return fmt.Sprintf("the prior of `%s` needs a %d×%d covariance (%.1f GB); the limit is 2 GB%s",
		name, n, n, float64(n)*float64(n)*8/(1<<30), hint)
}

// densePrior forms the dense covariance diag(Var) of a normal prior for a
// block that is not streamed (its engines read Cov), or reports at pos
// that it is over the covariance budget.
func (c *compiler) densePrior(p *graph.Prior, name string, pos ast.Pos) bool {
	if !p.Kind.Independent() || p.Cov != nil {
		return true
	}
	if msg := c.covTooLarge(name, len(p.Var), ""); msg != "" {
		c.errAt(pos, pos, "%s", msg)
		return false
	}
	p.Cov = diag(p.Var)
	return true
}

// perElement evaluates parameter i as a scalar (repeated) or a length-n vector.
func (c *compiler) perElement(a *args, i, n int, positive bool) []float64 {
	v, _ := a.val(i)
	if v.k != kNum || (len(v.shape) != 0 && (len(v.shape) != 1 || v.shape[0] != n)) {
		c.fail(a.at(i), "%s: `%s` must be a number or a vector of %d, got %s", a.b.Name, a.name(i), n, v.describe())
	}
	c.finite(a.at(i), a.b.Name+" "+a.name(i), v)
	if positive {
		c.notePositive(a.expr(i))
	}
	out := make([]float64, n)
	for k := range out {
		out[k] = v.num[bi(v, k)]
		if positive && !(out[k] > 0) {
			c.fail(a.at(i), "%s: `%s` must be > 0, got %s", a.b.Name, a.name(i), fmtNum(out[k]))
		}
	}
	return out
}

func diag(d []float64) *mat.SymDense {
	s := mat.NewSymDense(len(d), nil)
	for i, x := range d {
		s.SetSym(i, i, x)
	}
	return s
}

// covArg evaluates an n×n symmetric positive-definite matrix.
func (c *compiler) covArg(a *args, i, n int) *mat.SymDense {
	v, _ := a.val(i)
	if v.k != kNum || len(v.shape) != 2 || v.shape[0] != n || v.shape[1] != n {
		c.fail(a.at(i), "mvnormal: cov must be a %d×%d matrix, got %s", n, n, v.describe())
	}
	c.finite(a.at(i), "mvnormal cov", v)
	s := mat.NewSymDense(n, nil)
	for r := 0; r < n; r++ {
		for q := r; q < n; q++ {
			x, y := v.num[r*n+q], v.num[q*n+r]
			if d := x - y; d > 1e-12*(1+abs(x)) || -d > 1e-12*(1+abs(x)) {
				c.fail(a.at(i), "mvnormal: cov is not symmetric: [%d, %d] = %g but [%d, %d] = %g", r, q, x, q, r, y)
			}
			s.SetSym(r, q, x)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		c.fail(a.at(i), "mvnormal: cov is not positive definite (Cholesky failed)")
	}
	return s
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// processPrior evaluates gp(kernel, X) / tp(nu, kernel, X): the kernel
// (param k) and inputs X (param k+1), and the Gram matrix (skipped in Check)
// or, for a Gaussian process with inducing inputs, its FITC approximation.
func (c *compiler) processPrior(a *args, l *graph.Latent, kind graph.PriorKind, k int, nu float64) graph.Prior {
	kv, _ := a.val(k)
	if kv.k != kKernel {
		c.fail(a.at(k), "%s: `kernel` must be a kernel such as se(1, 1), got %s", a.b.Name, kv.describe())
	}
	xv, _ := a.val(k + 1)
	if xv.k != kNum || len(xv.shape) == 0 || len(xv.shape) > 2 {
		c.fail(a.at(k+1), "%s: X must be a matrix of inputs (one row per element), got %s", a.b.Name, xv.describe())
	}
	n := l.Size()
	if len(l.Shape) > 1 || xv.shape[0] != n {
		c.fail(a.at(k+1), "%s: X has %d rows but latent `%s` has %d elements", a.b.Name, xv.shape[0], l.Name, n)
	}
	cols := 1
	if len(xv.shape) == 2 {
		cols = xv.shape[1]
	}
	if n == 0 || cols == 0 {
		c.fail(a.at(k+1), "%s: X is %s; a %s prior needs at least one input row and column", a.b.Name, xv.describe(), a.b.Name)
	}
	c.kernelDims(a.at(k), kv.kern, cols)
	X := mat.NewDense(n, cols, append([]float64(nil), xv.num...))
	p := graph.Prior{Kind: kind, Nu: nu, Mean: make([]float64, n), Kernel: *kv.kern, X: X}
	if kind.Family() == graph.Gaussian {
		p.FITC = c.fitcPrior(a, kind, n, cols)
	}
	if !c.check && p.FITC == nil {
		p.Cov = kv.kern.Gram(X)
	}
	return p
}

// buildBlocks makes the FactorGraph of a model of independent Gaussian
// blocks: a Block of every real latent, holding its sites, mini-batch
// potentials and libsvm streams; each needs a prior. A model with a
// factor-graph construct (a conditional, a prior with latent parameters,
// a site over several latents or with a constant) builds a general one
// (buildFactorGraph, factorgraph_build.go).
func (c *compiler) buildBlocks() {
	if c.net != nil {
		c.buildNet()
		return
	}
	ok := true
	for li := range c.m.Graph.Latents {
		ok = c.checkCompact(li) && ok
	}
	if !ok {
		return
	}
	if c.fg.at.IsValid() {
		c.buildFactorGraph()
		return
	}
	c.expandProjections()
	g := c.m.Graph
	fg := newFactorGraph(g, &c.offGraph)
	for li := range g.Latents {
		l := &g.Latents[li]
		if l.Domain != graph.Real {
			continue
		}
		p, ok := c.prior[li]
		if !ok && c.priorTried[li] {
			continue // the prior failed to compile; that error is reported
		}
		if !ok {
			c.errAt(l.Pos, l.Pos, "real latent `%s` has no prior; add one, e.g. latent %s: real[...] ~ normal(0, 1)", l.Name, l.Name)
			continue
		}
		if p.prior.FITC != nil {
			c.checkFITCSites(&graph.Block{Name: l.Name, Sites: c.sites[li]})
		}
		if len(c.streams[li]) == 0 && !c.densePrior(&p.prior, l.Name, p.pos) {
			continue
		}
		fg.Dense = append(fg.Dense, &graph.Block{Latent: li, Name: l.Name, First: fg.First[li], N: l.Size(), Prior: p.prior,
			Sites: c.sites[li], Batches: c.batches[li], Streams: c.streams[li], Factor: p.factor, Pos: l.Pos, PriorPos: p.pos})
	}
	if len(fg.Dense) > 0 {
		c.m.FactorGraph = fg
	}
}

func sizeOf(shape []int) float64 {
	n := 1.0
	for _, d := range shape {
		n *= float64(d)
	}
	return n
}
