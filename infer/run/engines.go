package run

import (
	"context"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/exact"
	"github.com/fg-infer/fg/infer/mp"
)

// The internal engines, one type each (compile.Engine): the options it
// takes, its check of an infer line — compile's building blocks
// (compile.Checker) and, on typed factor graphs, the engine package's own
// check of the graph — and its runner, a method of job. registry says
// which method each runs on which model structure (infer.Structure);
// adding an engine is its package under infer/, its runner (a method of
// job), its type here and its line in registry.
var registry = []struct {
	method    infer.Method
	structure infer.Structure
	engine    compile.Engine
}{
	{infer.MethodEP, infer.Blocks, blockEP{}},
	{infer.MethodEP, infer.FactorGraph, graphEP{}},
	{infer.MethodEP, infer.Gated, gatedEP{}},
	{infer.MethodEP, infer.Discrete, beliefProp{}},
	{infer.MethodEP, infer.Net, netEP{}},
	{infer.MethodBP, infer.Discrete, beliefProp{}},
	{infer.MethodExact, infer.Blocks, blockQuadrature{}},
	{infer.MethodExact, infer.FactorGraph, graphExact{}},
	{infer.MethodExact, infer.Gated, gatedExact{}},
	{infer.MethodExact, infer.Discrete, junctionTree{}},
	{infer.MethodExact, infer.Net, netExact{}},
	{infer.MethodMCMC, infer.Blocks, blockESS{}},
	{infer.MethodMCMC, infer.FactorGraph, graphESS{}},
	{infer.MethodMCMC, infer.Gated, gatedMCMC{}},
	{infer.MethodMCMC, infer.Discrete, gibbs{}},
	{infer.MethodMCMC, infer.Net, netMCMC{}},
}

func init() {
	for _, r := range registry {
		compile.RegisterEngine(r.method, r.structure, r.engine)
	}
}

// methodOptions is embedded by the engines that take every option of
// their method.
type methodOptions struct{}

func (methodOptions) Options() *infer.LineSchema { return nil }

// blockEP is EP on each Gaussian block (infer/ep; infer/tep for t(nu),
// infer/ffep for numerical schemes and family = factorized, infer/stream
// for libsvm sites, infer/shard for shards, FITC).
type blockEP struct{ methodOptions }

func (blockEP) Supports(ck *compile.Checker) {
	ck.Method(func() {
		ck.Schedule()
		ck.EPOptions()
	})
}

func (blockEP) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.runBlocks(j.epBlock) })
}

// blockQuadrature is quadrature or importance sampling on each block (infer/exact).
type blockQuadrature struct{ methodOptions }

func (blockQuadrature) Supports(ck *compile.Checker) { ck.Method(ck.QuadDim) }

func (blockQuadrature) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.runBlocks(j.exactBlock) })
}

// blockESS is elliptical slice sampling on each block (infer/mcmc).
type blockESS struct{ methodOptions }

func (blockESS) Supports(ck *compile.Checker) { ck.Method(nil) }

func (blockESS) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.runBlocks(j.essBlock) })
}

// graphEP is message passing on a factor graph of real latents (infer/fgraph).
type graphEP struct{}

func (graphEP) Options() *infer.LineSchema { return infer.GraphEPOptions }

func (graphEP) Supports(ck *compile.Checker) {
	ck.Method(func() {
		ck.FactorGraphEP()
		ck.Schedule()
		ck.EPOptions()
	})
}

func (graphEP) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.fgMessages(m.FactorGraph, false) })
}

// graphExact is the exact posterior of a linear-Gaussian factor graph
// (infer/fgraph), else quadrature on its joint Gaussian prior (infer/exact).
type graphExact struct{ methodOptions }

func (graphExact) Supports(ck *compile.Checker) {
	ck.Method(func() {
		ck.FactorGraphExact()
		ck.QuadDim()
	})
}

func (graphExact) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.fgExact(m.FactorGraph) })
}

// graphESS samples the joint Gaussian prior of a factor graph (infer/mcmc:
// elliptical slice sampling, particle Gibbs on chains).
type graphESS struct{ methodOptions }

func (graphESS) Supports(ck *compile.Checker) {
	ck.Method(ck.FactorGraphMCMC)
}

func (graphESS) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.fgMCMC(m.FactorGraph) })
}

