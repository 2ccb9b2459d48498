package compile

import (
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// The checks of an infer line against a model compiled to a graph.FactorGraph
// (infer/run's factor-graph engines serve it): ep runs infer/fgraph
// (kl, alpha, relaxed_kl under family = full; the schedules it has); exact
// solves linear-Gaussian graphs at any size and integrates the joint by
// quadrature up to infer.MaxQuadDim elements otherwise; mcmc samples the
// joint Gaussian prior. Whatever needs a dense joint is bounded by
// infer.MaxJoint; a graph with a banded precision (a chain of vector
// states: graph.FactorGraph.Banded when linear-Gaussian, SitesBanded with likelihood sites
// on one step's elements under ep) is solved on the band at any size
// within the memory budget. The options of the block engines (shards, passes,
// nonnegative_sites) are refused; bp and t(nu) have no rule for the
// normal priors and conditionals (checkRules).

// checkFactorGraphExact checks exact on a factor graph.
func (c *compiler) checkFactorGraphExact(s *ast.InferStmt) {
	fg := c.m.FactorGraph
	switch {
	case !fg.LinearGaussian():
		if fg.NumVars > infer.MaxQuadDim {
			c.errorf(s.Method, "exact integrates a model with non-Gaussian likelihoods by quadrature over at most %d latent elements; this one has %d: use infer mcmc as the gold standard", infer.MaxQuadDim, fg.NumVars)
		}
	case fg.NumVars > infer.MaxJoint && (len(fg.Dense) > 0 || !fg.Forest()) && !fg.Banded(infer.Banded):
		c.errorf(s.Method, "exact solves this linear-Gaussian graph (not a chain, a tree or a chain of vector states) as one dense Gaussian over at most %d latent elements; it has %d", infer.MaxJoint, fg.NumVars)
	}
}

// checkFactorGraphMCMC checks mcmc on a factor graph.
func (c *compiler) checkFactorGraphMCMC(s *ast.InferStmt) {
	fg := c.m.FactorGraph
	if fg.NumVars > infer.MaxJoint && !fg.SitesBanded(infer.Banded) {
		c.errorf(s.Method, "mcmc samples the joint Gaussian prior of at most %d latent elements unless the model is a chain (factors and sites within a band of the elements' order); this model has %d", infer.MaxJoint, fg.NumVars)
	}
}

// checkFactorGraphEP checks the options of ep on a factor graph.
func (c *compiler) checkFactorGraphEP(s *ast.InferStmt, spec *InferSpec, eng Engine) {
	fg := c.m.FactorGraph
	div := optionValue(s, "divergence")
	_, relaxed := spec.Settings.Divergence.(infer.RelaxedKL)
	c.blockOnlyOptions(s, spec, eng)
	sch := spec.Settings.Schedule
	if spec.Family == infer.FamilyFactorized {
		c.check1(optionValue(s, "schedule"), infer.CheckSchedule("ep on a factor graph under family = factorized", sch, infer.GraphFactorizedSchedules))
		if relaxed {
			c.errorf(div, "relaxed_kl acts on the projections of one joint Gaussian: it needs family = full")
		}
		if len(fg.Dense) > 0 {
			c.errorf(optionValue(s, "family"), "family = factorized keeps one belief per element; the %s prior of `%s` is a dense Gaussian over several elements: use family = full", fg.Dense[0].Prior.Kind.Name(), fg.Dense[0].Name)
		}
		return
	}
	c.check1(optionValue(s, "schedule"), infer.CheckSchedule("ep on a factor graph under family = full", sch, infer.GraphFullSchedules))
	if fg.NumVars > infer.MaxJoint && (len(fg.Dense) > 0 || relaxed || !fg.Forest()) && !(fg.SitesBanded(infer.Banded) && !relaxed) {
		c.errorf(optionValue(s, "family"), "family = full here (a graph with a cycle, a dense gp or mvnormal prior, or relaxed_kl) is one dense Gaussian over at most %d latent elements; this one has %d: use family = factorized",
			infer.MaxJoint, fg.NumVars)
	}
}

// blockOnlyOptions refuses the options of ep that engine eng (message
// passing on a factor graph) does not take: those of the Gaussian-block
// engines (Engine.Options).
func (c *compiler) blockOnlyOptions(s *ast.InferStmt, spec *InferSpec, eng Engine) {
	e, err := infer.Lookup(spec.Method)
	if err != nil {
		return
	}
	for _, k := range infer.InferOptions.Keys() {
		if at := optionValue(s, k); at != ast.Node(s) && e.Accepts(k) && !engineAccepts(eng, e, k) {
			c.errorf(at, "option `%s` applies to the Gaussian-block engines; a factor graph over several latents runs ep by message passing (use max_iter and tol)", k)
		}
	}
}
