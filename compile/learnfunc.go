package compile

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
	"github.com/fg-infer/fg/stdlib/ad"
)

// learnRec is what a compilation records for the learned params of the
// root file's learn statement, so that the model can be re-evaluated at
// other values of those params without compiling it again (LearnFunc):
//
//   - deps: the learned params and every param whose expression reads one
//     (directly or through another such param), with the dependent params'
//     expressions in declaration order;
//   - priors, sites and conds: the prior calls, likelihood calls and
//     conditionals (a factor graph's means and variances) whose parameters
//     read a dependent param, with the plate variables in scope and the
//     graph factors they made (learn_inplace.go sets them in place);
//   - uses: the places outside those slots that read a dependent param
//     (data, shapes, plate ranges, projections, user potentials): learning
//     cannot change them, so LearnFunc refuses the model, naming the place;
//   - positive: learned params that are themselves an argument a builtin
//     declares positive (a variance, a lengthscale, a kernel variance).
type learnRec struct {
	learned  map[string]bool
	deps     map[string]bool
	params   []paramDef
	priors   []priorSlot
	sites    []siteSlot
	conds    []*condSlot
	plain    map[*ast.CallExpr]int // the conds slot of each plain conditional (addCond)
	nets     []netSlot
	uses     []*ast.Ident
	positive map[string]bool

	slot    int  // > 0 while evaluating a re-evaluable slot
	touched bool // a dependent param was read since the flag was cleared
}

// paramDef is a dependent param and the expression that defines it (its
// --set override when there is one).
type paramDef struct {
	name string
	expr ast.Expr
	at   *ast.Ident
}

// priorSlot is a prior call of latent lat whose arguments read a dependent
// param; factor is its graph factor.
type priorSlot struct {
	lat    int
	call   *ast.CallExpr
	b      *stdlib.Builtin
	k      factor.Kind
	factor int
}

// siteSlot is a likelihood call whose parameters read a dependent param: it
// made the n sites of likelihood kind k whose graph factors are factors —
// c.sites[lat][first:first+n] when they are sites of latent lat's block,
// else factor-graph sites on affine forms — evaluated with the plate
// variables locals.
type siteSlot struct {
	lat, first, n int
	call          *ast.CallExpr
	b             *stdlib.Builtin
	k             factor.LikelihoodKind
	locals        []local
	factors       []int
}

// newLearnRec prepares the recording for the learn statement of the root
// file f, or returns nil when there is none.
func newLearnRec(f *ast.File) *learnRec {
	for _, s := range f.Stmts {
		if s, ok := s.(*ast.LearnStmt); ok {
			r := &learnRec{learned: map[string]bool{}, deps: map[string]bool{}, positive: map[string]bool{}}
			for _, it := range s.Items {
				r.learned[it.Name.Name] = true
			}
			return r
		}
	}
	return nil
}

// readParam notes that the identifier id, bound to a param, was evaluated.
func (r *learnRec) readParam(id *ast.Ident) {
	if r == nil || !r.deps[id.Name] {
		return
	}
	r.touched = true
	if r.slot == 0 {
		r.uses = append(r.uses, id)
	}
}

// inSlot evaluates f as a re-evaluable slot and reports whether it read a
// dependent param.
func (r *learnRec) inSlot(f func()) bool {
	if r == nil {
		f()
		return false
	}
	outer := r.touched
	r.slot++
	r.touched = false
	defer func() {
		r.slot--
		r.touched = r.touched || outer
	}()
	f()
	return r.touched
}

// mark is the number of uses recorded so far (for allowIn).
func (r *learnRec) mark() int {
	if r == nil {
		return 0
	}
	return len(r.uses)
}

// allowIn drops the uses recorded since mark that lie inside e: e is a
// place learning can change (the variance of a conditional in a factor
// graph, a Net's data edge, which LearnFunc.At sets in place at every
// value).
func (r *learnRec) allowIn(mark int, e ast.Expr) {
	if r == nil || e == nil {
		return
	}
	lo, hi := e.Pos(), e.End()
	kept := r.uses[:mark]
	for _, id := range r.uses[mark:] {
		if p := id.Pos(); p < lo || p >= hi {
			kept = append(kept, id)
		}
	}
	r.uses = kept
}

