package compile

import (
	"context"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// refuseLine refuses infer line ck.Line, which no engine serves, at its
// method with err, the method registry's reason (EngineFor). On a typed
// factor graph the reason comes first (it says what runs there);
// elsewhere the method's checks come first (a factor kind without a rule
// under the method is the better reason), and a model whose own errors
// explain the refusal gets no further message.
func (c *compiler) refuseLine(ck *Checker, err error) {
	s, spec := ck.Line, ck.Spec
	if c.isNet() {
		_, lerr := infer.Lookup(spec.Method)
		c.check1(s.Method, lerr)
		c.fail(s.Method, "%v", err)
	}
	ck.Method(func() {
		if c.modelFailed {
			panic(abort{})
		}
		c.fail(s.Method, "%v", err)
	})
}

// checkEPOptions checks the options of ep on Gaussian sites (blocks,
// factor graphs): family = factorized
// against the priors and the scheme, family = full against exp(...)
// factors that couple elements, nonnegative_sites against the engine.
func (c *compiler) checkEPOptions(s *ast.InferStmt, spec *InferSpec) {
	if spec.Method != infer.MethodEP {
		return
	}
	if spec.Family == infer.FamilyFactorized {
		c.checkFactorized(s, spec)
	}
	if spec.Family != infer.FamilyFactorized {
		if _, t := spec.Settings.Divergence.(infer.T); !t {
			c.checkCoupledBatches(s)
		}
	}
	if spec.NonNegativeSites {
		c.checkNonNegative(s, spec)
	}
}

// checkCliqueBudget refuses exact on a discrete graph whose junction tree
// would hold a clique table above infer.MaxCliqueTable. The treewidth
// lower bound is O(n log n) on sparse graphs; the ordering it saves can
// take seconds to minutes.
func (c *compiler) checkCliqueBudget(s *ast.InferStmt) {
	if err := c.m.Graph.CheckCliqueBudget(context.Background(), infer.MaxCliqueTable); err != nil {
		c.fail(s.Method, "infer exact: %v; use infer bp (or infer ep)", err)
	}
}

// checkQuadDim refuses method = quad on a block of more than
// infer.MaxQuadDim elements.
func (c *compiler) checkQuadDim(s *ast.InferStmt, spec *InferSpec) {
	if spec.ExactMethod != string(infer.ExactQuad) {
		return
	}
	for _, b := range c.m.Blocks() {
		if b.N > infer.MaxQuadDim {
			c.fail(optionValue(s, "method"), "method quad integrates at most %d dimensions; `%s` has %d (method is samples any dimension)", infer.MaxQuadDim, b.Name, b.N)
		}
	}
}

// checkNonNegative refuses nonnegative_sites where no engine would apply
// it: the clamp τ̃ ← max(τ̃, 0) acts on the Gaussian sites of block EP (dense,
// FITC, sharded); fully factorised EP (family = factorized, mini-batch
// factors, libsvm streams) and t-EP keep other sites.
func (c *compiler) checkNonNegative(s *ast.InferStmt, spec *InferSpec) {
	at := optionValue(s, "nonnegative_sites")
	if _, ok := spec.Settings.Divergence.(infer.T); ok {
		c.fail(at, "nonnegative_sites applies to Gaussian EP sites; t-EP (divergence %v) does not clamp its sites", spec.Settings.Divergence)
	}
	if spec.Family == infer.FamilyFactorized {
		c.fail(at, "nonnegative_sites applies to the sites of family = full; fully factorised EP does not clamp its sites")
	}
	for _, b := range c.m.Blocks() {
		if len(b.Batches) > 0 || len(b.Streams) > 0 {
			c.fail(at, "nonnegative_sites applies to Gaussian-block EP; `%s` runs fully factorised EP (mini-batch factors or libsvm data), which does not clamp its sites", b.Name)
		}
	}
}

// optionValue returns the value of option key of s, or s itself
// when the option is not written.
func optionValue(s *ast.InferStmt, key string) ast.Node {
	for _, o := range s.Options {
		if o.Key.Name == key {
			return o.Value
		}
	}
	return s
}

// hasDiscrete reports whether the model has discrete latents (served by BP).
func (c *compiler) hasDiscrete() bool {
	for i := range c.m.Graph.Latents {
		if c.m.Graph.Latents[i].Domain.Discrete() {
			return true
		}
	}
	return false
}

// checkSchedule checks the schedule against each engine the line runs.
func (c *compiler) checkSchedule(s *ast.InferStmt, spec *InferSpec) {
	sch := spec.Settings.Schedule
	at := optionValue(s, "schedule")
	if c.hasDiscrete() {
		c.check1(at, infer.CheckSchedule(string(infer.MethodBP), sch, infer.BPSchedules))
		return
	}
	if _, ok := spec.Settings.Divergence.(infer.T); ok {
		c.check1(at, infer.CheckSchedule("t-EP", sch, infer.EPSchedules))
		return
	}
	for _, b := range c.m.Blocks() {
		if len(b.Streams) > 0 {
			continue // libsvm sites: checkStreamInfer
		}
		if len(b.Batches) > 0 || spec.Family == infer.FamilyFactorized {
			c.check1(at, infer.CheckSchedule(factorizedEP, sch, infer.FactorizedSchedules))
			if _, ok := spec.Settings.Divergence.(infer.KL); !ok {
				c.fail(optionValue(s, "divergence"), "%s runs the kl divergence only, not %v", factorizedEP, spec.Settings.Divergence)
			}
		} else {
			c.check1(at, infer.CheckSchedule("ep on Gaussian blocks", sch, infer.EPSchedules))
		}
	}
}

const factorizedEP = "fully factorised EP (mini-batch factors or family = factorized)"

// checkFactorized checks family = factorized: fully factorised EP needs a
// diagonal prior covariance, and a numerical scheme for the whole vector
// (gh only for a single latent element) or approx = exact, the exact
// marginals of each site's projection (checkRules refuses exact for sites
// without closed-form moments).
func (c *compiler) checkFactorized(s *ast.InferStmt, spec *InferSpec) {
	if _, ok := spec.Settings.Divergence.(infer.T); ok {
		return // t-EP has no factorised family; the option is not used
	}
	at := optionValue(s, "family")
	for _, b := range c.m.Blocks() {
		if len(b.Streams) > 0 {
			continue // libsvm sites: checkStreamInfer
		}
		if b.Prior.Kind.Process() || !diagonal(b.Prior) {
			c.fail(at, "family = factorized needs independent priors (normal, or mvnormal with a diagonal covariance); `%s` has a %s prior", b.Name, b.Prior.Kind.Name())
		}
		if spec.Approx.Kind == infer.SchemeGH && b.N > 1 {
			c.fail(optionValue(s, "approx"), "approx = gh integrates one-dimensional projections; family = factorized treats every site as a factor of all %d elements of `%s`: use laplace, quick_laplace, gq or vq", b.N, b.Name)
		}
	}
}

// diagonal reports whether a prior covariance is diagonal (true when it is
// not computed, as for gp priors under Check).
func diagonal(p graph.Prior) bool {
	if p.Cov == nil {
		return true
	}
	n := p.Cov.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if p.Cov.At(i, j) != 0 {
				return false
			}
		}
	}
	return true
}

