package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/learn"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// Learn optimises the params named in m.Learn by maximising the KL EP
// evidence log Z_EP summed over the model's Gaussian blocks (infer/learn),
// or of its factor graph (learn_factorgraph.go: the joint Gaussian block,
// or a chain's or tree's messages) — on a typed factor graph (m.Net) the
// evidence of its first ep line, log Z_EP, power EP's or the ELBO
// (learn_net.go) —
// and returns the model compiled with the learned values (its Learn set
// to nil, so that running it does not learn again), the learned values, and
// the trace of −log Z_EP over the successful evaluations. Without a learn
// statement it returns m unchanged. opt.Progress, when set, is called after
// every successful evaluation with label "learn", the evaluation number
// and −log Z_EP.
//
// A learned param may enter the model through any expression (e.g.
// se(exp(log_ell), exp(2*log_sf))): the model is compiled once, and at
// every evaluation compile.LearnFunc re-evaluates only what depends on the
// learned params (the params computed from them, the priors and likelihood
// parameters that read them). On a model of Gaussian blocks the
// derivatives of the kernel hyperparameters, of normal/mvnormal prior
// means and covariances and of the sites' eps/var with respect to every
// param are exact, by forward-mode AD: compile.LearnFunc.Tangents
// evaluates the same expressions on stdlib/ad jets seeded on the learned
// params (jetDerivs); on a forest likewise its factors' variances and
// means (an AR coefficient, a drift) and its sites' eps/var
// (compile.LearnFunc.GraphTangents); on a typed factor graph its factors'
// data and affine numbers (compile.LearnFunc.NetTangents); on a factor
// graph's joint block its prior mean and covariance, propagated with
// their tangents (jointJetDerivs). A number reached through an
// expression without jets (@, a data builtin),
// and what it reaches, is a central difference of re-evaluations instead
// (deriv; step 1e-6·max(1, |x|)). The
// Gram-matrix derivatives come from stdlib/kernel and the evidence
// gradient from infer/learn.
// Models whose blocks all have student_t/tp priors maximise the t-EP
// evidence instead, without gradients (learnT). Errors: blocks without a
// Gaussian EP evidence (a mix of Student-t and Gaussian priors; mini-batch factors;
// sites other than probit, step and normal) and params that change nothing
// but kernel hyperparameters, prior covariances and likelihood eps/var
// (a learned param that reaches data, a shape or a projection is a
// compile error at that place).
//
// Transforms: `NAME in [LO, HI]` is optimised on the logit scale of
// (LO, HI) (a starting value on a bound is moved 1e-9·(HI − LO) inside);
// an unbounded param that is itself a kernel hyperparameter or a normal
// variance on the log scale; one that is itself a step eps on the logit
// scale of (0, ½); another positive param that is itself an argument its
// builtin declares positive (e.g. a prior variance) on the log scale;
// anything else (e.g.
// log_ell) as it is. Options of the
// learn statement: max_iter (optimiser iterations, default 100), tol
// (gradient tolerance in the transformed coordinates, default 1e-5),
// method (lbfgs, bfgs, cg).
//
// Every error but the context's is an *ast.Error at the learn statement,
// or at the param it is about.
func Learn(ctx context.Context, m *compile.Model, opt Options) (*compile.Model, []infer.Learned, []float64, error) {
	if m.Learn == nil {
		return m, nil, nil, nil
	}
	out, learned, trace, err := learnPositionless(ctx, m, opt)
	if err != nil && ctx.Err() == nil {
		err = learnErrorAt(m.Fset, m.Learn, err)
	}
	return out, learned, trace, err
}

// learnErrorAt places err at the learn statement, or at the param of it
// that a *paramError names.
func learnErrorAt(fset *ast.FileSet, ls *compile.LearnSpec, err error) error {
	var list ast.ErrorList
	var one *ast.Error
	if errors.As(err, &list) || errors.As(err, &one) {
		return err
	}
	pos := ls.Pos
	var pe *paramError
	if errors.As(err, &pe) {
		for _, p := range ls.Params {
			if p.Name == pe.name {
				pos = p.Pos
			}
		}
	}
	return &ast.Error{Pos: fset.Position(pos), Msg: err.Error()}
}

// paramError is a learn error about one learned param.
type paramError struct {
	name string
	msg  string
}

func (e *paramError) Error() string { return e.msg }