// param records param id = e after its evaluation.
func (c *compiler) learnParam(id *ast.Ident, e ast.Expr, touched bool) {
	r := c.lf
	if r == nil || !(touched || r.learned[id.Name]) {
		return
	}
	r.deps[id.Name] = true
	r.params = append(r.params, paramDef{name: id.Name, expr: e, at: id})
}

// notePositive records that e, an argument a builtin declares positive, is
// a bare learned param (or a list of them, ard's lengthscales).
func (c *compiler) notePositive(e ast.Expr) {
	if c.lf == nil {
		return
	}
	switch e := e.(type) {
	case *ast.Ident:
		if b := c.resolved(e); b != nil && b.kind == bParam && c.lf.learned[e.Name] {
			c.lf.positive[e.Name] = true
		}
	case *ast.ParenExpr:
		c.notePositive(e.X)
	case *ast.ListLit:
		for _, x := range e.Elems {
			c.notePositive(x)
		}
	}
}

// notePositiveParams records the learned params passed bare as a parameter
// of likelihood kind k that its constructor requires positive: the ones it
// rejects at 0 with the other parameters as given (normal's var,
// student_t's nu and scale; not step's eps, which may be 0).
func (c *compiler) notePositiveParams(a *args, k factor.LikelihoodKind, pi int, params map[string]float64) {
	if c.lf == nil {
		return
	}
	for i, p := range a.b.Params {
		if i == pi || a.expr(i) == nil {
			continue
		}
		probe := maps.Clone(params)
		probe[p.Name] = 0
		var pe *factor.ParamError
		if _, err := k.New(probe); errors.As(err, &pe) && pe.Param == p.Name {
			c.notePositive(a.expr(i))
		}
	}
}

// snapshotLocals copies the plate variables in scope, their bindings as
// they are now.
func (c *compiler) snapshotLocals() []local {
	out := make([]local, len(c.locals))
	bs := make([]binding, len(c.locals))
	for i, l := range c.locals {
		bs[i] = *l.b
		out[i] = local{l.sym, &bs[i]}
	}
	return out
}

// saveLearn keeps, after a successful compilation, what LearnFunc needs.
func (c *compiler) saveLearn() {
	if c.lf == nil {
		return
	}
	c.m.learn = &learnState{rec: c.lf, an: c.an, slots: c.slots, sources: c.sources}
}

// learnState is a compiled model's recording for LearnFunc.
type learnState struct {
	rec     *learnRec
	an      *analysis
	slots   []*binding
	sources map[string][]byte
}

// LearnFunc is a compiled model as a function of the params of its learn
// statement: At re-evaluates only what depends on them — the params
// defined from them, the prior calls and the likelihood parameters that
// read them, a factor graph's conditionals — from the compiled
// expressions, without parsing or compiling the model again (a factor
// graph's numbers are set in one copy of it). A LearnFunc is not safe for
// concurrent use: a factor graph's At sets the numbers of one model.
type LearnFunc struct {
	m     *Model
	st    *learnState
	names []string
	// live is the copy of the factor graph or Net At sets in place
	// (graphAt); recompile: its params cannot be set in place.
	live      *Model
	recompile bool
}

// learnUses reports every place a learned param (or a param computed from
// one) reaches something learning cannot change: data, a shape, a plate
// range, a projection, a user potential. Each place is reported once,
// however many plate iterations evaluated it.
func (c *compiler) learnUses() {
	seen := map[ast.Pos]bool{}
	for _, id := range c.lf.uses {
		if seen[id.Pos()] {
			continue
		}
		seen[id.Pos()] = true
		c.errorf(id, "learn: `%s` is learned or computed from a learned param, but is used here, where learning cannot change it (data, a shape, a plate range, a projection or a user potential); learn changes kernel hyperparameters, priors and likelihood parameters only", id.Name)
	}
}

