package compile

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/lang/parser"
	"github.com/fg-infer/fg/stdlib"
)

// The size limits are a memory budget, not a ceiling on useful models:
// maxFactors is the graph's factor budget (graph.MaxFactors:
// graph.FactorBudget spent at graph.FactorBytes a factor, the same budget
// the libDAI reader applies), enough for a 1000×1000 Ising grid (3·10⁶
// factors) and 2.7 times more; maxIterations bounds the plate iterations
// of a model (nested plates multiply), which cost time even when they add
// no factor; maxLatent bounds the elements of one latent (each is a graph
// variable).
const (
	factorBudget  = graph.FactorBudget
	factorBytes   = graph.FactorBytes
	maxFactors    = graph.MaxFactors
	maxLatent     = 10_000_000
	maxIterations = 2 * maxFactors
)

// modelStmt compiles one data, param, latent, ~, factor or for statement.
func (c *compiler) modelStmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.DataStmt:
		c.dataStmt(s)
	case *ast.ParamStmt:
		c.paramStmt(s)
	case *ast.LatentStmt:
		c.latentStmt(s)
	case *ast.TildeStmt, *ast.FactorStmt, *ast.ForStmt:
		c.plateStmt(s)
	default:
		c.fail(s, "unexpected statement")
	}
}

func (c *compiler) dataStmt(s *ast.DataStmt) {
	c.curData = s.Name.Name
	defer func() { c.curData = "" }()
	v := c.eval(s.Value)
	switch v.k {
	case kSym:
		c.fail(s.Value, "data `%s` depends on a latent; data must be known before inference", s.Name.Name)
	case kKernel:
		c.fail(s.Value, "data `%s` is a kernel; use a param or write the kernel in the prior", s.Name.Name)
	case kNum:
		c.finite(s.Value, "data "+s.Name.Name, v)
	}
	switch {
	case s.Type != nil && v.k == kSparse:
		c.checkSparseType(s, v)
	case s.Type != nil:
		v = c.checkDataType(s, v)
	}
	if c.declare(s.Name, &binding{kind: bData, v: v}) {
		c.m.Data[s.Name.Name] = v.export(s.Pos())
	}
}

// checkDataType checks a data value against its declared type and shape.
func (c *compiler) checkDataType(s *ast.DataStmt, v val) val {
	dom, card, shape := c.typeOf(s.Type)
	if v.k == kBool && (dom == graph.Bool || dom == graph.Int || dom == graph.Real) {
		v.k = kNum
	}
	if v.k != kNum {
		c.fail(s.Value, "data `%s`: declared %s but the value is a %s", s.Name.Name, c.text(s.Type), v.describe())
	}
	if !sameShape(shape, v.shape) {
		c.fail(s.Value, "data `%s`: declared %s (shape %s) but the value is a %s", s.Name.Name, c.text(s.Type), shapeStr(shape), v.describe())
	}
	for i, x := range v.num {
		if ok, want := inDomain(x, dom, card); !ok {
			c.fail(s.Value, "%s", c.badElement(s.Name.Name, v, i, want))
		}
	}
	v.dom = dom
	return v
}

// checkSparseType checks the annotation of libsvm data against what the
// file holds: libsvm(path) is real[rows, cols], libsvm_labels(path)
// spin[rows] (0/1 labels read as -1/+1).
func (c *compiler) checkSparseType(s *ast.DataStmt, v val) {
	dom, _, shape := c.typeOf(s.Type)
	want, what := graph.Real, "libsvm(path) reads real"
	if v.sparse.labels {
		want, what = graph.Spin, "libsvm_labels(path) reads spin"
	}
	if dom != want || !sameShape(shape, v.shape) {
		c.fail(s.Type, "data `%s`: declared %s but %s%s from %s", s.Name.Name, c.text(s.Type), what, shapeStr(v.shape), v.sparse.path)
	}
}

// inDomain reports whether x is a value of the domain, and names the domain.
func inDomain(x float64, d graph.Domain, card int) (bool, string) {
	switch d {
	case graph.Spin:
		return x == -1 || x == 1, "a spin value (-1/+1)"
	case graph.Bool:
		return x == 0 || x == 1, "a bool value (0/1, false/true)"
	case graph.Int:
		return x == math.Trunc(x), "an integer"
	case graph.Cat:
		return x == math.Trunc(x) && x >= 0 && x < float64(card), fmt.Sprintf("a category 0..%d", card-1)
	}
	return true, "real"
}