// gatedEP is BP on the selectors of gated likelihoods, EP on the Gaussian
// side (infer/fgraph).
type gatedEP struct{}

func (gatedEP) Options() *infer.LineSchema { return infer.GraphEPOptions }

func (gatedEP) Supports(ck *compile.Checker) { ck.Method(ck.GatesEP) }

func (gatedEP) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.gatedEP(m.FactorGraph) })
}

// gatedExact enumerates the selectors of gated likelihoods, or integrates
// with the selectors summed out (infer/fgraph, infer/exact).
type gatedExact struct{ methodOptions }

func (gatedExact) Supports(ck *compile.Checker) { ck.Method(ck.GatesExact) }

func (gatedExact) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.gatedExact(m.FactorGraph) })
}

// gatedMCMC is Gibbs on the selectors within elliptical slice sampling
// (infer/mcmc.RunMixed).
type gatedMCMC struct{ methodOptions }

func (gatedMCMC) Supports(ck *compile.Checker) {
	ck.Method(ck.GatesMCMC)
}

func (gatedMCMC) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, func(j *job) error { return j.gatedMCMC(m.FactorGraph) })
}

// beliefProp is belief propagation on discrete factors (infer/bp), run by
// bp and by ep on discrete latents: the options of its loop and seed.
type beliefProp struct{}

func (beliefProp) Options() *infer.LineSchema { return infer.BeliefOptions }

func (beliefProp) Supports(ck *compile.Checker) {
	ck.Method(func() {
		ck.DiscreteOptions()
		ck.Schedule()
		ck.EPOptions()
	})
}

func (beliefProp) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, (*job).runBP)
}

// junctionTree is the exact marginals of discrete factors (infer/jtree).
type junctionTree struct{ methodOptions }

func (junctionTree) Supports(ck *compile.Checker) {
	ck.Method(func() {
		ck.CliqueBudget()
		ck.QuadDim()
	})
}

func (junctionTree) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, (*job).runJTree)
}

// gibbs is Gibbs sampling of discrete latents (infer/mcmc).
type gibbs struct{ methodOptions }

func (gibbs) Supports(ck *compile.Checker) { ck.Method(nil) }

func (gibbs) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, (*job).runGibbs)
}

// netEP is EP, power EP and VMP (alpha(0)) on a typed factor graph
// (infer/mp), which checks the graph's rules under the divergence itself.
type netEP struct{}

func (netEP) Options() *infer.LineSchema { return infer.LoopOptions }

func (netEP) Supports(ck *compile.Checker) {
	ck.NetOptions()
	ck.NetEP()
	net := ck.Model().Net
	if net == nil {
		return // the model's own errors stopped its lowering
	}
	alpha, err := mpAlpha(ck.Spec.Settings.Divergence)
	if err != nil {
		ck.Fail(ck.Option("divergence"), "%v", err)
	}
	if d := mp.Supports(net, mp.Options{Alpha: alpha}); len(d) > 0 {
		ck.Fail(ck.Line.Method, "ep with divergence %v cannot run this model: %s (at %s)", ck.Spec.Settings.Divergence, d[0].Msg, d[0].Pos)
	}
}

func (netEP) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, (*job).runMP)
}

// netExact is the exact posterior of a typed factor graph (infer/exact's
// RunNet: forward–backward, enumeration × closed form, quadrature), which
// refuses a graph it cannot plan.
type netExact struct{}

func (netExact) Options() *infer.LineSchema { return infer.NoOptions }

func (netExact) Supports(ck *compile.Checker) {
	ck.NetOptions()
	if net := ck.Model().Net; net != nil {
		if _, err := exact.PlanNet(net); err != nil {
			ck.Fail(ck.Line.Method, "%s", err.Error())
		}
	}
}

func (netExact) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, (*job).runNetExact)
}

// netMCMC is Gibbs and slice sampling on a typed factor graph (infer/mcmc).
type netMCMC struct{}

func (netMCMC) Options() *infer.LineSchema { return infer.SamplerOptions }

func (netMCMC) Supports(ck *compile.Checker) { ck.NetOptions() }

func (netMCMC) Run(ctx context.Context, m *compile.Model, s *compile.InferSpec, p func(infer.Progress)) (*infer.Result, error) {
	return runJob(ctx, m, s, p, (*job).runNetMCMC)
}