// newLearnBuilder is the evidence builder of compiled model m: its learn
// view (learnView: a factor graph may be learned on its joint block), the
// checks of the view's sites, the learned params with their transforms,
// and the LearnFunc of m itself — never of the view, whose re-evaluated
// numbers would not reach the graph the evidence is computed on (every
// param would then change nothing).
func newLearnBuilder(m *compile.Model) (*learnBuilder, error) {
	lm, err := learnView(m)
	if err != nil {
		return nil, err
	}
	if lm.Net == nil && !onMessages(lm) { // a forest view checks its sites in graphOf; a Net in netEvidence
		if err := learnable(lm); err != nil {
			return nil, err
		}
	}
	params, err := learnParams(m)
	if err != nil {
		return nil, err
	}
	f, err := m.LearnFunc()
	if err != nil {
		return nil, err
	}
	lb := &learnBuilder{m: lm, params: params, f: f}
	if err := lb.classify(); err != nil {
		return nil, err
	}
	return lb, nil
}

// learnPositionless is Learn without the errors' positions.
func learnPositionless(ctx context.Context, m *compile.Model, opt Options) (*compile.Model, []infer.Learned, []float64, error) {
	if tBlocks(m) {
		return learnT(ctx, m, opt)
	}
	lb, err := newLearnBuilder(m)
	if err != nil {
		return nil, nil, nil, err
	}
	o := m.Learn.Settings
	s := learn.Settings{Method: o.Method, MaxIter: o.MaxIter, GradTol: o.Tol}
	start := time.Now()
	var trace []float64
	s.Progress = func(e learn.Eval) {
		if !e.OK {
			return
		}
		trace = append(trace, -e.LogZ)
		if opt.Progress != nil {
			opt.Progress(learnProgress(e.N, -e.LogZ, start))
		}
	}
	res, err := learn.Optimize(ctx, lb.build, lb.params, s)
	if err != nil {
		return nil, nil, trace, err
	}
	out, err := lb.f.Model(res.X)
	if err != nil {
		return nil, nil, trace, fmt.Errorf("learn: recompiling at the learned values: %w", err)
	}
	var learned []infer.Learned
	for i, p := range lb.params {
		l := infer.Learned{Name: p.Name, Initial: lb.init[i], Value: res.X[i], Pos: m.Fset.Position(m.Learn.Params[i].Pos).String()}
		l.Warning = notMaximum(res, i, l, m.Learn.Params[i])
		learned = append(learned, l)
	}
	return out, learned, trace, nil
}

// stationaryTol bounds |∂ log Z_EP/∂x|·max(1, |x|) at a learned value x
// that counts as a maximum of the evidence: converged runs end below 1e-5
// (the optimiser's gradient tolerance, in its own coordinates).
const stationaryTol = 1e-3

// notMaximum is the warning for learned param k of res when its value is
// not a stationary point of the evidence — the optimiser stopped (failed,
// or at its iteration limit) with the gradient in that param still large,
// e.g. when bounds so wide that the logit scale's resolution is coarser
// than the optimum's width leave it where it started — or "".
func notMaximum(res *learn.Result, k int, l infer.Learned, p compile.LearnParam) string {
	if k >= len(res.Grad) {
		return ""
	}
	g := res.Grad[k]
	if math.Abs(g)*math.Max(1, math.Abs(l.Value)) <= stationaryTol {
		return ""
	}
	why := "the optimiser stopped"
	if res.Message != "" {
		why += " (" + res.Message + ")"
	}
	if p.Bounded {
		why += fmt.Sprintf("; the bounds [%g, %g] are optimised on a logit scale, whose steps may be too coarse when they are wide", p.Lo, p.Hi)
	}
	if math.Abs(l.Value-l.Initial) <= 1e-9*math.Max(1, math.Abs(l.Initial)) {
		return fmt.Sprintf("learn made no progress on %s (%.4g → %.4g) though the evidence gradient there is %.3g: %s", l.Name, l.Initial, l.Value, g, why)
	}
	return fmt.Sprintf("learn: %s = %.6g is not a maximum of the evidence (gradient %.3g): %s", l.Name, l.Value, g, why)
}

