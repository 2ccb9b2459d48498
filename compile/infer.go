package compile

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// resultStmts compiles the root file's infer, predict, expect and learn
// lines. Every infer line is parsed and labelled; those Options.Only
// selects (all by default) are then checked against the model.
func (c *compiler) resultStmts(f *ast.File) {
	c.modelFailed = len(c.errs) > 0
	var lines []inferLine
	for _, s := range f.Stmts {
		if s, ok := s.(*ast.InferStmt); ok {
			c.guard(func() { lines = append(lines, c.inferLine(s)) })
		}
	}
	l := labeler{}
	for _, ln := range lines {
		ln.spec.Label = l.assign(c, ln.stmt, ln.spec)
	}
	for _, ln := range lines {
		if len(c.opt.Only) > 0 && !slices.Contains(c.opt.Only, ln.spec.Label) {
			c.m.Skipped = append(c.m.Skipped, ln.spec)
			continue
		}
		c.guard(func() { c.checkInfer(ln) })
		c.m.Infers = append(c.m.Infers, ln.spec) // a refused line keeps its label for expect lines
	}
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *ast.PredictStmt:
			c.guard(func() { c.predictStmt(s) })
		case *ast.ExpectStmt:
			c.guard(func() { c.expectStmt(s) })
		case *ast.LearnStmt:
			c.guard(func() { c.learnStmt(s) })
		}
	}
}

// inferLine is an infer line parsed into its spec, before the checks
// against the model.
type inferLine struct {
	stmt *ast.InferStmt
	spec *InferSpec
}

// inferSpec compiles one infer line; the label is assigned afterwards.
func (c *compiler) inferSpec(s *ast.InferStmt) *InferSpec {
	ln := c.inferLine(s)
	c.checkInfer(ln)
	return ln.spec
}

// inferLine parses an infer line's method and options into its spec.
func (c *compiler) inferLine(s *ast.InferStmt) inferLine {
	if _, err := stdlib.Find(stdlib.Method, s.Method.Name); err != nil {
		c.fail(s.Method, "%v", err)
	}
	method, err := infer.ParseMethod(s.Method.Name)
	c.check1(s.Method, err)
	spec := &InferSpec{Method: method, Options: map[string]string{}, Pos: s.Pos()}
	c.defaults(spec)
	seen := map[string]bool{}
	for _, o := range s.Options {
		if seen[o.Key.Name] {
			c.fail(o.Key, "option `%s` given twice", o.Key.Name)
		}
		seen[o.Key.Name] = true
		spec.Options[o.Key.Name] = c.text(o.Value)
		c.inferOption(spec, o)
	}
	spec.stmt = s
	return inferLine{stmt: s, spec: spec}
}

// checkInfer refuses an infer line the model cannot run, at its position:
// the checks of the engine that would run it (Model.Supports).
func (c *compiler) checkInfer(ln inferLine) {
	c.supports(ln.stmt, ln.spec)
}

// defaults fills the method's defaults from its registry entry.
func (c *compiler) defaults(spec *InferSpec) {
	e, err := infer.Lookup(spec.Method)
	if err != nil {
		return // ParseMethod's error is already reported
	}
	spec.LineOptions = e.Defaults
}

// kindUse is a factor kind the model uses, with the position of its first use.
type kindUse struct {
	kind factor.Kind
	pos  ast.Pos
}

// modelKinds lists the factor kinds of the model, each once, in the
// order of first use: every block's prior, sites and mini-batch
// potentials, a factor graph's priors, conditionals and sites, then the
// discrete factors.
func (c *compiler) modelKinds() []kindUse {
	var out []kindUse
	seen := map[factor.Key]bool{}
	use := func(gk graph.Kind, pos ast.Pos) {
		if k, ok := gk.(factor.Kind); ok && !seen[factor.KeyOf(k)] {
			seen[factor.KeyOf(k)] = true
			out = append(out, kindUse{k, pos})
		}
	}
	for _, b := range c.m.Blocks() {
		use(b.Prior.Kind, b.Pos)
		for _, s := range b.Sites {
			use(s.Lik, s.Pos)
		}
		for _, f := range b.Batches {
			use(factor.Exp{}, f.Pos)
		}
	}
	if g := c.m.FactorGraph; g != nil && g.Blocks() == nil {
		if g.NumGaussians() > 0 { // one kind: its first position
			use(factor.NormalPrior{}, g.Gaussian(0).Pos)
		}
		for _, d := range g.Dense {
			use(d.Prior.Kind, d.PriorPos)
		}
		for s := range g.SharedSites() {
			use(s.Lik, s.Pos)
		}
		for _, gt := range g.Gates {
			use(factor.Categorical{}, gt.Pos)
			for _, b := range gt.Branches {
				use(b.Shared.Lik, b.Shared.Pos)
			}
		}
	}
	for u := range c.m.Graph.FactorKinds() {
		// The factors with a table or statistic in the potential role
		// (ising, field, table; a categorical prior's table is not one).
		if k, ok := u.Kind.(factor.Kind); ok && u.Potential && k.Role() == factor.Potential {
			use(k, u.Pos)
		}
	}
	return out
}