// LearnFunc returns the model as a function of its learned params, in the
// order of the learn statement.
func (m *Model) LearnFunc() (*LearnFunc, error) {
	if m.Learn == nil || m.learn == nil {
		return nil, errors.New("learn: the model has no learn statement")
	}
	st := m.learn
	f := &LearnFunc{m: m, st: st}
	for _, p := range m.Learn.Params {
		f.names = append(f.names, p.Name)
	}
	return f, nil
}

// Positive reports whether learned param name is itself an argument that
// a builtin declares positive (a prior or likelihood variance, a kernel
// lengthscale or variance), so that learning may optimise its logarithm.
func (f *LearnFunc) Positive(name string) bool { return f.st.rec.positive[name] }

// At returns the model at learned values x (in LearnFunc order) with every
// block re-evaluated: for a graph of blocks a shallow copy of the model
// whose blocks are copies, new where they depend on x; a model compiled to
// another factor graph or a typed factor graph (Net) is set in place in
// one copy of it (graphAt; gram is then ignored). With gram false the Gram matrices of gp and tp priors are
// not computed (Prior.Cov is nil there; the kernel and its
// hyperparameters are set). Values outside the bounds of the learn
// statement, and values the model rejects (a negative variance), are errors.
func (f *LearnFunc) At(x []float64, gram bool) (out *Model, err error) {
	c := f.compiler(!gram)
	defer c.catchAbort(&err)
	if err := f.setValues(c, x); err != nil {
		return nil, err
	}
	if f.m.Blocks() == nil && (f.m.FactorGraph != nil || f.m.Net != nil) {
		return f.graphAt(c, x)
	}
	return f.blocks(c), nil
}

// compiler is a compiler that evaluates f's model again (check: without
// Gram matrices).
func (f *LearnFunc) compiler(check bool) *compiler {
	c := newCompiler(f.m.opt)
	c.fset = f.m.Fset
	c.check = check
	c.sources = f.st.sources
	c.setAnalysis(f.st.an)
	c.m = f.m
	return c
}

// catchAbort, deferred, turns the abort of a failed evaluation into its
// errors in *err.
func (c *compiler) catchAbort(err *error) {
	if r := recover(); r != nil {
		if _, ok := r.(abort); !ok {
			panic(r)
		}
		*err = c.errs
	}
}

// graphAt is At on a factor graph or a typed factor graph (Net): a copy
// of the compiled graph with the recorded statements' numbers set at x
// (learn_inplace.go, learn_inplace_net.go; compiled at x when its graph
// differs there), and at every later value the same graph with those
// numbers set in place — the model returned is the one returned before,
// valid until the next call. A model whose params cannot all be set in
// place (sites that stop sharing their likelihood) is compiled again at
// x.
func (f *LearnFunc) graphAt(c *compiler, x []float64) (*Model, error) {
	switch {
	case f.recompile:
		return f.Model(x)
	case f.live == nil && f.st.rec.inPlace(f.m) != nil:
		f.recompile = true
		return f.Model(x)
	case f.live == nil:
		// The compiled model's numbers set at x in a copy: no compilation.
		if live, err := f.set(c, learnCopy(f.m)); err == nil {
			f.live = live
			return live, nil
		}
		// Its graph differs at x (a coefficient 0 at the start that
		// dropped its variable): the graph compiled at x.
		live, err := f.Model(x)
		if err != nil {
			return nil, err
		}
		if f.st.rec.inPlace(live) != nil {
			f.recompile = true
		} else {
			f.live = live
		}
		return live, nil
	}
	_, err := f.set(c, f.live)
	if err == errShared {
		f.recompile, f.live = true, nil
		return f.Model(x)
	} else if err != nil {
		return nil, fmt.Errorf("learn: at %s the model %w; learn can change the numbers of factors, not the factor graph", f.describe(x), err)
	}
	return f.live, nil
}

// set sets the recorded statements' numbers in live's factor graph or
// Net with c, its params bound at the new values.
func (f *LearnFunc) set(c *compiler, live *Model) (*Model, error) {
	c.check = false // a gp prior of the graph is a dense block with its Gram matrix
	c.m = live
	if live.Net != nil {
		return live, f.setNet(c, live.Net)
	}
	return live, f.setGraph(c, live.FactorGraph)
}

