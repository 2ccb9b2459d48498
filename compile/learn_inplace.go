package compile

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib"
)

// Learning on a factor graph sets its params' values in place.
//
// A learned param reaches a compiled factor graph (Model.FactorGraph) only
// through the numbers of its factors: the coefficients, constant and
// variance of a conditional x_t ~ N(a·x_{t−1} + d, q) (condSlot), the mean
// and variance of a whole-latent normal prior or the covariance of a dense
// gp or mvnormal prior (priorSlot), and the parameters of a likelihood site
// (siteSlot) — anything else it reaches (data, a shape, a plate range, a
// projection) is a compile error at that place (learnRec.uses). The
// compilation records each such statement with the plate variables in
// scope and the graph factors it made. LearnFunc.At then copies the
// compiled graph once (learnCopy), and at every value re-evaluates only
// those statements' arguments (the params computed from the learned ones
// first) and writes their numbers into that same factor graph:
// the Affines columns of its linear-Gaussian factors (graph.Affines.Rewrite),
// its dense blocks' priors and its sites' shared likelihoods. One
// evaluation of the evidence is then one engine run on that graph.
//
// A value at which a statement's factor would change its variables (a
// learned coefficient of exactly 0 drops its variable) is an error, as
// when it was compiled again. What cannot be set in place is compiled
// again at every value: the sites of one statement that share one
// likelihood record but take different values at some x. A typed factor
// graph (Model.Net) is set in place likewise (learn_inplace_net.go).

// compiles counts the compilations run by this process.
var compiles atomic.Int64

// Compiles is the number of compilations (of a source, a file or a model
// at other values of its params) this process has run: tests and
// benchmarks count with it how often learning compiles a model again.
func Compiles() int64 { return compiles.Load() }

// condSlot is a conditional x[ids] ~ normal(mean, var) (mvnormal(mean,
// cov) when mvn) whose mean or variance reads a dependent param (the mean
// when mean is set; else only the variance, and the mean's forms are not
// evaluated again): factors[k] is the graph factor of element ids[k];
// locals are the plate variables in scope.
type condSlot struct {
	call    *ast.CallExpr
	b       *stdlib.Builtin
	mvn     bool
	mean    bool
	ids     []int
	factors []int
	locals  []local
}