// learnable reports why a block has no Gaussian EP evidence to maximise.
func learnable(m *compile.Model) error {
	if len(m.Blocks()) == 0 {
		return fmt.Errorf("learn: the model has no real latent with a Gaussian prior, so there is no EP evidence to maximise")
	}
	for _, b := range m.Blocks() {
		if b.Prior.Kind.Family() != graph.Gaussian {
			return fmt.Errorf("learn: %s has a %s prior while other latents have Gaussian priors; learn maximises either the kl EP evidence (normal, mvnormal, gp priors) or the t(nu) EP evidence (all priors student_t or tp), not a mix", b.Name, b.Prior.Kind.Name())
		}
		if len(b.Batches) > 0 {
			return fmt.Errorf("learn: %s has mini-batch factors (%s), whose EP has no closed-form evidence", b.Name, b.Batches[0].Label)
		}
		for _, s := range b.Sites {
			if _, err := siteLik(s); err != nil {
				return fmt.Errorf("learn: %s: %w", s.Label, err)
			}
		}
	}
	return nil
}

// siteLik is the infer/ep likelihood of a site whose kind has a learning
// rule (package factor's table, column learn).
func siteLik(s graph.Site) (ep.Likelihood, error) {
	lik, ok := s.Lik.(ep.Likelihood)
	if _, learnable := factor.Support(siteRules(s.Lik), factor.Column{Method: infer.ColumnLearn}); !ok || !learnable {
		return nil, fmt.Errorf("%s sites have no closed-form EP evidence; learn needs %s sites", s.Lik.Name(), learnableSites())
	}
	return lik, nil
}

// learnableSites names the likelihoods with a learning rule.
func learnableSites() string {
	var names []string
	for _, k := range factor.All() {
		if _, ok := factor.Support(k, factor.Column{Method: infer.ColumnLearn}); ok && k.Role() == factor.Likelihood {
			names = append(names, k.Name())
		}
	}
	return strings.Join(names, ", ")
}

// learnParams returns the learned params with their starting values; the
// transforms are chosen later by classify.
func learnParams(m *compile.Model) ([]learn.Param, error) {
	var out []learn.Param
	for _, lp := range m.Learn.Params {
		v, ok := m.Params[lp.Name]
		if !ok || len(v.Num) != 1 || v.Shape != nil {
			return nil, fmt.Errorf("learn: %s is not a scalar param", lp.Name)
		}
		p := learn.Param{Name: lp.Name, Init: v.Num[0]}
		if lp.Bounded {
			w := lp.Hi - lp.Lo
			p.Init = math.Min(math.Max(p.Init, lp.Lo+1e-9*w), lp.Hi-1e-9*w)
			p.Transform = learn.Transform{Kind: learn.Logit, Lo: lp.Lo, Hi: lp.Hi}
		}
		out = append(out, p)
	}
	return out, nil
}

// formatParam writes x as an fg number literal that round-trips exactly.
func formatParam(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if x < 0 {
		return "(" + s + ")"
	}
	return s
}

// learnBlocksOf maps a model's blocks to infer/learn blocks without derivatives.
func learnBlocksOf(m *compile.Model, np int) ([]*learn.Block, error) {
	var out []*learn.Block
	for _, b := range m.Blocks() {
		p := &ep.Problem{Mean: b.Prior.Mean, Cov: b.Prior.Cov}
		for _, s := range b.Sites {
			lik, err := siteLik(s)
			if err != nil {
				return nil, err
			}
			p.Sites = append(p.Sites, ep.Site{Lik: lik, Y: s.Y, Index: s.Index, Proj: s.Proj})
		}
		out = append(out, &learn.Block{Problem: p, DCov: make([]*mat.SymDense, np), DLik: make([][]float64, np)})
	}
	return out, nil
}

// learnBuilder evaluates the model at learned-param values x for
// infer/learn: it re-evaluates the model as a function of the learned
// params (compile.LearnFunc: only the params, priors and likelihood
// parameters that depend on them, nothing parsed or compiled again) and
// differentiates what the params feed (kernel hyperparameters, prior
// covariances, site eps/var).
type learnBuilder struct {
	m      *compile.Model
	params []learn.Param
	init   []float64
	f      *compile.LearnFunc
	dists  []*kernel.Distances // per block: its inputs' squared distances, kept between evaluations (gramsAndGrads)
	grams  []kernel.GramGrad   // per block: the last evaluation's Gram matrix and derivatives, written over by the next
	// moved: deriv set a graph set in place (compile.LearnFunc.InPlace) at
	// another value than the last compileAt's.
	moved bool
	// at is the model at the last compileAt's x, of which its learn view
	// was made (a factor graph's, whose joint block jointJetDerivs
	// differentiates).
	at *compile.Model
	// exact: compileAt computes a joint view's prior with its tangents
	// (build), kept in joint for jointJetDerivs.
	exact bool
	joint *jointTangents
}

