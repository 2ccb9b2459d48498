package compile

import (
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// netModel is the description of a Net model in messages.
const netModel = infer.NetModel

// isNet reports whether the model lowers (or was lowered) to a graph.Net.
func (c *compiler) isNet() bool { return c.net != nil || c.m.Net != nil }

// netRefuse fails on a statement a Net model does not support.
func (c *compiler) netRefuse(at ast.Node, what string) {
	c.fail(at, "%s are not supported in %s", what, netModel)
}

// checkEngineOptions refuses, at its key, an option of infer line s that
// eng, an engine of the model described by model, does not take
// (Engine.Options). On a typed factor graph (netModel), ep is message
// passing in each variable's family (kl is EP, alpha(a) power EP, alpha(0)
// the exclusive-KL limit, variational message passing), exact and mcmc
// the gold standards, and the options of the Gaussian engines do not
// apply; on discrete latents, ep and bp are belief propagation.
func (c *compiler) checkEngineOptions(s *ast.InferStmt, spec *InferSpec, eng Engine, model string) {
	e, err := infer.Lookup(spec.Method)
	c.check1(s.Method, err)
	for _, o := range s.Options {
		if !engineAccepts(eng, e, o.Key.Name) {
			c.fail(o.Key, "option `%s` does not apply to %s on %s; it takes %s", o.Key.Name, spec.Method, model, optionList(engineOptions(eng, e).Keys()))
		}
	}
}

// checkNetEP checks ep's divergence and schedule on a Net model.
func (c *compiler) checkNetEP(s *ast.InferStmt, spec *InferSpec) {
	switch d := spec.Settings.Divergence.(type) {
	case infer.KL, infer.Alpha:
	default:
		c.fail(optionValue(s, "divergence"), "divergence %v does not run on %s: use kl, alpha(a) or alpha(0) (variational message passing)", d, netModel)
	}
	c.check1(optionValue(s, "schedule"), infer.CheckSchedule("ep on a typed factor graph", spec.Settings.Schedule, infer.NetSchedules))
}

// optionList renders a list of options, or "none".
func optionList(xs []string) string {
	if len(xs) == 0 {
		return "no options"
	}
	return joinQuoted(xs)
}

// vmpLimit reports whether d is alpha(0), the exclusive-KL limit of power
// EP that is variational message passing (Minka 2005): a divergence of
// its own on a Net model, whose kinds carry VMP rules; elsewhere it is
// refused at at, since power EP needs a > 0 there.
func (c *compiler) vmpLimit(at ast.Node, d infer.Divergence) bool {
	if a, ok := d.(infer.Alpha); !ok || a.A != 0 {
		return false
	}
	if !c.isNet() {
		c.fail(at, "alpha needs 0 < a ≤ 1, got 0 on this model: alpha(0), variational message passing, runs on %s", netModel)
	}
	return true
}