// readsLocal reports whether any of the expressions uses a plate
// variable in scope (as resolved: a called function or a named argument's
// key of the same name is none).
func (c *compiler) readsLocal(es ...ast.Expr) bool {
	found := false
	for _, e := range es {
		if e == nil || found {
			continue
		}
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if b := c.resolved(id); b != nil && b.kind == bLoop {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// addCond records the conditional slot s, whose arguments evaluated again
// read no plate variable when plain: then its plate's iterations are one
// slot (the variance of a chain's steps: a few bytes a step), merged into
// the slot before when that is the same statement's.
func (r *learnRec) addCond(s *condSlot, plain bool) *condSlot {
	if !plain {
		s.ids = slices.Clone(s.ids)
		r.conds = append(r.conds, s)
		return s
	}
	if r.plain == nil {
		r.plain = map[*ast.CallExpr]int{}
	}
	if i, ok := r.plain[s.call]; ok {
		last := r.conds[i]
		last.ids = append(last.ids, s.ids...)
		return last
	}
	s.ids, s.locals = slices.Clone(s.ids), nil
	r.plain[s.call] = len(r.conds)
	r.conds = append(r.conds, s)
	return s
}

// addSite records the site slot s likewise: merged into the statement's
// slot when it reads no plate variable (plain) and its sites are on
// affine forms or follow that slot's in the same block. (A statement's
// slot is its last; siteFactors appends to it.)
func (r *learnRec) addSite(s siteSlot, plain bool) {
	if n := len(r.sites); plain && n > 0 {
		if last := &r.sites[n-1]; last.call == s.call && last.locals == nil && last.lat == s.lat && (s.lat < 0 || last.first+last.n == s.first) {
			last.n += s.n
			return
		}
	}
	if plain {
		s.locals = nil
	}
	r.sites = append(r.sites, s)
}

// usedSince reports whether a dependent param was read outside a slot
// since mark.
func (r *learnRec) usedSince(mark int) bool { return r != nil && len(r.uses) > mark }

// siteFactors records the graph factors of the sites the last site slot
// made (deferred in likelihood: on a failed statement it records
// nothing): the n sites of latent lat's block from first, or the last n
// sites on affine forms.
func (r *learnRec) siteFactors(c *compiler, lat, first, n int) {
	s := &r.sites[len(r.sites)-1] // the statement's, or the one it was merged into
	switch {
	case lat >= 0 && len(c.sites[lat]) == first+n:
		for _, st := range c.sites[lat][first:] {
			s.factors = append(s.factors, st.Factor)
		}
	case len(c.fg.sites) >= n:
		for _, st := range c.fg.sites[len(c.fg.sites)-n:] {
			s.factors = append(s.factors, st.site.Factor)
		}
	}
}

// siteAgain evaluates the likelihood of site slot s again: the one
// likelihood (with its parameters) its sites share.
func (c *compiler) siteAgain(s *siteSlot) factor.Site {
	c.locals = s.locals
	lik := c.newSite(c.bind(s.call, s.b), s.k, paramIndex(s.b, s.k.Projection()))
	return lik
}

// inPlace reports whether every dependence the compilation recorded can
// be set in place in m's factor graph or Net (see above), or why not.
func (r *learnRec) inPlace(m *Model) error {
	if m.Net != nil {
		if len(r.sites)+len(r.priors)+len(r.conds) > 0 {
			return fmt.Errorf("a typed factor graph with Gaussian-block slots")
		}
		n := 0
		for _, s := range r.nets {
			n = max(n, s.first+s.n)
		}
		if n > len(m.Net.Factors) {
			return fmt.Errorf("the typed factor graph has %d factors, not %d", len(m.Net.Factors), n)
		}
		return nil
	}
	fg := m.FactorGraph
	if fg == nil || len(r.nets) > 0 {
		return fmt.Errorf("the model is not a factor graph")
	}
	for _, s := range r.sites {
		if len(s.factors) != s.n {
			return fmt.Errorf("the sites of %s were not recorded", s.b.Name)
		}
	}
	// A shared likelihood record takes one value: every site sharing one a
	// slot sets must be a slot's site.
	set := map[*graph.Site]int{}
	for _, s := range r.sites {
		for _, f := range s.factors {
			i, ok := fg.SiteOf(f)
			if !ok {
				return fmt.Errorf("the site of graph factor %d is not in the factor graph", f)
			}
			set[fg.SharedSite(i)]++
		}
	}
	if len(set) == 0 {
		return nil
	}
	all := map[*graph.Site]int{}
	for k := range fg.NumSites() {
		all[fg.SharedSite(k)]++
	}
	for sh, n := range set {
		if all[sh] != n {
			return fmt.Errorf("the sites of %s share their likelihood with sites learning does not change", sh.Lik.Name())
		}
	}
	return nil
}

// learnCopy is a copy of m whose numbers learning sets are its own, the
// rest shared with m: its factor graph's shared likelihood records and
// dense blocks (graph.FactorGraph.CloneSites; the linear-Gaussian
// factors' number columns are replaced, never written, by
// RewriteGaussians), its Net's factors (replaced by
// graph.NetFactor.WithData and WithAffine). Its Learn is nil.
func learnCopy(m *Model) *Model {
	out := *m
	out.Learn = nil
	if fg := m.FactorGraph; fg != nil {
		out.FactorGraph = fg.CloneSites()
	}
	if n := m.Net; n != nil {
		net := *n
		net.Factors = slices.Clone(n.Factors)
		out.Net = &net
	}
	return &out
}

// fgNumbers are the numbers of a linear-Gaussian factor to set: its
// variance, and its coefficients and constant unless coefs is nil.
type fgNumbers struct {
	set   bool
	coefs []float64
	c, v  float64
}

// setGraph re-evaluates the recorded statements with c (its params bound
// at the new values) and sets their numbers in fg. The numbers are all
// evaluated before any is set, so that an error leaves fg as it was.
func (f *LearnFunc) setGraph(c *compiler, fg *graph.FactorGraph) error {
	rec := f.st.rec
	g := f.m.Graph
	varOf := func(id int) int { v := g.Vars[id]; return fg.VarOf(v.Latent, v.Index) }
	upd := make([]fgNumbers, fg.NumGaussians())
	var vars, stored []int
	var coefs []float64
	for _, s := range rec.conds {
		c.locals = s.locals
		a := c.bind(s.call, s.b)
		var mean func(k int) lin
		if s.mean {
			mv, _ := a.val(0)
			mean = c.condMean(a, mv, len(s.ids))
		}
		var vs []float64
		if s.mvn {
			mean, vs = c.mvConditional(a, mean, s.ids)
		} else {
			vv, _ := a.val(1)
			vs = c.condVar(a, vv, s.ids)
		}
		for k, id := range s.ids {
			v := vs[min(k, len(vs)-1)]
			if !s.mean {
				lo, hi := fg.GaussiansOf(s.factors[k])
				if hi != lo+1 {
					return fmt.Errorf("the conditional of %s is not in the factor graph", g.VarName(id))
				}
				upd[lo] = fgNumbers{set: true, v: v}
				continue
			}
			m := c.condForm(a, mean, k, id)
			vars, coefs = condAffine(id, m, vars, coefs)
			form, ok := condFactor(graph.Affine{Vars: vars, Coefs: coefs, Const: m.c}, varOf, nil, nil)
			lo, hi := fg.GaussiansOf(s.factors[k])
			if hi != lo+1 {
				return fmt.Errorf("the conditional of %s is not in the factor graph", g.VarName(id))
			}
			stored = fg.GaussianForms().AppendVars(lo, stored[:0])
			if !ok || !slices.Equal(form.Vars, stored) {
				return fmt.Errorf("changes the variables of the mean of %s (a learned coefficient of exactly 0 drops its variable)", fg.GaussianLabel(lo))
			}
			upd[lo] = fgNumbers{set: true, coefs: form.Coefs, c: form.Const, v: v}
		}
	}
	dense, missing := map[int]graph.Prior{}, map[int]bool{}
	for _, p := range rec.priors {
		l := &g.Latents[p.lat]
		pr := c.gaussianPrior(c.bind(p.call, p.b), l, p.k)
		if !pr.Kind.Independent() {
			dense[p.lat], missing[p.lat] = pr, true
			continue
		}
		lo, hi := fg.GaussiansOf(p.factor)
		if hi-lo != l.Size() {
			return fmt.Errorf("the prior of %s is not in the factor graph", l.Name)
		}
		for e := range l.Size() {
			upd[lo+e] = fgNumbers{set: true, coefs: []float64{1}, c: 0 - pr.Mean[e], v: pr.Var[e]}
		}
	}
	liks := map[*graph.Site]graph.Site{}
	for i := range rec.sites {
		s := &rec.sites[i]
		lik := c.siteAgain(s)
		for _, fac := range s.factors {
			k, _ := fg.SiteOf(fac)
			sh := fg.SharedSite(k)
			if old, ok := liks[sh]; ok && !sameLik(old.Lik, lik) {
				return errShared
			}
			liks[sh] = graph.Site{Lik: lik}
		}
	}
	c.locals = nil
	for _, d := range fg.Dense {
		delete(missing, d.Latent)
	}
	for lat := range missing {
		return fmt.Errorf("the prior of %s is not in the factor graph", g.Latents[lat].Name)
	}
	for i := range fg.Dense {
		if pr, ok := dense[fg.Dense[i].Latent]; ok {
			fg.Dense[i].Prior = pr
		}
	}
	for sh, s := range liks {
		sh.Lik = s.Lik
	}
	fg.RewriteGaussians(func(k int, coefs []float64, c, v *float64) {
		if u := &upd[k]; u.set {
			if u.coefs != nil {
				copy(coefs, u.coefs)
				*c = u.c
			}
			*v = u.v
		}
	})
	return nil
}

// errShared: the sites of a statement that share one likelihood record
// take different values (see setGraph); the model is compiled again.
var errShared = fmt.Errorf("sites sharing one likelihood take different values")

// siteParams are the arguments of a likelihood call a other than its
// projection (argument pi): what a site slot evaluates again.
func siteParams(a *args, pi int) []ast.Expr {
	var out []ast.Expr
	for i := range a.b.Params {
		if i != pi {
			out = append(out, a.expr(i))
		}
	}
	return out
}