// snapshot holds everything a learned param may change, per block.
type snapshot struct {
	hyper [][]float64     // flattened kernel hyperparameters (gp priors)
	lik   [][]float64     // each site's eps (step) or var (normal); 0 for probit
	cov   []*mat.SymDense // prior covariance of normal/mvnormal priors (nil for gp)
	mean  [][]float64     // prior mean (a factor graph's joint block: its conditionals' means propagated)
	gvar  []float64       // a forest view's linear-Gaussian variances (forestVars)
	gaff  []float64       // a forest view's linear-Gaussian means (forestAffs)
	glik  []float64       // a forest view's EP sites' parameters (forestLiks)
	net   [][]float64     // a Net model's factors' data numbers (learn_net.go)
}

func (lb *learnBuilder) set(x []float64) map[string]string {
	s := map[string]string{}
	for i, p := range lb.params {
		s[p.Name] = formatParam(x[i])
	}
	return s
}

// compileAt is the model at x; with gram false its gp priors have no Gram
// matrix (the derivative evaluations need only the hyperparameters).
func (lb *learnBuilder) compileAt(x []float64, gram bool) (*compile.Model, error) {
	mx, err := lb.f.At(x, gram)
	if err != nil {
		return nil, err
	}
	lb.moved, lb.at, lb.joint = false, mx, nil
	if lb.exact && jointView(mx) {
		if lb.joint, err = lb.jointPriorTangents(x, mx.FactorGraph); err != nil {
			return nil, err
		}
	}
	if lb.f.InPlace(mx) {
		return learnViewOf(mx, lb.joint) // its structure checked where the values were set
	}
	if mx, err = learnViewOf(mx, lb.joint); err != nil {
		return nil, err
	}
	if err := sameStructure(lb.m, mx); err != nil {
		return nil, fmt.Errorf("learn: at %s the model %w; learn can change kernel hyperparameters, prior covariances and likelihood eps/var only", describeSet(lb.set(x)), err)
	}
	return mx, nil
}

func describeSet(s map[string]string) string {
	var parts []string
	for k, v := range s {
		parts = append(parts, k+" = "+v)
	}
	return strings.Join(parts, ", ")
}

// build returns the blocks at x with DCov[k] = ∂K/∂x_k and DLik[k] = ∂θ_site/∂x_k.
func (lb *learnBuilder) build(x []float64) ([]*learn.Block, error) {
	if onMessages(lb.m) {
		return lb.buildForest(x)
	}
	if lb.m.Net != nil {
		return lb.buildNet(x)
	}
	lb.exact = true
	mx, err := lb.compileAt(x, false)
	lb.exact = false
	if err != nil {
		return nil, err
	}
	grads, err := lb.gramsAndGrads(mx)
	if err != nil {
		return nil, err
	}
	blocks, err := learnBlocksOf(mx, len(x))
	if err != nil {
		return nil, err
	}
	ds, err := lb.derivs(x, snapOf(mx))
	if err != nil {
		return nil, err
	}
	for bi, cb := range mx.Blocks() {
		if cb.Prior.FITC != nil {
			continue // fitcLearnBlock below
		}
		uses := hyperUses(ds, bi)
		for k, d := range ds {
			if dK, err := lb.dCov(cb, d, bi, &grads[bi], uses); err != nil {
				return nil, err
			} else if dK != nil {
				blocks[bi].DCov[k] = dK
			}
			if nonzero(d.lik[bi]) {
				blocks[bi].DLik[k] = d.lik[bi]
			}
			if nonzero(d.mean[bi]) {
				if blocks[bi].DMean == nil {
					blocks[bi].DMean = make([][]float64, len(x))
				}
				blocks[bi].DMean[k] = d.mean[bi]
			}
		}
	}
	for bi, cb := range mx.Blocks() {
		if cb.Prior.FITC != nil {
			if blocks[bi].FITC, err = lb.fitcLearnBlock(cb, bi, ds); err != nil {
				return nil, err
			}
		}
	}
	return blocks, nil
}