// settleApprox sets the approx of an ep line that does not write one to
// defaultApprox: ep's default scheme depends on the model's sites, so the
// method registry's default (exact, infer.Defaults) is only where a line
// starts. It runs first among the method's checks (Checker.Method),
// which read the scheme; the engines of typed factor graphs take no
// approx and never call it.
func (c *compiler) settleApprox(spec *InferSpec) {
	if _, written := spec.Options["approx"]; spec.Method == infer.MethodEP && !written {
		spec.Approx = c.defaultApprox()
	}
}

// defaultApprox is exact when every site has its own Tilted rule
// (closed-form or fixed-quadrature moments: probit, step, normal, ...),
// gh(n = 32) when some site has none (logistic) but there are no
// mini-batch factors, and vq when there are exp(...) factors. It is the
// scheme of the sites without a rule: without an approx option a site
// with its own rule keeps it (infer/run's epLikelihood).
func (c *compiler) defaultApprox() infer.Scheme {
	approx := infer.Scheme{Kind: infer.SchemeExact}
	gh := func(s graph.Site) {
		if _, ok := s.Lik.(factor.Tilted); !ok {
			approx = infer.Scheme{Kind: infer.SchemeGH, N: infer.DefaultGHNodes}
		}
	}
	for _, b := range c.m.Blocks() {
		if len(b.Batches) > 0 {
			return infer.Scheme{Kind: infer.SchemeVQ}
		}
		for _, s := range b.Sites {
			gh(s)
		}
	}
	if g := c.m.FactorGraph; g != nil {
		for s := range g.SharedSites() {
			gh(*s)
		}
	}
	return approx
}
