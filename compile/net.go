package compile

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// netState is the compile state of a model lowered to the typed factor
// graph (graph.Net): a model with a Beta, Gamma, inverse-Gamma or
// Dirichlet latent, a likelihood whose parameter is such a latent, or a
// discrete chain (isNetModel decides before the statements compile).
// While the statements compile, factors are recorded with edges over
// graph variables (Graph.Vars ids); buildNet then makes the Net's
// variables — one per element, one per row of a Dirichlet latent, each
// with the family its prior gives it — maps the edges onto them and
// checks that every edge meets a family its kind has a rule for.
type netState struct {
	// prior holds, per graph variable, the family its prior or
	// conditional gives it and where that statement is.
	prior map[int]netPrior
	// row maps each element of a Dirichlet latent to the first graph
	// variable of its row (the last dimension).
	row     map[int]int
	factors []netDecl
	// params caches each call's arguments as edges (a plate's statement
	// lowers the same call at every iteration).
	params map[*ast.CallExpr][]netParam
	// branches holds the last branches of each selected argument, shared
	// by the factors whose branches are the same (shareBranches).
	branches map[netArgKey][]graph.Edge
	// terms counts the variables on the factors' edges (netBudget).
	terms int
	// tried and failed mark the latents some prior statement was
	// attempted on and failed on: a failed one explains a missing prior,
	// which is then not reported.
	tried, failed map[int]bool
}

// netArgKey is argument j of a call.
type netArgKey struct {
	call *ast.CallExpr
	j    int
}

// netPrior is the family a prior or conditional gives a graph variable.
type netPrior struct {
	fam graph.Family
	pos ast.Pos
}

// netDecl is one factor being lowered: its edges name graph variables
// (buildNet maps them to Net variables); at holds, per edge, the
// expression blamed when the edge meets a family no rule connects.
type netDecl struct {
	f    graph.NetFactor
	kind factor.NetKind
	at   []ast.Node
}

func newNetState() *netState {
	return &netState{prior: map[int]netPrior{}, row: map[int]int{}, params: map[*ast.CallExpr][]netParam{},
		branches: map[netArgKey][]graph.Edge{},
		tried:    map[int]bool{}, failed: map[int]bool{}}
}

// netTilde compiles `LHS ~ DIST(args)` in a Net model: a prior or a
// conditional when LHS is a latent or elements of one, a likelihood when
// it is data.
func (c *compiler) netTilde(s *ast.TildeStmt) {
	call, ok := s.Dist.(*ast.CallExpr)
	if !ok {
		c.fail(s.Dist, "expected a distribution call after ~, e.g. bernoulli(p)")
	}
	lhs := c.eval(s.LHS)
	switch lhs.k {
	case kSym:
		sy := lhs.sym
		if sy.lat < 0 || sy.exprs || sy.ids == nil {
			c.fail(s.LHS, "the left side of ~ must be a latent or elements of one (x, x[t], x[0:3]), not the expression `%s`", c.text(s.LHS))
		}
		c.netPrior(s.LHS, sy.lat, sy.ids, call)
	case kNum, kBool:
		c.netObserve(s, lhs, call)
	default:
		c.fail(s.LHS, "the left side of ~ must be data or a latent, got %s", lhs.describe())
	}
}