// gramsAndGrads sets the Gram matrix of every dense gp block of mx that
// has none (the model re-evaluated without them) together with the
// kernel's derivatives ∂K/∂θ_j, which it returns per block: both from one
// pass over the pairs of inputs (learn.Kernel.GramGradsDist), the Gram matrix
// equal bit for bit to the one compile computes, with the squared
// distances of the inputs computed at the first evaluation and kept
// (kernel.Distances), and written over the storage of the last
// evaluation's (learn.Optimize uses the blocks of one build only until
// the next). Blocks that kept a Gram matrix (a factor graph's joint
// block) get their derivatives in dCov.
func (lb *learnBuilder) gramsAndGrads(mx *compile.Model) ([][]*mat.SymDense, error) {
	grads := make([][]*mat.SymDense, len(mx.Blocks()))
	if len(lb.dists) != len(mx.Blocks()) {
		lb.dists, lb.grams = make([]*kernel.Distances, len(mx.Blocks())), make([]kernel.GramGrad, len(mx.Blocks()))
	}
	for bi, b := range mx.Blocks() {
		if !gaussianProcess(b.Prior) || b.Prior.FITC != nil || b.Prior.Cov != nil {
			continue
		}
		if !lb.dists[bi].Of(b.Prior.X) {
			lb.dists[bi] = kernel.NewDistances(b.Prior.X)
		}
		K, g, err := kernelOf(b.Prior.Kernel).GramGradsDist(b.Prior.X, lb.dists[bi], &lb.grams[bi])
		if err != nil {
			return nil, err
		}
		b.Prior.Cov, grads[bi] = K, g
		lb.grams[bi] = kernel.GramGrad{K: K, Grads: g}
	}
	return grads, nil
}

// hyperUses counts, for each kernel hyperparameter of block bi, the
// learned params whose derivative moves it.
func hyperUses(ds []snapshot, bi int) []int {
	var uses []int
	for _, d := range ds {
		if bi >= len(d.hyper) {
			continue
		}
		if uses == nil {
			uses = make([]int, len(d.hyper[bi]))
		}
		for j, dth := range d.hyper[bi] {
			if dth != 0 {
				uses[j]++
			}
		}
	}
	return uses
}

// dCov returns ∂K/∂x of block bi from the snapshot derivative d: for a gp
// prior Σ_j (∂θ_j/∂x) ∂K/∂θ_j with stdlib/kernel gradients, otherwise the
// differenced covariance; nil when K does not change. A param that moves a
// single hyperparameter j, moved by no other param (uses[j] = 1), scales
// ∂K/∂θ_j in place (the same numbers as a sum into a new matrix).
func (lb *learnBuilder) dCov(b *graph.Block, d snapshot, bi int, grads *[]*mat.SymDense, uses []int) (*mat.SymDense, error) {
	if !gaussianProcess(b.Prior) {
		if d.cov[bi] == nil || mat.Norm(d.cov[bi], math.Inf(1)) == 0 {
			return nil, nil
		}
		return d.cov[bi], nil
	}
	if !nonzero(d.hyper[bi]) {
		return nil, nil
	}
	if *grads == nil {
		g, err := kernelOf(b.Prior.Kernel).Grads(b.Prior.X)
		if err != nil {
			return nil, err
		}
		*grads = g
	}
	only := -1
	for j, dth := range d.hyper[bi] {
		if dth != 0 {
			if only >= 0 {
				only = -1
				break
			}
			only = j
		}
	}
	if only >= 0 && uses[only] == 1 {
		g := (*grads)[only]
		g.ScaleSym(d.hyper[bi][only], g)
		return g, nil
	}
	dK := mat.NewSymDense(b.N, nil)
	for j, dth := range d.hyper[bi] {
		if dth != 0 {
			addScaledSym(dK, dth, (*grads)[j])
		}
	}
	return dK, nil
}

// derivs is the snapshot's derivative in every learned param at x; s0 is
// the snapshot at x. A model of Gaussian blocks or a forest is
// differentiated exactly by forward-mode AD (jetDerivs); what that leaves
// without a derivative by central differences (deriv).
func (lb *learnBuilder) derivs(x []float64, s0 snapshot) ([]snapshot, error) {
	ds, err := lb.jetDerivs(x, s0)
	if err != nil {
		return nil, err
	}
	exact := ds != nil
	if !exact {
		ds = make([]snapshot, len(x))
	}
	for k := range x {
		if exact && !ds[k].hasNaN() {
			continue
		}
		d, err := lb.deriv(x, k, s0)
		if err != nil {
			return nil, err
		}
		if !exact {
			ds[k] = d
			continue
		}
		fillNaN(ds[k], d)
	}
	return ds, nil
}

