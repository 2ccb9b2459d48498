package compile

import (
	"github.com/fg-infer/fg/lang/ast"
)

// Checker is what an engine's Supports sees of the infer line it checks: the
// line's source (Line, whose nodes carry the positions of refusals), its
// settings (Spec; Supports may settle the options the engine fixes), the
// model, Fail to refuse the line at one of its nodes, and compile's checks
// as building blocks that each engine composes in its Supports.
type Checker struct {
	c    *compiler
	eng  Engine
	Line *ast.InferStmt
	Spec *InferSpec
}

// Model is the model the line runs on.
func (k *Checker) Model() *Model { return k.c.m }

// Fail refuses the line with a message spanning node at of it, and ends
// the check: the refusals after the first that makes the rest meaningless
// are not reported.
func (k *Checker) Fail(at ast.Node, format string, args ...any) { k.c.fail(at, format, args...) }

// Option is the value of option key as written on the line, or the line
// itself when the option is not written (a refusal of a default).
func (k *Checker) Option(key string) ast.Node { return optionValue(k.Line, key) }

// Method runs the checks that hold for every engine of the line's method
// on Gaussian blocks, factor graphs of real latents and discrete latents,
// around own, the engine's own checks, in the order of their refusals:
// Rules, Draws and FITC before, Streams and Shards after. It first settles
// ep's default approx, which the checks read (Approx). own may be nil.
func (k *Checker) Method(own func()) {
	k.Approx()
	k.Rules()
	k.Draws()
	k.FITC()
	if own != nil {
		own()
	}
	k.Streams()
	k.Shards()
}

// Approx settles the approx of an ep line that does not write one: the
// default depends on the sites — exact when each has closed-form or
// fixed-quadrature moments (its Tilted rule), gh(n = 32) when some has
// none, vq with mini-batch exp(...) factors — so it is decided here, with
// the model, not by the method's registry entry.
func (k *Checker) Approx() { k.c.settleApprox(k.Spec) }

// Rules checks that the method handles every factor kind of the model
// under its divergence (package factor's rule table), a numerical scheme
// for the sites without closed-form moments, t(nu) against the priors'
// degrees of freedom; it warns about experimental rules.
func (k *Checker) Rules() { k.c.checkRules(k.Line, k.Spec) }

// Draws checks the memory of the draws mcmc keeps.
func (k *Checker) Draws() { k.c.checkDraws(k.Line, k.Spec) }

// FITC refuses a method, divergence, family or schedule that cannot run a
// block with a sparse gp prior (inducing = ...).
func (k *Checker) FITC() { k.c.checkFITC(k.Line, k.Spec) }

// Streams checks the line against libsvm sites (streamed from disk) and
// settles their family and approx.
func (k *Checker) Streams() {
	given := map[string]ast.Node{}
	for _, o := range k.Line.Options {
		given[o.Key.Name] = o.Value
	}
	k.c.checkStreamInfer(k.Line, k.Spec, given)
}

// Shards checks shards = K against the divergence, family, priors and
// sites of the blocks.
func (k *Checker) Shards() { k.c.checkShards(k.Line, k.Spec) }

// NetOptions refuses, at its key, an option of the line that the engine of
// a typed factor graph does not take (Engine.Options).
func (k *Checker) NetOptions() { k.c.checkEngineOptions(k.Line, k.Spec, k.eng, netModel) }

// DiscreteOptions refuses, at its key, an option of the line that the
// engine of discrete latents does not take (Engine.Options): ep's options
// on Gaussian blocks and sites (shards, passes, nonnegative_sites, approx,
// family) have nothing to act on there.
func (k *Checker) DiscreteOptions() {
	k.c.checkEngineOptions(k.Line, k.Spec, k.eng, "discrete latents")
}

// Schedule checks the schedule against each engine the line runs: belief
// propagation on discrete latents, t-EP, fully factorised EP (mini-batch
// factors, family = factorized, with divergence kl only) or EP on Gaussian
// blocks.
func (k *Checker) Schedule() { k.c.checkSchedule(k.Line, k.Spec) }

// EPOptions checks ep's options on Gaussian sites: family = factorized
// (independent priors, a scheme for the whole vector), family = full
// against exp(...) factors coupling elements, nonnegative_sites.
func (k *Checker) EPOptions() { k.c.checkEPOptions(k.Line, k.Spec) }

// QuadDim checks method = quad against the dimension of every block.
func (k *Checker) QuadDim() { k.c.checkQuadDim(k.Line, k.Spec) }

// CliqueBudget refuses a discrete graph whose junction tree needs a clique
// table above infer.MaxCliqueTable (a treewidth lower bound, before any
// ordering).
func (k *Checker) CliqueBudget() { k.c.checkCliqueBudget(k.Line) }

// FactorGraphEP checks ep on a factor graph of real latents (infer/fgraph):
// the options of the Gaussian-block engines, the schedules of each family,
// the dense joint of family = full.
func (k *Checker) FactorGraphEP() { k.c.checkFactorGraphEP(k.Line, k.Spec, k.eng) }

// FactorGraphExact checks exact on a factor graph of real latents:
// quadrature's dimension, the dense joint of a linear-Gaussian graph that
// is not a forest or a band.
func (k *Checker) FactorGraphExact() { k.c.checkFactorGraphExact(k.Line) }

// FactorGraphMCMC checks mcmc on a factor graph of real latents: the joint
// Gaussian prior it samples, unless the graph is a chain.
func (k *Checker) FactorGraphMCMC() { k.c.checkFactorGraphMCMC(k.Line) }

// GatesEP checks ep on gated likelihoods and settles family = factorized.
func (k *Checker) GatesEP() { k.c.checkGatesEP(k.Line, k.Spec, k.eng) }

// GatesExact checks exact on gated likelihoods: the selector
// configurations it enumerates, or quadrature's dimension.
func (k *Checker) GatesExact() { k.c.checkGatesExact(k.Line) }

// GatesMCMC checks mcmc on gated likelihoods: the dense joint it samples.
func (k *Checker) GatesMCMC() { k.c.checkGatesMCMC(k.Line) }

// NetEP checks ep's divergence and schedule on a typed factor graph (the
// engine checks the graph itself).
func (k *Checker) NetEP() { k.c.checkNetEP(k.Line, k.Spec) }
