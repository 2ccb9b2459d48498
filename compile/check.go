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

// Schedule checks the schedule against each engine the line runs: belief
// propagation on discrete latents, t-EP, fully factorised EP (mini-batch
// factors, family = factorized, with divergence kl only) or EP on Gaussian
// blocks.
func (k *Checker) Schedule() { k.c.checkSchedule(k.Line, k.Spec) }

// EPOptions checks ep's options on Gaussian sites: family = factorized
// (independent priors, a scheme for the whole vector), family = full
// against exp(...) factors coupling elements, nonnegative_sites.
func (k *Checker) EPOptions() { k.c.checkEPOptions(k.Line, k.Spec) }

// MCMC checks the run lengths, each at its option.
func (k *Checker) MCMC() { k.c.checkMCMC(k.Line, k.Spec) }

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