// deriv differentiates the snapshot in x_k at x by central differences of
// re-evaluated models, or by one-sided second-order differences when the
// model rejects one side (a bound of the param); s0 is the snapshot at x.
// A factor graph set in place (compile.LearnFunc.InPlace) holds the last
// value re-evaluated afterwards, not x.
func (lb *learnBuilder) deriv(x []float64, k int, s0 snapshot) (snapshot, error) {
	h := 1e-6 * math.Max(1, math.Abs(x[k]))
	at := func(off float64) (snapshot, error) {
		xx := append([]float64(nil), x...)
		xx[k] += off
		mm, err := lb.compileAt(xx, false)
		lb.moved = true
		if err != nil {
			return snapshot{}, err
		}
		return snapOf(mm), nil
	}
	p, errP := at(h)
	m, errM := at(-h)
	switch {
	case errP == nil && errM == nil:
		return combine([]snapshot{p, m}, []float64{1 / (2 * h), -1 / (2 * h)}), nil
	case errP == nil:
		p2, err := at(2 * h)
		if err != nil {
			return snapshot{}, err
		}
		return combine([]snapshot{s0, p, p2}, []float64{-1.5 / h, 2 / h, -0.5 / h}), nil
	case errM == nil:
		m2, err := at(-2 * h)
		if err != nil {
			return snapshot{}, err
		}
		return combine([]snapshot{s0, m, m2}, []float64{1.5 / h, -2 / h, 0.5 / h}), nil
	}
	return snapshot{}, errP
}

func snapOf(m *compile.Model) snapshot {
	var s snapshot
	if onMessages(m) {
		s.gvar, s.gaff, s.glik = forestVars(m.FactorGraph), forestAffs(m.FactorGraph), forestLiks(m.FactorGraph)
	}
	if m.Net != nil {
		s.net = netData(m.Net)
	}
	for _, b := range m.Blocks() {
		var hy []float64
		var cov *mat.SymDense
		if gaussianProcess(b.Prior) {
			hy = kernelOf(b.Prior.Kernel).Flat()
		} else {
			cov = b.Prior.Cov
		}
		lik := make([]float64, len(b.Sites))
		for i, st := range b.Sites {
			if g, ok := st.Lik.(factor.ParamGrad); ok {
				_, lik[i], _, _ = g.LearnParam()
			}
		}
		s.hyper, s.lik, s.cov = append(s.hyper, hy), append(s.lik, lik), append(s.cov, cov)
		s.mean = append(s.mean, b.Prior.Mean)
	}
	return s
}

// combine returns Σ_j c_j s_j, with a zero derivative rounded to exactly 0.
func combine(ss []snapshot, c []float64) snapshot {
	out := snapshot{}
	if ss[0].net != nil {
		out.net = combineNet(ss, c)
	}
	if ss[0].gvar != nil {
		out.gvar, out.gaff, out.glik = make([]float64, len(ss[0].gvar)), make([]float64, len(ss[0].gaff)), make([]float64, len(ss[0].glik))
		for j, s := range ss {
			axpy(out.gvar, c[j], s.gvar)
			axpy(out.gaff, c[j], s.gaff)
			axpy(out.glik, c[j], s.glik)
		}
	}
	for bi := range ss[0].hyper {
		hy := make([]float64, len(ss[0].hyper[bi]))
		lik := make([]float64, len(ss[0].lik[bi]))
		var cov *mat.SymDense
		if ss[0].cov[bi] != nil {
			cov = mat.NewSymDense(ss[0].cov[bi].SymmetricDim(), nil)
		}
		for j, s := range ss {
			axpy(hy, c[j], s.hyper[bi])
			axpy(lik, c[j], s.lik[bi])
			if cov != nil {
				addScaledSym(cov, c[j], s.cov[bi])
			}
		}
		mean := make([]float64, len(ss[0].mean[bi]))
		for j, s := range ss {
			axpy(mean, c[j], s.mean[bi])
		}
		out.hyper, out.lik, out.cov = append(out.hyper, hy), append(out.lik, lik), append(out.cov, cov)
		out.mean = append(out.mean, mean)
	}
	return out
}

func axpy(dst []float64, a float64, x []float64) {
	for i := range dst {
		dst[i] += a * x[i]
	}
}

func nonzero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// gaussianProcess reports whether a block's prior is a Gaussian process
// (gp): its covariance kernel(X, X) is differentiated in the kernel's
// hyperparameters rather than differenced.
func gaussianProcess(p graph.Prior) bool {
	return p.Kind.Process() && p.Kind.Family() == graph.Gaussian
}