// checkRules verifies that the method handles every factor kind of the
// model under its divergence (package factor's rule table, derived from
// the kinds' types), and warns about experimental rules.
func (c *compiler) checkRules(s *ast.InferStmt, spec *InferSpec) {
	col := factor.Column{Method: spec.Method}
	if spec.Method.HasDivergence() {
		col.Div = infer.FamilyOf(spec.Settings.Divergence)
	}
	for _, u := range c.modelKinds() {
		r, err := factor.FindRule(u.kind, col)
		if err != nil {
			c.fail(s, "%v", err)
		}
		if spec.Method == infer.MethodEP && r.Approx && !spec.Approx.Numerical() {
			c.fail(s, "%s factors have no closed-form moments: set approx = gh(n = 32), laplace, quick_laplace, gq or vq", u.kind.Name())
		}
		c.warnExperimental(s, r, u)
	}
	c.checkMixtures(s, spec)
	if t, ok := spec.Settings.Divergence.(infer.T); ok && spec.Method == infer.MethodEP {
		for _, b := range c.m.Blocks() {
			if b.Prior.Nu != t.Nu {
				c.fail(s, "divergence %v needs the prior of `%s` to have the same degrees of freedom; it is %s with nu = %s",
					t, b.Name, b.Prior.Kind.Name(), fmtNum(b.Prior.Nu))
			}
		}
	}
	if spec.Method == infer.MethodEP && spec.Approx.Kind == infer.SchemeGH {
		for _, b := range c.m.Blocks() {
			if len(b.Batches) > 0 {
				c.fail(s, "approx = gh integrates one-dimensional projections; the exp(...) factors of `%s` need laplace, quick_laplace, gq or vq", b.Name)
			}
		}
	}
}

// warnExperimental warns at statement n (an infer or learn line) when
// rule r, of kind use u, is experimental, naming where the kind is used.
func (c *compiler) warnExperimental(n ast.Node, r factor.Rule, u kindUse) {
	if r.Quality == factor.Experimental {
		c.warn(n, "%s uses an experimental rule for %s (at %s): it runs but has no independent reference",
			r.Column, factor.KeyOf(u.kind), c.fset.Position(u.pos))
	}
}

// labeler hands out infer labels in file order, remembering where each
// one was given (docs/language.md, "Labels"): `as LABEL`, else
// derivedLabel of the line, with _2, _3, ... when an earlier line already
// holds that name. A label depends only on its own line and the lines
// above it, so adding an infer line below never renames one; an `as`
// label that an earlier line holds is an error, never a silent rename.
type labeler map[string]ast.Pos

// assign labels one infer line; a clash of an `as` label is reported on c.
func (l labeler) assign(c *compiler, s *ast.InferStmt, spec *InferSpec) string {
	if s.Label != nil {
		name := s.Label.Name
		if prev, ok := l[name]; ok {
			c.errorf(s.Label, "label `%s` is already the label of the infer line at %s", name, c.fset.Position(prev))
		}
		l[name] = s.Pos()
		return name
	}
	base := derivedLabel(spec)
	name := base
	for i := 2; ; i++ {
		if _, ok := l[name]; !ok {
			break
		}
		name = fmt.Sprintf("%s_%d", base, i)
	}
	l[name] = s.Pos()
	return name
}

// derivedLabel is the label of an infer line without `as`: the method for
// its default divergence (kl) or a method without one (exact, mcmc), else
// METHOD_DIVNAME (ep_alpha, ep_relaxed_kl, ep_t, bp_alpha, ...).
func derivedLabel(spec *InferSpec) string {
	switch d := infer.FamilyOf(spec.Settings.Divergence); d {
	case infer.DivNone, infer.DivKL:
		return string(spec.Method)
	default:
		return string(spec.Method) + "_" + d.String()
	}
}

// labels lists the infer labels, the skipped lines' too.
func (c *compiler) labels() []string { return c.m.InferLabels() }