// badElement describes element i of v not being in its domain, naming the
// csv file and line when v came from one.
func (c *compiler) badElement(name string, v val, i int, want string) string {
	where := name
	if len(v.shape) > 0 {
		where = fmt.Sprintf("%s[%s]", name, unflat(v.shape, i))
	}
	return fmt.Sprintf("%s: label %s is not %s", where, fmtNum(v.num[i]), want) + csvLine(v, i)
}

// badObservation is badElement for observation i of the left side lhs of
// a likelihood, named as the unrolled statement names it inside a plate
// compiled as one vector statement (y[3], not y[t][3]).
func (c *compiler) badObservation(lhs ast.Expr, y val, i int, want string) string {
	if c.vec != nil && y.size() > 1 {
		return c.badElement(c.vecElement(lhs, i), val{k: kNum, num: y.num[i : i+1]}, 0, want)
	}
	return c.badElement(c.render(lhs), y, i, want)
}

// csvLine is " at FILE:LINE" for element i of v when v came from a csv
// file, else "".
func csvLine(v val, i int) string {
	if !v.fromFile() {
		return ""
	}
	row := i
	if len(v.shape) == 2 {
		row = i / v.shape[1]
	}
	return fmt.Sprintf(" at %s:%d", v.src.path, v.src.firstRow+row)
}

