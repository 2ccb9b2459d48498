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
	"github.com/fg-infer/fg/stdlib/ad"
)

// factorStmt compiles `factor POTENTIAL(args)`.
func (c *compiler) factorStmt(s *ast.FactorStmt) {
	if c.net != nil {
		c.netRefuse(s, "factor statements")
	}
	name := s.Call.FunName()
	b, err := stdlib.Find(stdlib.Potential, name)
	if err != nil {
		if bs := stdlib.LookupAny(name); len(bs) > 0 {
			c.fail(s.Call.Fun, "%s", misuse(bs[0]))
		}
		c.fail(s.Call.Fun, "%v", err)
	}
	a := c.bind(s.Call, b)
	k, _ := factor.Lookup(name, factor.Potential) // every potential builtin is a factor kind
	switch k.(type) {
	case factor.Ising:
		c.isingFactor(s, a)
	case factor.Field:
		c.fieldFactor(s, a)
	case factor.Table:
		c.tableFactor(s, a)
	case factor.Exp:
		c.expFactor(s, a)
	case factor.Factors:
		c.libdaiFactors(s, a)
	}
}

// libdaiFactors copies every factor of a libdai() graph onto the elements
// of a discrete latent vector: G's variable k (ascending libDAI label) is
// x[k]. Tables keep libDAI order, so a spin latent maps state 0 to −1.
func (c *compiler) libdaiFactors(s *ast.FactorStmt, a *args) {
	gv, _ := a.val(0)
	if gv.k != kGraph || gv.g.fg == nil {
		c.fail(a.at(0), "factors: expected a libdai() graph, got %s", gv.describe())
	}
	xv, _ := a.val(1)
	fg := gv.g.fg
	if xv.k != kSym || xv.sym.exprs || len(xv.sym.ids) != len(fg.Vars) {
		c.fail(a.at(1), "factors: expected a discrete latent vector of %d elements, got %s", len(fg.Vars), xv.describe())
	}
	for k, id := range xv.sym.ids {
		v := c.m.Graph.Vars[id]
		if !v.Domain.Discrete() || v.Card != fg.Vars[k].Card {
			c.fail(a.at(1), "factors: `%s` has %d states but libDAI variable %s has %d",
				c.m.Graph.VarName(id), v.Card, fg.Latents[fg.Vars[k].Latent].Name, fg.Vars[k].Card)
		}
	}
	for _, f := range fg.Factors() {
		vars := make([]int, len(f.Vars))
		names := make([]string, len(f.Vars))
		for j, v := range f.Vars {
			vars[j] = xv.sym.ids[v]
			names[j] = c.m.Graph.VarName(vars[j])
		}
		c.addFactor(s, graph.Factor{Kind: factor.Table{}, Vars: vars, Table: append([]float64(nil), f.Table...),
			Label: "table(" + strings.Join(names, ", ") + ")", Pos: s.Pos()})
	}
}

// discreteVar returns the graph variable of an argument that must be one
// element of a discrete latent (of domain want, if not −1).
func (c *compiler) discreteVar(at ast.Node, v val, pot string, spinOnly bool) int {
	if v.k != kSym || v.sym.exprs || len(v.sym.ids) != 1 {
		c.fail(at, "%s: expected one element of a discrete latent, e.g. x[i], got %s", pot, v.describe())
	}
	id := v.sym.ids[0]
	d := c.m.Graph.Vars[id].Domain
	if spinOnly && d != graph.Spin {
		c.fail(at, "%s needs spin variables; `%s` is %s", pot, c.m.Graph.VarName(id), d)
	}
	if !d.Discrete() {
		c.fail(at, "%s needs a discrete variable; `%s` is %s", pot, c.m.Graph.VarName(id), d)
	}
	return id
}

// isingFactor is exp(J·xi·xj) on spins, stored as its coupling J alone
// (graph.AddLogLinear: its table, in libDAI order [e^J, e^−J, e^−J, e^J],
// is made when read), so that a coupling per edge costs what a shared one
// does.
func (c *compiler) isingFactor(s *ast.FactorStmt, a *args) {
	xi, _ := a.val(0)
	xj, _ := a.val(1)
	name := a.b.Name
	i := c.discreteVar(a.at(0), xi, name, true)
	j := c.discreteVar(a.at(1), xj, name, true)
	if i == j {
		c.fail(s.Call, "%s: both arguments are `%s`", name, c.m.Graph.VarName(i))
	}
	c.logLinear(s, factor.Ising{}, "J", factor.Ising{J: a.num(2, 0)}, i, j)
}

// fieldFactor is exp(h·x) on a spin ([e^−h, e^h]), stored as h alone.
func (c *compiler) fieldFactor(s *ast.FactorStmt, a *args) {
	xv, _ := a.val(0)
	name := a.b.Name
	i := c.discreteVar(a.at(0), xv, name, true)
	c.logLinear(s, factor.Field{}, "h", factor.Field{H: a.num(1, 0)}, i)
}

// logLinear adds the potential f = exp(θ·φ) over vars as its parameter
// (graph.AddLogLinear; the label is left to graph.FactorLabel), after
// checkTable's checks, which need the table only when some θ·φ_k is
// large enough (|θ·φ_k| ≥ 700) for an entry to overflow or vanish.
func (c *compiler) logLinear(s *ast.FactorStmt, kind graph.Kind, pname string, f factor.LogLinear, vars ...int) {
	theta, stat := f.Param(), f.Stat()
	for _, x := range stat {
		if v := theta * x; !(v > -700 && v < 700) {
			c.checkTable(s, f.Table())
			break
		}
	}
	c.countFactor(s)
	c.m.Graph.AddLogLinear(kind, s.Pos(), pname, theta, stat, vars...)
}

