package infer

import (
	"fmt"
	"slices"
)

// This file is the method registry: one entry per method of an infer line
// (ep, bp, exact, mcmc) with the options it accepts, their defaults, and
// which of the internal engines serves a model of each structure. compile
// asks it which options apply and which engine a line will run on (and
// refuses, with a position, a line no engine serves); the engine it names
// is a type in infer/run (compile.Engine: its options, its Supports and
// its Run). The names themselves are in names.go.

// Defaults of the infer options besides the tolerances and sweep budgets
// (iterate.go: DefaultMomentTol and DefaultMaxIter for ep, DefaultBeliefTol
// and DefaultBPMaxIter for bp).
const (
	MCMCSamples = 10000
	MCMCBurnin  = 1000
	MCMCChains  = 4
	DefaultSeed = 1
)

// Size limits of the internal engines, checked by compile before anything
// is allocated and by the engines themselves (and MaxQuadDim, options.go).
const (
	// MaxJoint bounds the dense joint Gaussian of a factor graph
	// (infer/fgraph under family = full on a loopy graph, exact on a
	// linear-Gaussian graph that is not a forest, the joint prior that
	// exact quadrature and elliptical slice sampling work on).
	MaxJoint = 4000
	// MaxConfigurations bounds the selector configurations exact
	// enumerates on a conditionally Gaussian gated graph (infer/fgraph).
	MaxConfigurations = 1 << 20
	// MaxCliqueTable bounds the entries of one clique table of exact on a
	// discrete graph (infer/jtree): 2²⁵, 256 MiB of float64 per table.
	MaxCliqueTable = 1 << 25
	// MaxStates bounds the states of a selector of gated likelihoods
	// (one branch per state).
	MaxStates = 1 << 12
	// MaxBand is the largest half-bandwidth of a Gaussian precision
	// stored and factored as a band (Banded).
	MaxBand = 16
)

// Banded reports whether a Gaussian over n variables whose factors couple
// variables at most k apart in their order is solved as a band (0 ≤ k ≤
// MaxBand and 4(k+1) ≤ n), at O(n k) memory and O(n k²) time with no bound
// on n, rather than dense: infer/netjoint's GaussBlock, and through it
// infer/fgraph on a chain of vector states, whose half-bandwidth compile
// checks to lift MaxJoint.
func Banded(n, k int) bool { return k >= 0 && k <= MaxBand && 4*(k+1) <= n }

// Structure is the shape of a compiled model as the engines see it;
// compile decides it once (compile.Model.Structure) and every method
// chooses its engine by it.
type Structure int

// The model structures.
const (
	// Blocks: independent Gaussian blocks, each a real latent vector with
	// its sites on projections aᵀw (and mini-batch or streamed factors).
	Blocks Structure = iota
	// FactorGraph: a factor graph over several real latents
	// (compile.FactorGraph).
	FactorGraph
	// Gated: a factor graph whose discrete latents select the parameters
	// of likelihoods (compile.FactorGraph.Gates).
	Gated
	// Discrete: discrete latents only (table factors).
	Discrete
	// Mixed: discrete and real latents in one graph without gates.
	Mixed
	// Net: a typed factor graph (graph.Net, compile.Model.Net): latents of
	// a family other than the Gaussian, likelihoods with latent
	// parameters, or a discrete chain.
	Net
)

// Engine is the internal engine a method runs on a model structure: the
// key of its implementation (compile.EngineOf; the types are in infer/run).
type Engine int

// The internal engines.
const (
	NoEngine Engine = iota
	// BlockEP: EP on each Gaussian block (infer/ep, infer/tep for t(nu),
	// infer/ffep for numerical schemes and family = factorized,
	// infer/stream for libsvm sites, infer/shard for shards, FITC).
	BlockEP
	// BlockQuadrature: quadrature / importance sampling on each block (infer/exact).
	BlockQuadrature
	// BlockESS: elliptical slice sampling on each block (infer/mcmc).
	BlockESS
	// GraphEP: message passing on a factor graph of real latents (infer/fgraph).
	GraphEP
	// GraphExact: the exact posterior of a linear-Gaussian factor graph
	// (infer/fgraph), else quadrature on its joint Gaussian prior (infer/exact).
	GraphExact
	// GraphESS: elliptical slice sampling on the joint Gaussian prior of a
	// factor graph (infer/mcmc).
	GraphESS
	// GatedEP: BP on the selectors, EP on the Gaussian side (infer/fgraph).
	GatedEP
	// GatedExact: enumeration of the selectors, or quadrature with the
	// selectors summed out (infer/fgraph, infer/exact).
	GatedExact
	// GatedMCMC: Gibbs on the selectors within elliptical slice sampling
	// (infer/mcmc.RunMixed).
	GatedMCMC
	// BP: belief propagation on discrete factors (infer/bp).
	BP
	// JunctionTree: the exact marginals of discrete factors (infer/jtree).
	JunctionTree
	// Gibbs: Gibbs sampling of discrete latents (infer/mcmc).
	Gibbs
	// NetEP: EP, power EP and VMP (alpha(0)) on a typed factor graph (infer/mp).
	NetEP
	// NetExact: the exact posterior of a typed factor graph (infer/exact's
	// RunNet: forward–backward, enumeration × closed form, quadrature).
	NetExact
	// NetMCMC: Gibbs and slice sampling on a typed factor graph (infer/mcmc).
	NetMCMC
)