// netPrior compiles a prior or conditional `DIST(args)` on the elements
// ids of latent lat (all of them for `latent x: T ~ DIST(...)` and `x ~
// DIST(...)`): one factor per element, or per row for dirichlet.
func (c *compiler) netPrior(lhsAt ast.Node, lat int, ids []int, call *ast.CallExpr) {
	c.net.tried[lat] = true
	defer func() {
		if r := recover(); r != nil {
			c.net.failed[lat] = true
			panic(r)
		}
	}()
	l := &c.m.Graph.Latents[lat]
	b := c.distribution(call)
	k, fam, ok := netPriorKind(b.Name)
	if !ok {
		c.fail(call.Fun, "%s", netPriorList(b.Name, l))
	}
	if d := familyDomain(fam); l.Domain != d {
		c.fail(call.Fun, "%s is a prior for %s latents, but `%s` is %s; %s", b.Name, d, l.Name, l.Domain, netPriorList("", l))
	}
	targets := ids
	K := 0
	switch fam {
	case graph.Dirichlet:
		targets = c.dirichletRows(lhsAt, l, ids)
		K = c.lastDim(l)
	case graph.Discrete:
		K = l.Card
	}
	for _, id := range targets {
		if old, dup := c.net.prior[id]; dup {
			c.fail(lhsAt, "`%s` already has a prior (at %s)", c.m.Graph.VarName(id), c.fset.Position(old.pos))
		}
	}
	a := c.bind(call, b)
	edges, args := c.netEdges(a, c.netParamsOf(call, k, b), len(targets), K)
	c.lf.netSlot(c, call, b, k, len(targets), K, true, args)
	for e, id := range targets {
		name := c.m.Graph.VarName(id)
		if fam == graph.Dirichlet {
			name = rowName(l, (id-l.First)/K)
		}
		es := edges(e)
		for _, ed := range es {
			if ed.Selected && ed.Sel == id {
				c.fail(call, "`%s` selects the parameters of its own prior", name)
			}
		}
		f := graph.NetFactor{Kind: k, Edges: append([]graph.Edge{graph.VarEdge("x", id)}, es...),
			Label: fmt.Sprintf("%s(%s)", b.Name, name), Pos: call.Pos()}
		c.addNetFactor(call, netDecl{f: f, kind: k, at: append([]ast.Node{lhsAt}, argNodes(args)...)}, args, e, nil)
	}
	for _, id := range targets {
		c.net.prior[id] = netPrior{fam: fam, pos: call.Pos()}
		if fam == graph.Dirichlet {
			for j := 0; j < K; j++ {
				c.net.row[id+j] = id
			}
		}
	}
}

// netObserve compiles a likelihood `y ~ DIST(args)` of data y in a Net
// model: one factor per element of y, the arguments broadcasting from
// scalars.
func (c *compiler) netObserve(s *ast.TildeStmt, y val, call *ast.CallExpr) {
	b := c.distribution(call)
	k, ok := netLikelihoodKind(b.Name)
	if !ok {
		c.fail(call.Fun, "in %s, a likelihood is one of %s; `%s` is not", netModel, strings.Join(netNames(true, 0), ", "), b.Name)
	}
	n := y.size()
	a := c.bind(call, b)
	edges, args := c.netEdges(a, c.netParamsOf(call, k, b), n, 0)
	c.lf.netSlot(c, call, b, k, n, 0, false, args)
	if !c.netMentionsLatent(a) {
		c.fail(call, "`%s` depends on no latent: a likelihood in this model has a latent parameter (p ~ beta(1, 1) with y ~ bernoulli(p))", c.text(call))
	}
	at := argNodes(args)
	for e := 0; e < n; e++ {
		f := graph.NetFactor{Kind: k, Edges: edges(e), Observed: true, Y: []float64{y.num[e]},
			Label: fmt.Sprintf("%s(%s)", b.Name, c.elemName(s.LHS, y, e)), Pos: s.Pos()}
		c.addNetFactor(s, netDecl{f: f, kind: k, at: at}, args, e, &netObs{lhs: s.LHS, y: y})
	}
}

// netObs is the observation of a likelihood factor, for messages.
type netObs struct {
	lhs ast.Expr
	y   val
}

// netParamsOf returns the arguments of call (kind k, builtin b) as edges.
func (c *compiler) netParamsOf(call *ast.CallExpr, k factor.NetKind, b *stdlib.Builtin) []netParam {
	ps, ok := c.net.params[call]
	if !ok {
		ps = netParams(k, b)
		c.net.params[call] = ps
	}
	return ps
}

// netMentionsLatent reports whether any argument of a names a latent.
func (c *compiler) netMentionsLatent(a *args) bool {
	for i := range a.b.Params {
		if e := a.expr(i); e != nil && c.mentionsLatent(e) {
			return true
		}
	}
	return false
}

// addNetFactor validates a factor's data — its data edges and its
// observation, by its kind's CheckNet with each variable assumed of a
// family its edge takes (buildNet checks the families) — and records it,
// counting it against the model's limit. A bad value fails the statement
// at the argument or observation it came from: element e of the
// statement, args the arguments its edges came from.
func (c *compiler) addNetFactor(at ast.Node, d netDecl, args []*netArg, e int, obs *netObs) {
	c.countFactor(at)
	c.netBudget(at, d.f.Edges)
	if err := d.kind.CheckNet(&d.f, assumedFamilies(d.kind, &d.f)); err != nil {
		c.netDataError(d, err, args, e, obs)
	}
	c.learnEdges(d, args)
	c.net.factors = append(c.net.factors, d)
}