// tableFactor is table(x1, ..., xk, T) with T in libDAI order.
func (c *compiler) tableFactor(s *ast.FactorStmt, a *args) {
	exprs := []ast.Expr{a.expr(0)}
	for _, k := range a.extra {
		exprs = append(exprs, s.Call.Args[k])
	}
	var vars []int
	var names []string
	size := 1.0
	seen := map[int]bool{}
	for _, e := range exprs {
		id := c.discreteVar(e, c.eval(e), a.b.Name, false)
		if seen[id] {
			c.fail(e, "%s: `%s` appears twice", a.b.Name, c.m.Graph.VarName(id))
		}
		seen[id] = true
		vars = append(vars, id)
		names = append(names, c.m.Graph.VarName(id))
		size *= float64(c.m.Graph.Vars[id].Card)
	}
	if size > graph.MaxTableEntries {
		c.fail(s.Call, "table: the variables have %.0f joint states; the limit for one table is %d", size, graph.MaxTableEntries)
	}
	tv, _ := a.val(1)
	if tv.k != kNum || len(tv.num) != int(size) {
		c.fail(a.at(1), "table: T must hold %.0f entries (the product of the cardinalities), got %s", size, tv.describe())
	}
	f, err := factor.NewTable(tv.num, int(size))
	if err != nil {
		c.fail(a.at(1), "%v", err)
	}
	t := f.Table()
	c.checkTable(s, t)
	c.addFactor(s, graph.Factor{Kind: factor.Table{}, Vars: vars, Table: t,
		Label: a.b.Name + "(" + strings.Join(names, ", ") + ")", Pos: s.Pos()})
}

// checkTable rejects tables that overflow or are all zero.
func (c *compiler) checkTable(s *ast.FactorStmt, t []float64) {
	any := false
	for _, x := range t {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			c.fail(s.Call, "potential overflows (an entry is %v); reduce the coupling", x)
		}
		any = any || x > 0
	}
	if !any {
		c.fail(s.Call, "potential is zero everywhere")
	}
}

// lossFastPath enables lossBatch in expFactor (tests turn it off to compare
// the two paths).
var lossFastPath = true

// expFactor is a user potential exp(EXPR) of one real latent: a mini-batch
// factor whose log-potential, gradient and diagonal Hessian come from
// forward-mode differentiation (stdlib/ad), except for the loss mini-batch
// shape exp(-beta * sum(LOSS(y[b] * (X[b] @ w)))), which becomes a
// stdlib/loss.Batch (lossBatch).
func (c *compiler) expFactor(s *ast.FactorStmt, a *args) {
	e := a.expr(0)
	v := c.eval(e)
	if v.k != kSym {
		c.fail(e, "exp(...) must depend on a latent; a constant potential changes nothing")
	}
	if v.sym.lat < 0 {
		c.fail(e, "exp(...) depends on the latents %s; a potential exp(...) depends on one latent", joinQuoted(c.latentNames(v)))
	}
	l := &c.m.Graph.Latents[v.sym.lat]
	if l.Domain != graph.Real {
		c.fail(e, "exp(...) of the discrete latent `%s` is not supported; use table(...)", l.Name)
	}
	if v.size() != 1 {
		c.fail(e, "exp(...) needs a scalar log-potential, got %s; sum it, e.g. exp(-sum(hinge(m)))", v.describe())
	}
	var pot graph.Potential
	if b := c.lossBatch(e, l); b != nil && lossFastPath {
		pot = b
	} else {
		f := c.symFn(e, v)
		pot = ad.Potential{D: l.Size(), F: func(w []ad.Jet) ad.Jet { return f(w)[0] }}
	}
	if x := pot.LogF(make([]float64, l.Size())); math.IsNaN(x) {
		c.fail(e, "exp(...) is NaN at %s = 0", l.Name)
	}
	label := "exp(" + strings.Join(c.plateBindings(), ", ") + ")"
	c.countFactor(s)
	fi := c.addOffGraph() // held by its block only (Block.Batches)
	c.batches[v.sym.lat] = append(c.batches[v.sym.lat], graph.BatchFactor{F: pot, Factor: fi, Label: label, Pos: s.Pos()})
}

// plateBindings renders the current plate variables as name=value
// (an index vector as lo:hi when contiguous), plate by plate, each
// plate's sorted by name (distinct: analysis refuses a name a plate
// declares twice).
func (c *compiler) plateBindings() []string {
	var out []string
	for i := 0; i < len(c.locals); {
		j := i
		for j < len(c.locals) && c.locals[j].sym.plate == c.locals[i].sym.plate {
			j++
		}
		vars := slices.Clone(c.locals[i:j])
		slices.SortFunc(vars, func(a, b local) int { return strings.Compare(a.sym.name, b.sym.name) })
		for _, l := range vars {
			out = append(out, l.sym.name+"="+renderIndex(l.b.v))
		}
		i = j
	}
	return out
}

func renderIndex(v val) string {
	if len(v.shape) == 0 {
		return fmtNum(v.num[0])
	}
	if len(v.num) > 0 && v.num[len(v.num)-1]-v.num[0] == float64(len(v.num)-1) {
		return fmt.Sprintf("%s:%s", fmtNum(v.num[0]), fmtNum(v.num[len(v.num)-1]+1))
	}
	return fmt.Sprint(v.num)
}