// Entry is one method of the registry.
type Entry struct {
	Method Method
	// Options are the keys of the options an infer line with the method
	// accepts besides seed, which every method accepts.
	Options []string
	// Settings and MCMC are the defaults of a line that sets no option.
	Settings Settings
	MCMC     MCMCSpec
	// engines is the engine serving each structure; a missing structure
	// is refused with refuse.
	engines map[Structure]Engine
	refuse  func(Structure) error
}

// The options of the methods.
var (
	iterOptions = []string{"divergence", "schedule", "damping", "adapt_damping", "tol", "max_iter"}
	epOptions   = append(append([]string(nil), iterOptions...), "approx", "family", "passes", "nonnegative_sites", "shards")
	mcmcOptions = []string{"samples", "burnin", "chains"}
	// exactOptions: the integrator of exact on a continuous block.
	exactOptions = []string{"method"}
)

// The option sets of the engines that take fewer options than their
// method (each engine's Options, infer/run): message passing on a factor
// graph (with or without gates) has no shards, passes or nonnegative_sites,
// which act on Gaussian blocks; the engines of typed factor graphs take
// the options of their loop (NetEP), none (NetExact), or the run lengths
// and seed (NetMCMC).
var (
	// LoopOptions are the options of the iteration loop.
	LoopOptions = slices.Clip(iterOptions)
	// GraphEPOptions are those of message passing on a factor graph.
	GraphEPOptions = slices.Clip(append(append([]string(nil), iterOptions...), "seed", "approx", "family"))
	// SamplerOptions are the run lengths of a sampler and its seed.
	SamplerOptions = slices.Clip(append(append([]string(nil), mcmcOptions...), "seed"))
	// NoOptions is the set of an engine that takes no option.
	NoOptions = []string{}
)

// OptionKeys are the keys an infer line accepts, in the order error
// messages list them.
var OptionKeys = slices.Concat(iterOptions, []string{"seed"}, epOptions[len(iterOptions):], mcmcOptions, exactOptions)

// Registry holds the entries of the methods.
var Registry = map[Method]*Entry{
	MethodEP: {
		Method: MethodEP, Options: epOptions,
		Settings: Settings{Divergence: KL{}, Tol: DefaultMomentTol, MaxIter: DefaultMaxIter, Damping: 1, Seed: DefaultSeed},
		engines:  map[Structure]Engine{Blocks: BlockEP, FactorGraph: GraphEP, Gated: GatedEP, Discrete: BP, Net: NetEP},
	},
	MethodBP: {
		Method: MethodBP, Options: iterOptions,
		Settings: Settings{Divergence: KL{}, Tol: DefaultBeliefTol, MaxIter: DefaultBPMaxIter, Damping: 1, Seed: DefaultSeed},
		engines:  map[Structure]Engine{Discrete: BP},
		refuse: func(s Structure) error {
			switch s {
			case Gated:
				return fmt.Errorf("%s does not run on gated likelihoods (discrete latents selecting the parameters of likelihoods on real latents): use %s, %s or %s", MethodBP, MethodEP, MethodExact, MethodMCMC)
			case FactorGraph:
				return fmt.Errorf("%s does not run on real latents; use %s, %s or %s", MethodBP, MethodEP, MethodExact, MethodMCMC)
			case Net:
				return fmt.Errorf("%s does not run on models with beta, gamma, inv_gamma or dirichlet latents or discrete chains; use %s (kl, alpha(a), or alpha(0) for VMP)", MethodBP, MethodEP)
			}
			return fmt.Errorf("%s needs discrete latents; use %s for the real latents of this model", MethodBP, MethodEP)
		},
	},
	MethodExact: {
		Method: MethodExact, Options: exactOptions, Settings: Settings{Damping: 1, Seed: DefaultSeed},
		engines: map[Structure]Engine{Blocks: BlockQuadrature, FactorGraph: GraphExact, Gated: GatedExact, Discrete: JunctionTree, Net: NetExact},
	},
	MethodMCMC: {
		Method: MethodMCMC, Options: mcmcOptions, Settings: Settings{Damping: 1, Seed: DefaultSeed},
		MCMC:    MCMCSpec{Samples: MCMCSamples, Burnin: MCMCBurnin, Chains: MCMCChains},
		engines: map[Structure]Engine{Blocks: BlockESS, FactorGraph: GraphESS, Gated: GatedMCMC, Discrete: Gibbs, Net: NetMCMC},
	},
}

// Lookup returns the entry of method m.
func Lookup(m Method) (*Entry, error) {
	if e, ok := Registry[m]; ok {
		return e, nil
	}
	_, err := ParseMethod(string(m))
	return nil, err
}

// Accepts reports whether an infer line with the method takes option key.
func (e *Entry) Accepts(key string) bool {
	return key == "seed" || slices.Contains(e.Options, key)
}

// MethodsAccepting lists the methods that take option key.
func MethodsAccepting(key string) []Method {
	var out []Method
	for _, m := range Methods {
		if Registry[m].Accepts(key) {
			out = append(out, m)
		}
	}
	return out
}

// Engine returns the engine that serves a model of structure s, or an
// error saying why none does.
func (e *Entry) Engine(s Structure) (Engine, error) {
	switch s {
	case Mixed:
		return NoEngine, fmt.Errorf("the model mixes discrete and real latents; no engine of fg handles both in one graph yet")
	}
	if eng, ok := e.engines[s]; ok {
		return eng, nil
	}
	if e.refuse != nil {
		return NoEngine, e.refuse(s)
	}
	return NoEngine, fmt.Errorf("%s does not run on this model", e.Method)
}
