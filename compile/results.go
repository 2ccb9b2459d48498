package compile

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// predictStmt compiles `predict NAME = predictive(LATENT, Xnew)` (on a
// factor-graph model: fgPredict; on a typed factor graph,
// predictive(DIST(args)): netPredict).
func (c *compiler) predictStmt(s *ast.PredictStmt) {
	if c.isNet() {
		c.netPredict(s)
		return
	}
	call, ok := s.Value.(*ast.CallExpr)
	if !ok || call.FunName() != "predictive" {
		c.fail(s.Value, "predict takes predictive(latent, Xnew)")
	}
	b, _ := stdlib.Lookup(stdlib.Predict, "predictive")
	a := c.bind(call, b)
	if c.compactPredict(s, a) {
		return
	}
	lv, _ := a.val(0)
	if c.m.FactorGraph != nil && c.m.Blocks() == nil {
		c.fgPredict(s, a, lv)
		return
	}
	if lv.k != kSym || lv.sym.exprs || len(lv.sym.ids) != c.m.Graph.Latents[lv.sym.lat].Size() {
		c.fail(a.at(0), "predictive needs a whole Gaussian-block latent, e.g. predictive(f, Xtest)")
	}
	bi := c.blockOf(lv.sym.lat)
	if bi < 0 {
		c.fail(a.at(0), "`%s` is not a real latent with a Gaussian-family prior", c.text(a.at(0)))
	}
	blk := c.m.Blocks()[bi]
	xv, _ := a.val(1)
	if xv.k == kSparse {
		c.sparsePredict(s, a, bi, xv)
		return
	}
	if xv.k != kNum || len(xv.shape) == 0 || len(xv.shape) > 2 {
		c.fail(a.at(1), "predictive: Xnew must be a matrix, got %s", xv.describe())
	}
	rows, cols := xv.shape[0], 1
	if len(xv.shape) == 2 {
		cols = xv.shape[1]
	}
	want := blk.N
	if blk.Prior.X != nil {
		_, want = blk.Prior.X.Dims()
	}
	if cols != want {
		c.fail(a.at(1), "predictive: Xnew has %d columns, `%s` needs %d", cols, blk.Name, want)
	}
	for _, p := range c.m.Predicts {
		if p.Name == s.Name.Name {
			c.fail(s.Name, "predict `%s` declared twice", s.Name.Name)
		}
	}
	spec := &PredictSpec{Name: s.Name.Name, Block: bi, Xnew: mat.NewDense(rows, cols, append([]float64(nil), xv.num...)), Pos: s.Pos()}
	spec.Lik = blockLikelihood(blk)
	c.m.Predicts = append(c.m.Predicts, spec)
}

// blockLikelihood is the common likelihood of a block's sites (the same
// kind and parameters for every site), or nil when they differ or are absent.
func blockLikelihood(b *graph.Block) graph.SiteKind {
	if len(b.Sites) == 0 {
		return nil
	}
	first := b.Sites[0].Lik
	for _, s := range b.Sites[1:] {
		if !sameParams(s.Lik, first) {
			return nil
		}
	}
	return first
}

func (c *compiler) blockOf(lat int) int {
	for i, b := range c.m.Blocks() {
		if b.Latent == lat {
			return i
		}
	}
	return -1
}

// expectStmt records an expect line after checking its names: accessors,
// math builtins, result labels (as selectors), latents, predicts, params
// and data.
func (c *compiler) expectStmt(s *ast.ExpectStmt) {
	labels := c.labels()
	if s.Label != nil && !contains(labels, s.Label.Name) {
		c.fail(s.Label, "%s", unknownLabel(s.Label.Name, labels))
	}
	c.checkExpectNames(s.X, labels)
	c.m.Expects = append(c.m.Expects, &ExpectSpec{Expr: s.X, For: labelName(s.Label), Pos: s.Pos()})
}

func labelName(id *ast.Ident) string {
	if id == nil {
		return ""
	}
	return id.Name
}

func unknownLabel(name string, labels []string) string {
	msg := fmt.Sprintf("no infer line is labelled `%s`", name)
	if dym := didYouMean(name, labels); dym != "" {
		return msg + dym
	}
	return msg + "; labels are " + joinQuoted(labels)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// checkExpectNames resolves every identifier of an expect expression.
func (c *compiler) checkExpectNames(e ast.Expr, labels []string) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok || !contains(labels, id.Name) {
				c.fail(n.X, "%s", unknownLabel(c.text(n.X), labels))
			}
			if _, ok := stdlib.Lookup(stdlib.Accessor, n.Sel.Name); !ok {
				c.fail(n.Sel, "`%s.%s`: %s is not a result accessor (%s)", c.text(n.X), n.Sel.Name, n.Sel.Name, joinQuoted(stdlib.Names(stdlib.Accessor)))
			}
			return false
		case *ast.CallExpr:
			if n.FunName() == "b" {
				return false // b("label") / b(index): a factor reference
			}
		case *ast.NamedArg:
			c.checkExpectNames(n.Value, labels)
			return false
		case *ast.Ident:
			c.expectIdent(n)
		}
		return true
	})
}

func (c *compiler) expectIdent(id *ast.Ident) {
	if _, ok := c.lookup(id.Name); ok {
		return
	}
	for _, p := range c.m.Predicts {
		if p.Name == id.Name {
			return
		}
	}
	for _, k := range []stdlib.Kind{stdlib.Accessor, stdlib.Math} {
		if _, ok := stdlib.Lookup(k, id.Name); ok {
			return
		}
	}
	cands := append(c.an.visible(c.an.here(), c.lowered), stdlib.Names(stdlib.Accessor)...)
	cands = append(cands, stdlib.Names(stdlib.Math)...)
	msg := fmt.Sprintf("undefined in expect: `%s`", id.Name)
	msg += didYouMean(id.Name, cands)
	c.fail(id, "%s", msg)
}