// learnEdges checks the data edges that a learn statement moves, by
// probing the kind's CheckNet with the other edges as given. A scalar
// edge that the kind rejects just above and just below its value takes
// whole numbers only (binomial's `n`): learning, which moves a param
// continuously, is refused at the argument. A learned param passed bare
// as an edge the kind rejects at 0 (a beta pseudo-count, a gamma shape or
// rate, a known variance; not a mean) is recorded as positive: learning
// optimises its logarithm.
func (c *compiler) learnEdges(d netDecl, args []*netArg) {
	if c.lf == nil {
		return
	}
	probe := func(i int, x []float64) bool {
		f := d.f
		f.Edges = slices.Clone(d.f.Edges)
		f.Edges[i].Value = x
		return d.kind.CheckNet(&f, assumedFamilies(d.kind, &f)) == nil
	}
	for _, ar := range args {
		if !ar.learned {
			continue
		}
		for i, ed := range d.f.Edges {
			if ed.Name != ar.p.edge || !ed.IsData() {
				continue
			}
			if v := ed.Value; len(v) == 1 {
				h := 1e-6 * max(1, math.Abs(v[0]))
				if !probe(i, []float64{v[0] + h}) && !probe(i, []float64{v[0] - h}) {
					c.fail(ar.e, "learn: `%s` reads a learned param, but `%s` of %s takes whole numbers only; learning moves a param continuously", c.text(ar.e), ar.p.name, d.kind.Name())
				}
			}
			if id, ok := unparen(ar.e).(*ast.Ident); ok && c.lf.learned[id.Name] && !probe(i, make([]float64, len(ed.Value))) {
				c.notePositive(ar.e)
			}
		}
	}
}

// The memory of a Net is bounded like the graph's factors (the factor
// budget, graph.FactorBudget): a factor with its edges holds about
// netFactorBytes (measured on BenchmarkCompileHMM's chain: 600 bytes),
// and every term of an affine edge (dot(X[i], w) over a thousand weights)
// netTermBytes more.
const (
	netFactorBytes = 640
	netTermBytes   = 16
)

// netBudget counts a factor with edges against the budget, failing at at
// when the Net would exceed it.
func (c *compiler) netBudget(at ast.Node, edges []graph.Edge) {
	for _, e := range edges {
		c.net.terms += len(e.Vars)
		if e.Selected {
			for _, b := range e.Branches {
				c.net.terms += len(b.Vars)
			}
		}
	}
	bytes := float64(len(c.net.factors)+1)*netFactorBytes + float64(c.net.terms)*netTermBytes
	if bytes > factorBudget {
		c.fail(at, "the typed factor graph would hold more than %d MiB: %d factors with %d terms in their edges (about %d bytes a factor and %d a term)",
			factorBudget>>20, len(c.net.factors)+1, c.net.terms, netFactorBytes, netTermBytes)
	}
}

// lastDim is the length of the last dimension of a latent (its number of
// elements when it is a scalar).
func (c *compiler) lastDim(l *graph.Latent) int {
	if len(l.Shape) == 0 {
		return 1
	}
	return l.Shape[len(l.Shape)-1]
}

// dirichletRows checks that ids are whole rows (the last dimension) of a
// Dirichlet latent and returns the first graph variable of each.
func (c *compiler) dirichletRows(at ast.Node, l *graph.Latent, ids []int) []int {
	if len(l.Shape) == 0 {
		c.fail(at, "dirichlet is a prior on a vector: declare `%s` as real[K] (or real[R, K] for R rows), not a scalar", l.Name)
	}
	K := c.lastDim(l)
	if K < 2 {
		c.fail(at, "dirichlet needs at least 2 components; the last dimension of `%s` is %d", l.Name, K)
	}
	if len(ids)%K != 0 {
		c.fail(at, "dirichlet is a prior on whole rows of `%s` (its last dimension, %d elements); `%s` selects %d elements", l.Name, K, c.text(at), len(ids))
	}
	rows := make([]int, 0, len(ids)/K)
	for r := 0; r < len(ids); r += K {
		first := ids[r]
		ok := (first-l.First)%K == 0
		for j := 1; ok && j < K; j++ {
			ok = ids[r+j] == first+j
		}
		if !ok {
			c.fail(at, "dirichlet is a prior on whole rows of `%s` (its last dimension, %d elements); `%s` does not select whole rows", l.Name, K, c.text(at))
		}
		rows = append(rows, first)
	}
	return rows
}

// rowName names row r of a latent over its leading dimensions: w for a
// vector, A[1] for a matrix, conf[0, 2] for a three-dimensional latent.
func rowName(l *graph.Latent, r int) string {
	if len(l.Shape) <= 1 {
		return l.Name
	}
	return l.Name + "[" + unflat(l.Shape[:len(l.Shape)-1], r) + "]"
}