// InferLabels lists the labels of the infer lines in file order, those
// Options.Only skipped included.
func (m *Model) InferLabels() []string {
	var out []string
	for _, s := range m.AllInfers() {
		out = append(out, s.Label)
	}
	return out
}

// AllInfers lists the infer lines in file order, those Options.Only
// skipped (Model.Skipped) included.
func (m *Model) AllInfers() []*InferSpec {
	all := slices.Concat(m.Infers, m.Skipped)
	slices.SortStableFunc(all, func(a, b *InferSpec) int { return int(a.Pos - b.Pos) })
	return all
}

// MethodSpec parses a --method string: the text of an infer line without
// the keyword, e.g. `bp`, `ep { divergence = alpha(0.8) }` or
// `bp as fbp { divergence = alpha(0.8), damping = 0.5 }`, and checks it
// against the model's factors. Its label follows the model's infer lines
// as if the line were appended to the file (MethodSpecs).
func MethodSpec(m *Model, spec string) (*InferSpec, error) {
	out, err := MethodSpecs(m, []string{spec})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// MethodSpecs compiles --method strings in order, labelling them as infer
// lines appended to the model's file: a derived label that is taken gets
// _2, _3, ...; an `as` label that is taken is an error.
func MethodSpecs(m *Model, specs []string) ([]*InferSpec, error) {
	l := labeler{}
	for _, s := range m.AllInfers() {
		l[s.Label] = s.Pos
	}
	var out []*InferSpec
	for _, spec := range specs {
		s, err := methodSpec(m, spec, l)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// methodKeyword is what methodSpec puts before a --method string to parse
// it as an infer line; error columns are shifted back by its length so
// that they index into the string the user typed.
const methodKeyword = "infer "

// methodSpec compiles one --method string and labels it with l.
func methodSpec(m *Model, spec string, l labeler) (*InferSpec, error) {
	s, err := compileMethodLine(m, spec, l)
	var list ast.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			shiftColumn(&e.Pos)
			shiftColumn(&e.End)
		}
	}
	return s, err
}

// shiftColumn moves a position in "infer SPEC" to the same place in SPEC.
func shiftColumn(p *ast.Position) {
	if p.Line == 1 && p.Column > len(methodKeyword) {
		p.Column -= len(methodKeyword)
	}
}

// compileMethodLine compiles "infer SPEC" against m and labels it with l.
func compileMethodLine(m *Model, spec string, l labeler) (s *InferSpec, err error) {
	src := []byte(methodKeyword + spec)
	name := "--method" // the source's name in positions: what the user called
	if m.opt.Syntax == GoSyntax {
		name = "AddMethod"
	}
	start := ast.Position{Filename: name, Line: 1, Column: 1}
	c := newCompiler(Options{fset: m.Fset}) // the line's positions are the model's
	c.m = m
	c.sources[name] = src
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(abort); !ok {
				c.errs.Add(start, start, "internal compiler error: %v", r)
			}
			s, err = nil, c.errs
		}
	}()
	stmts, perr := parseStmts(c.fset, name, src)
	if perr != nil {
		return nil, perr
	}
	if len(stmts) != 1 {
		c.errs.Add(start, start, "%s takes one infer line, e.g. `ep { divergence = alpha(0.8) }`", name)
		return nil, c.errs
	}
	is, ok := stmts[0].(*ast.InferStmt)
	if !ok {
		c.errs.Add(start, start, "%s: expected METHOD [as LABEL] [{ options }]", name)
		return nil, c.errs
	}
	c.setAnalysis(methodAnalysis(c.fset, slices.Collect(maps.Keys(m.Params)), is))
	for n, v := range m.Params {
		c.slots[c.an.scope[n].index] = &binding{kind: bParam, v: fromValue(v)}
	}
	s = c.inferSpec(is)
	if len(c.errs) == 0 {
		s.Label = l.assign(c, is, s)
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return s, nil
}

// fromValue turns a Model value back into an evaluation value.
func fromValue(v Value) val {
	switch {
	case v.Num != nil || v.Shape != nil:
		return val{k: kNum, shape: v.Shape, num: v.Num, dom: v.Domain}
	case v.Nodes > 0 || v.Edges != nil:
		return val{k: kGraph, g: &graphVal{n: v.Nodes, edges: v.Edges, fg: v.Graph}}
	}
	return val{k: kStr, str: v.Str}
}

func sortStrings(s []string) { sort.Strings(s) }

func joinQuoted(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}