// kernelOf maps a compiled kernel expression to infer/learn's plain values.
func kernelOf(k graph.KernelSpec) learn.Kernel {
	out := learn.Kernel{Kind: k.Kind, Hyper: append([]float64(nil), k.Hyper...)}
	for _, a := range k.Args {
		out.Args = append(out.Args, kernelOf(a))
	}
	return out
}

// kernelParams flattens HyperParams in the order of learn.Kernel.Flat.
func kernelParams(k graph.KernelSpec) []string {
	if k.Kind.Composite() {
		var out []string
		for _, a := range k.Args {
			out = append(out, kernelParams(a)...)
		}
		return out
	}
	return k.HyperParams
}

// sameStructure reports what differs between two compilations of a model
// beyond what learn may change.
func sameStructure(a, b *compile.Model) error {
	if onMessages(a) {
		return sameGraph(a.FactorGraph, b.FactorGraph)
	}
	if a.Net != nil {
		return sameNet(a.Net, b.Net)
	}
	if len(a.Blocks()) != len(b.Blocks()) {
		return fmt.Errorf("has %d blocks instead of %d", len(b.Blocks()), len(a.Blocks()))
	}
	for i, x := range a.Blocks() {
		y := b.Blocks()[i]
		switch {
		case x.N != y.N || x.Prior.Kind != y.Prior.Kind || len(x.Sites) != len(y.Sites):
			return fmt.Errorf("changes the size, prior kind or sites of %s", x.Name)
		case len(x.Prior.Mean) != len(y.Prior.Mean):
			return fmt.Errorf("changes the size of the prior mean of %s", x.Name)
		case x.Prior.FITC != nil && !equalFloats(x.Prior.Mean, y.Prior.Mean):
			return fmt.Errorf("changes the prior mean of %s, a sparse gp", x.Name)
		case gaussianProcess(x.Prior) && !sameKernelShape(x.Prior.Kernel, y.Prior.Kernel):
			return fmt.Errorf("changes the kernel of %s", x.Name)
		case gaussianProcess(x.Prior) && !mat.Equal(x.Prior.X, y.Prior.X):
			return fmt.Errorf("changes the inputs of %s", x.Name)
		}
		for j, s := range x.Sites {
			t := y.Sites[j]
			if !graph.SameKind(s.Lik, t.Lik) || s.Y != t.Y || s.Index != t.Index || !equalFloats(s.Proj, t.Proj) {
				return fmt.Errorf("changes the data or projection of %s", s.Label)
			}
		}
	}
	return nil
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameKernelShape(a, b graph.KernelSpec) bool {
	if a.Kind != b.Kind || len(a.Hyper) != len(b.Hyper) || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if !sameKernelShape(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

// classify checks at the starting values that every param changes
// something learn can differentiate, and picks the transforms of unbounded
// params: log for a param that is itself a kernel hyperparameter or a
// normal variance, logit on (0, ½) for one that is itself a step eps, log
// for any other positive param that is an argument its builtin declares
// positive (a prior variance), identity otherwise (e.g. log_ell).
func (lb *learnBuilder) classify() error {
	if lb.f == nil {
		f, err := lb.m.LearnFunc()
		if err != nil {
			return err
		}
		lb.f = f
	}
	lb.init = make([]float64, len(lb.params))
	x := make([]float64, len(lb.params))
	for i, p := range lb.params {
		x[i] = p.Init
		lb.init[i] = lb.m.Params[p.Name].Num[0]
	}
	if err := lb.moveZeroStarts(x); err != nil {
		return err
	}
	mx, err := lb.compileAt(x, false)
	if err != nil {
		return err
	}
	ds, err := lb.derivs(x, snapOf(mx))
	if err != nil {
		return err
	}
	for k := range lb.params {
		d := ds[k]
		if !d.any() {
			what := "kernel hyperparameter, prior covariance or likelihood eps/var"
			if lb.m.Net != nil {
				what = "number a prior or likelihood reads"
			}
			return &paramError{name: lb.params[k].Name, msg: fmt.Sprintf("learn: param %s changes no %s of the model, so the evidence does not depend on it", lb.params[k].Name, what)}
		}
		p := &lb.params[k]
		if p.Transform.Kind == learn.Identity {
			p.Transform = directTransform(mx, p.Name, x[k], d)
		}
		if p.Transform.Kind == learn.Identity && x[k] > 0 && lb.f.Positive(p.Name) {
			p.Transform = learn.Transform{Kind: learn.Log}
		}
	}
	return nil
}

// zeroStart is where a learned coefficient that starts at exactly 0
// starts instead (see moveZeroStarts): ten times deriv's step, so that the
// differences at x ± h keep the variable too. (Much closer to 0, e.g.
// 10⁻⁹, infer/mp's EP on a Gaussian whose only links are such
// coefficients fails with an improper cavity.)
const zeroStart = 1e-5

// moveZeroStarts moves to zeroStart the start x[k] of every learned param
// that is exactly 0 there and whose zero drops a variable from the model:
// an affine form keeps no zero term, so a coefficient `a * x[t - 1]` at
// a = 0 compiles to a factor without x[t − 1], and the graph would change
// as soon as a moves (a start on a bound is moved inside it likewise). lb.m
// becomes the model at the moved start; the reported initial values stay.
func (lb *learnBuilder) moveZeroStarts(x []float64) error {
	moved := false
	for k := range x {
		if x[k] != 0 {
			continue
		}
		xx := slices.Clone(x)
		xx[k] = 1e-6
		mm, err := lb.f.At(xx, false)
		if err == nil {
			mm, err = learnView(mm)
		}
		if err != nil || sameStructure(lb.m, mm) == nil {
			continue // an error is reported where the param is differentiated
		}
		x[k], lb.params[k].Init, moved = zeroStart, zeroStart, true
	}
	if !moved {
		return nil
	}
	m0, err := lb.f.At(x, true)
	if err == nil {
		m0, err = learnView(m0)
	}
	if err != nil {
		return err
	}
	lb.m = m0
	return nil
}

func (s snapshot) any() bool {
	if nonzero(s.gvar) || nonzero(s.gaff) || nonzero(s.glik) || slices.ContainsFunc(s.net, nonzero) {
		return true
	}
	for bi := range s.hyper {
		if nonzero(s.hyper[bi]) || nonzero(s.lik[bi]) || nonzero(s.mean[bi]) || (s.cov[bi] != nil && mat.Norm(s.cov[bi], math.Inf(1)) != 0) {
			return true
		}
	}
	return false
}

// directTransform is the transform of an unbounded param named name with
// value v whose snapshot derivative is d.
func directTransform(m *compile.Model, name string, v float64, d snapshot) learn.Transform {
	for _, b := range m.Blocks() {
		if gaussianProcess(b.Prior) && v > 0 {
			for _, n := range kernelParams(b.Prior.Kernel) {
				if n == name {
					return learn.Transform{Kind: learn.Log}
				}
			}
		}
	}
	var kind factor.ParamGrad
	var first graph.Kind // the first such site's likelihood
	for bi, b := range m.Blocks() {
		for i, s := range b.Sites {
			if d.lik[bi][i] == 0 {
				continue
			}
			g, ok := s.Lik.(factor.ParamGrad)
			if !ok {
				return learn.Transform{}
			}
			_, x, _, _ := g.LearnParam()
			if math.Abs(d.lik[bi][i]-1) > 1e-6 || x != v || (first != nil && !graph.SameKind(first, s.Lik)) {
				return learn.Transform{}
			}
			kind, first = g, s.Lik
		}
	}
	if kind == nil || !(v > 0) {
		return learn.Transform{}
	}
	_, _, lo, hi := kind.LearnParam()
	if math.IsInf(hi, 1) {
		return learn.Transform{Kind: learn.Log}
	}
	return learn.Transform{Kind: learn.Logit, Lo: lo, Hi: hi}
}

// addScaledSym sets dst ← dst + a·src (row by row on the upper triangles
// when src is stored as one).
func addScaledSym(dst *mat.SymDense, a float64, src mat.Symmetric) {
	d := dst.RawSymmetric()
	if s, ok := src.(mat.RawSymmetricer); ok && s.RawSymmetric().Uplo == blas.Upper && d.Uplo == blas.Upper {
		sr := s.RawSymmetric()
		for i := 0; i < d.N; i++ {
			floats.AddScaled(d.Data[i*d.Stride+i:i*d.Stride+d.N], a, sr.Data[i*sr.Stride+i:i*sr.Stride+sr.N])
		}
		return
	}
	n := dst.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			dst.SetSym(i, j, dst.At(i, j)+a*src.At(i, j))
		}
	}
}

// learnProgress is the progress report of evaluation n of learn's objective.
func learnProgress(n int, nlz float64, start time.Time) infer.Progress {
	return infer.Progress{Label: "learn", Unit: "evaluation", Done: n, Measure: "-log Z", R: nlz, Elapsed: time.Since(start)}
}