// unflat renders the multi-index of flat offset i as "r, c".
func unflat(shape []int, i int) string {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
	s := ""
	for d, x := range idx {
		if d > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}

// typeOf resolves a declared type: base domain, cardinality and shape.
func (c *compiler) typeOf(t *ast.TypeExpr) (graph.Domain, int, []int) {
	var d graph.Domain
	card := 0
	switch t.Base.Name {
	case "real":
		d = graph.Real
	case "spin":
		d, card = graph.Spin, 2
	case "bool":
		d, card = graph.Bool, 2
	case "int":
		d = graph.Int
	case "cat":
		d = graph.Cat
		if t.CatK == nil {
			c.fail(t, "cat needs its number of categories: cat(K)")
		}
		card = c.intOf(t.CatK, c.eval(t.CatK), "cat(K)")
		if card < 1 {
			c.fail(t.CatK, "cat(K) needs K ≥ 1, got %d", card)
		}
		if card > graph.MaxTableEntries {
			c.fail(t.CatK, "cat(K) with K = %d: the limit is %d states (one message or table must fit in memory)", card, graph.MaxTableEntries)
		}
	default:
		msg := fmt.Sprintf("unknown type `%s`", t.Base.Name)
		msg += didYouMean(t.Base.Name, []string{"real", "spin", "bool", "int", "cat"})
		c.fail(t.Base, "%s", msg)
	}
	if t.CatK != nil && t.Base.Name != "cat" {
		c.fail(t.CatK, "only cat takes a (K)")
	}
	var shape []int
	size := 1.0
	for _, e := range t.Dims {
		n := c.intOf(e, c.eval(e), "a dimension")
		if n < 0 {
			c.fail(e, "a dimension must be ≥ 0, got %d", n)
		}
		size *= float64(n)
		shape = append(shape, n)
	}
	if size > stdlib.MaxElements {
		c.fail(t, "declared size %s has %g elements; the limit is %g", shapeStr(shape), size, float64(stdlib.MaxElements))
	}
	return d, card, shape
}

func (c *compiler) paramStmt(s *ast.ParamStmt) {
	e := s.Value
	if x, ok := c.opt.values[s.Name.Name]; ok {
		e = &ast.NumberLit{ValuePos: s.Value.Pos(), Text: fmtNum(x), Value: x}
	} else if txt, ok := c.opt.Set[s.Name.Name]; ok {
		if lit, isStr := s.Value.(*ast.StringLit); isStr && !strings.HasPrefix(strings.TrimSpace(txt), `"`) {
			// A string param takes an unquoted --set value literally:
			// --set dir=../data is dir = "../data".
			v := val{k: kStr, str: txt}
			if c.declare(s.Name, &binding{kind: bParam, v: v}) {
				c.m.Params[s.Name.Name] = v.export(lit.Pos())
			}
			return
		}
		x, err := parser.ParseExprFrom(c.fset, "", txt)
		if err != nil {
			c.fail(s.Name, "%s: %v", c.override("set", s.Name.Name, txt), err)
		}
		c.sources[""] = []byte(txt)
		c.an.resolveBefore(x, s.Name)
		e = x
	}
	n := len(c.errs)
	var v *val
	touched := c.lf.inSlot(func() { v = c.evalSafe(e) })
	if len(c.errs) > n || v == nil {
		if e != s.Value {
			last := c.errs[len(c.errs)-1]
			last.Msg = fmt.Sprintf("%s: %s", c.override("set", s.Name.Name, c.opt.Set[s.Name.Name]), last.Msg)
			last.Pos, last.End = c.fset.Position(s.Name.Pos()), c.fset.Position(s.Name.End())
		}
		panic(abort{})
	}
	switch v.k {
	case kSym:
		c.fail(s.Value, "param `%s` depends on a latent", s.Name.Name)
	case kNum:
		c.finite(s.Value, "param "+s.Name.Name, *v)
	}
	if c.declare(s.Name, &binding{kind: bParam, v: *v}) {
		c.m.Params[s.Name.Name] = v.export(s.Pos())
		c.learnParam(s.Name, e, touched)
	}
}

// shorten cuts a long --set value for an error message.
func shorten(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	for i := range s {
		if i >= max {
			return s[:i] + "…"
		}
	}
	return s
}

// evalSafe evaluates e, returning nil after an error instead of aborting.
func (c *compiler) evalSafe(e ast.Expr) (out *val) {
	c.guard(func() {
		v := c.eval(e)
		out = &v
	})
	return out
}

// checkSetUsed reports --set and --data names that match no param or csv
// data item, in the order of their names. There is no declaration to
// point at, so the error is on the file and lists what exists.
func (c *compiler) checkSetUsed(f *ast.File) {
	var csvs []string
	params := c.an.params()
	for n := range c.dataUsed {
		csvs = append(csvs, n)
	}
	file := ast.Position{Filename: c.filename(f.Pos())}
	for _, name := range slices.Sorted(maps.Keys(c.opt.Set)) {
		if !c.an.declaresParam(name) {
			c.errs.Add(file, file, "%s", unknownOverride(c.override("set", name, ""), name, "param", params))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.opt.Data)) {
		if !c.dataUsed[name] {
			c.errs.Add(file, file, "%s", unknownOverride(c.override("data", name, ""), name, "csv data item", csvs))
		}
	}
}

// override renders an override as the user gave it (Options.Syntax), for
// messages: fg run's flag (--set eps=0.1, --data X=x.csv), the Go call
// (Set("eps", "0.1"), SetData("X", "x.csv")) or the REPL command
// (:set eps=0.1); an empty value names the override alone (--set eps,
// Set("eps", …), :set eps).
func (c *compiler) override(kind, name, value string) string {
	switch c.opt.Syntax {
	case REPLSyntax:
		if value == "" {
			return fmt.Sprintf(":%s %s", kind, name)
		}
		return fmt.Sprintf(":%s %s=%s", kind, name, shorten(value))
	case GoSyntax:
		call := map[string]string{"set": "Set", "data": "SetData"}[kind]
		if value == "" {
			return fmt.Sprintf("%s(%q, …)", call, name)
		}
		return fmt.Sprintf("%s(%q, %q)", call, name, shorten(value))
	}
	if value == "" {
		return fmt.Sprintf("--%s %s", kind, name)
	}
	return fmt.Sprintf("--%s %s=%s", kind, name, shorten(value))
}

// unknownOverride says that the override (as override renders it) of name
// matches no declaration of kind and lists those that exist.
func unknownOverride(override, name, kind string, have []string) string {
	sortStrings(have) // sorted first, so that ties in the suggestion are deterministic
	msg := fmt.Sprintf("%s: the model has no %s `%s`", override, kind, name)
	msg += didYouMean(name, have)
	if len(have) == 0 {
		return msg + " (it has none)"
	}
	return msg + " (" + kind + "s: " + joinQuoted(have) + ")"
}