// learnStmt compiles `learn ITEM {, ITEM} [by evidence] [{ options }]`.
func (c *compiler) learnStmt(s *ast.LearnStmt) {
	if c.m.Learn != nil {
		c.fail(s, "only one learn statement is allowed (the first is at %s)", c.fset.Position(c.m.Learn.Pos))
	}
	if fg := c.m.FactorGraph; fg != nil && fg.Blocks() == nil {
		c.learnFactorGraph(s, fg)
	}
	if s.By != nil && s.By.Name != "evidence" {
		c.fail(s.By, "learn by %s: only `by evidence` is supported", s.By.Name)
	}
	ls := &LearnSpec{Options: map[string]string{}, Pos: s.Pos()}
	for _, it := range s.Items {
		b := c.globalNamed(it.Name.Name)
		ok := b != nil
		if ok && b.poisoned {
			panic(abort{})
		}
		if !ok || b.kind != bParam {
			c.fail(it.Name, "learn: `%s` is not a param", it.Name.Name)
		}
		if !b.v.isScalar() || b.v.k != kNum {
			c.fail(it.Name, "learn: param `%s` is a %s; only scalar params can be learned", it.Name.Name, b.v.describe())
		}
		for _, q := range ls.Params {
			if q.Name == it.Name.Name {
				c.fail(it.Name, "learn: `%s` is listed twice (first at %s)", it.Name.Name, c.fset.Position(q.Pos))
			}
		}
		p := LearnParam{Name: it.Name.Name, Pos: it.Pos()}
		if it.Lo != nil {
			p.Lo = c.optNum(&ast.Option{Key: it.Name, Value: it.Lo})
			p.Hi = c.optNum(&ast.Option{Key: it.Name, Value: it.Hi})
			p.Bounded = true
			if !(p.Lo < p.Hi) {
				c.fail(it, "learn: bounds of `%s` need lo < hi, got [%s, %s]", it.Name.Name, fmtNum(p.Lo), fmtNum(p.Hi))
			}
			if x := b.v.num[0]; x < p.Lo || x > p.Hi {
				c.fail(it, "learn: the value %s of `%s` is outside [%s, %s]", fmtNum(x), it.Name.Name, fmtNum(p.Lo), fmtNum(p.Hi))
			}
		}
		ls.Params = append(ls.Params, p)
	}
	for _, o := range s.Options {
		c.learnOption(&ls.Settings, o)
		ls.Options[o.Key.Name] = c.text(o.Value)
	}
	c.m.Learn = ls
	c.learnUses()
	c.learnRules(s)
}

// learnRules warns at learn statement s about the likelihoods of the
// model whose learning rule (package factor's table, column learn) is
// experimental; a likelihood without one is refused when learning starts.
func (c *compiler) learnRules(s *ast.LearnStmt) {
	for _, u := range c.modelKinds() {
		if r, ok := factor.Support(u.kind, factor.Column{Method: infer.ColumnLearn}); ok && u.kind.Role() == factor.Likelihood {
			c.warnExperimental(s, r, u)
		}
	}
}

// learnFactorGraph refuses learn on the factor graphs whose evidence has
// no gradient in infer/run: learning runs forward–backward passes on a
// forest without dense blocks (a chain, a hierarchy: any size), and
// otherwise sees the graph as one joint Gaussian block (at most
// infer.MaxJoint elements) with its likelihoods as EP sites; neither
// covers gated factors (their EP is factorised over the Gaussian and the
// discrete selector).
func (c *compiler) learnFactorGraph(s *ast.LearnStmt, fg *graph.FactorGraph) {
	if len(fg.Gates) > 0 {
		c.fail(s, "learn cannot be combined with gated factors yet (%s at %s, whose branch a discrete latent selects): learn maximises the evidence of joint-Gaussian EP, which has no site for a gate", fg.Gates[0].Label, c.fset.Position(fg.Gates[0].Pos))
	}
	if fg.NumVars > infer.MaxJoint && (len(fg.Dense) > 0 || !fg.Forest()) {
		c.fail(s, "learn on a factor graph that is not a chain or a tree works on the joint Gaussian of its real latents' elements, at most %d; this model has %d (a factor graph because of the %s at %s)", infer.MaxJoint, fg.NumVars, c.fg.what, c.fset.Position(c.fg.at))
	}
}

// learnOption applies one `key = value` of a learn statement: its
// descriptor in the learn options schema (infer.LearnSchema).
func (c *compiler) learnOption(st *infer.LearnOptions, o *ast.Option) {
	opt, ok := infer.LearnSchema.Lookup(o.Key.Name)
	if !ok {
		c.fail(o.Key, "unknown learn option `%s`; options are %s", o.Key.Name, joinQuoted(infer.LearnSchema.Keys()))
	}
	setOption(c, "learn", opt, st, o)
	if st.Method != "" && c.studentTBlocks() {
		c.fail(o.Key, "learn: method = %s: the t-EP evidence of student_t and tp priors is optimised by Nelder–Mead (no gradient); remove the method option", st.Method)
	}
}

// studentTBlocks reports whether every block has a student_t or tp prior
// (learning then maximises the t-EP evidence).
func (c *compiler) studentTBlocks() bool {
	for _, b := range c.m.Blocks() {
		if b.Prior.Kind.Family() != graph.StudentT {
			return false
		}
	}
	return len(c.m.Blocks()) > 0
}