// InPlace reports whether m is the factor graph At sets in place: the
// next call of At overwrites its numbers, and its structure was checked
// there.
func (f *LearnFunc) InPlace(m *Model) bool { return m != nil && m == f.live }

// describe is "a = 1, b = 2" for the learned values x.
func (f *LearnFunc) describe(x []float64) string {
	var b []byte
	for i, n := range f.names {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, n+" = "+fmtNum(x[i])...)
	}
	return string(b)
}

// setValues binds the learned params to x (one value per learned param,
// in LearnFunc order) and re-evaluates the params that depend on them;
// when c differentiates, x_i is seeded as the i-th independent variable and
// the params computed from them get their tangents from eval.
func (f *LearnFunc) setValues(c *compiler, x []float64) error {
	if len(x) != len(f.names) {
		return fmt.Errorf("learn: %d values for %d learned params", len(x), len(f.names))
	}
	c.slots = slices.Clone(f.st.slots)
	for i, name := range f.names {
		p := f.m.Learn.Params[i]
		if p.Bounded && !(x[i] >= p.Lo && x[i] <= p.Hi) {
			return fmt.Errorf("learn: the value %s of `%s` is outside [%s, %s]", fmtNum(x[i]), name, fmtNum(p.Lo), fmtNum(p.Hi))
		}
		v := numVal(x[i])
		if c.jet != nil { // x_i, the i-th independent variable
			v.setTan(&tangents{j: []ad.Jet{ad.Var(i, len(x), x[i])}})
		}
		c.slots[c.an.scope[name].index] = &binding{kind: bParam, v: v}
	}
	for _, d := range f.st.rec.params {
		if f.st.rec.learned[d.name] {
			continue
		}
		v := c.eval(d.expr)
		if v.k == kNum {
			c.finite(d.expr, "param "+d.name, v)
		}
		c.slots[c.an.scope[d.name].index] = &binding{kind: bParam, v: v}
	}
	return nil
}

// blocks re-evaluates the recorded prior and likelihood slots.
func (f *LearnFunc) blocks(c *compiler) *Model {
	m := *f.m
	byLat := map[int]*graph.Block{}
	if f.m.FactorGraph != nil {
		fg := *f.m.FactorGraph
		fg.Dense = make([]*graph.Block, len(fg.Dense))
		for i, b := range f.m.FactorGraph.Dense {
			nb := *b
			fg.Dense[i], byLat[b.Latent] = &nb, &nb
		}
		m.FactorGraph = &fg
	}
	for _, p := range f.st.rec.priors {
		if b := byLat[p.lat]; b != nil {
			b.Prior = c.gaussianPrior(c.bind(p.call, p.b), &f.m.Graph.Latents[p.lat], p.k)
			if len(b.Streams) == 0 {
				c.densePrior(&b.Prior, b.Name, b.Pos)
			}
		}
	}
	copied := map[int]bool{}
	for _, s := range f.st.rec.sites {
		b := byLat[s.lat]
		if b == nil {
			continue
		}
		if !copied[s.lat] {
			b.Sites, copied[s.lat] = append([]graph.Site(nil), b.Sites...), true
		}
		lik := c.siteAgain(&s)
		for k := s.first; k < s.first+s.n; k++ {
			b.Sites[k].Lik = lik
		}
	}
	c.locals = nil
	return &m
}

// Model compiles the model again at learned values x — from its parsed
// files, with x in place of the learned params' definitions — for running
// it after learning. Its Learn is nil so that running it does not learn again.
func (f *LearnFunc) Model(x []float64) (*Model, error) {
	vals := map[string]float64{}
	for i, n := range f.names {
		vals[n] = x[i]
	}
	out, err := f.m.at(nil, vals)
	if err != nil {
		return nil, err
	}
	out.Learn = nil
	return out, nil
}

// close ends the recording: result statements (infer, predict, expect,
// learn) are compiled again with the learned values by LearnFunc.Model.
func (r *learnRec) close() {
	if r != nil {
		r.slot++
	}
}
