package infer

import "fmt"

// This file is the method registry: one entry per method of an infer line
// (ep, bp, exact, mcmc) with the options it accepts (its schema: schema.go,
// where each option's default per method is given), the default-tolerance
// policy, and the reason a method gives for a model structure none of its
// engines serves. The engines are types in
// infer/run (compile.Engine: their options, Supports and Run), each
// registered there for the methods and structures it serves
// (compile.RegisterEngine); compile asks the registry which options apply
// and refuses, with a position, a line no engine serves. The names
// themselves are in names.go.

// The default-tolerance policy: one tolerance and one budget per quantity
// a loop measures, given here and nowhere else. The options' defaults
// (schema.go) hand them to the infer lines; the engines that are also Go entries fill a
// zero Tol or MaxIter from them (Settings.WithDefaults) and hold no
// literal of their own for these quantities.
const (
	// DefaultMomentTol bounds the change of Gaussian moments per sweep
	// (posterior means, and standard deviations where an engine measures
	// them): EP in every family, t-EP, sharded and streamed EP, message
	// passing on typed factor graphs.
	DefaultMomentTol = 1e-6
	// DefaultBeliefTol bounds the largest change of a discrete belief's
	// probability per pass (BP; libDAI's test and default).
	DefaultBeliefTol = 1e-9
	// DefaultMaxIter is the sweep budget of EP-family engines.
	DefaultMaxIter = 200
	// DefaultBPMaxIter is BP's pass budget (libDAI's default).
	DefaultBPMaxIter = 10000
	// DefaultQuadTol is the target error of exact's adaptive quadrature
	// on a Gaussian block (log Z absolute, means and covariances relative
	// to the posterior standard deviations; infer/exact.Settings.Tol).
	DefaultQuadTol = 1e-6
	// StepQuadTol replaces DefaultQuadTol on a block with a step site:
	// the discontinuous integrand makes the error bound shrink only
	// linearly with the cell size while the actual errors are far smaller
	// (infer/exact's tests).
	StepQuadTol = 1e-3
	// NetQuadTol is the target error of the quadrature of exact on a
	// typed factor graph (infer/exact.NetSettings.Tol).
	NetQuadTol = 1e-8
)

// Defaults of the options of a learn line (infer.LearnOptions' zero
// values): the gradient optimiser of the EP evidence (infer/learn) and
// Nelder–Mead on the t-EP evidence (infer/run's learnT).
const (
	DefaultLearnIter  = 100  // optimiser iterations
	DefaultLearnTol   = 1e-5 // on ‖∂(−log Z)/∂u‖∞, scaled by the sites
	DefaultTLearnEval = 200  // Nelder–Mead's evaluations
	DefaultTLearnTol  = 1e-6 // on the change of −log Z over 20 iterations
	// DefaultTLearnEPMaxIter bounds the damped t-EP run of each of
	// Nelder–Mead's evaluations.
	DefaultTLearnEPMaxIter = 500
	// DefaultLearnFuncTol stops the gradient optimiser when −log Z
	// improved by less than it over 10 iterations.
	DefaultLearnFuncTol = 1e-9
	// DefaultLearnEPTol and DefaultLearnEPMaxIter are the EP settings of
	// each evidence evaluation near the optimum: tighter than a run's
	// (DefaultMomentTol) since the gradient is exact only at EP's fixed
	// point (infer/learn.Optimize adapts the tolerance on the way there).
	DefaultLearnEPTol     = 1e-9
	DefaultLearnEPMaxIter = 1000
)

// Defaults of the other infer options.
const (
	MCMCSamples = 10000
	MCMCBurnin  = 1000
	MCMCChains  = 4
	DefaultSeed = 1
)

// WithDefaults returns s with a zero Tol or MaxIter set to the default of
// method m (its registry entry's Defaults): a Go caller's zero Settings
// then runs as an infer line that sets neither option.
func (s Settings) WithDefaults(m Method) Settings {
	d := Registry[m].Defaults.Settings
	if s.Tol == 0 {
		s.Tol = d.Tol
	}
	if s.MaxIter == 0 {
		s.MaxIter = d.MaxIter
	}
	return s
}

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
	// (graph.FactorGraph).
	FactorGraph
	// Gated: a factor graph whose discrete latents select the parameters
	// of likelihoods (graph.FactorGraph.Gates).
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

// NetModel describes a model of structure Net in messages.
const NetModel = "a model with beta, gamma, inv_gamma or dirichlet latents, likelihoods with latent parameters or discrete chains"

// Entry is one method of the registry.
type Entry struct {
	Method Method
	// Options are the options an infer line with the method accepts
	// (schema.go).
	Options *LineSchema
	// Defaults are the options of a line that sets none (each option's
	// Default for the method: Defaults).
	Defaults LineOptions
	// refuse says why no engine of the method serves a structure (nil:
	// the method does not run on this model).
	refuse func(Structure) error
}

// Registry holds the entries of the methods.
var Registry = map[Method]*Entry{
	MethodEP: {Method: MethodEP, Options: epOptions, Defaults: Defaults(MethodEP)},
	MethodBP: {
		Method: MethodBP, Options: BeliefOptions, Defaults: Defaults(MethodBP),
		refuse: func(s Structure) error {
			switch s {
			case Gated:
				return fmt.Errorf("%s does not run on gated likelihoods (discrete latents selecting the parameters of likelihoods on real latents): use %s, %s or %s", MethodBP, MethodEP, MethodExact, MethodMCMC)
			case FactorGraph:
				return fmt.Errorf("%s does not run on real latents; use %s, %s or %s", MethodBP, MethodEP, MethodExact, MethodMCMC)
			case Net:
				return fmt.Errorf("%s does not run on %s: use %s (divergence kl, alpha(a), or alpha(0) for variational message passing), %s or %s", MethodBP, NetModel, MethodEP, MethodExact, MethodMCMC)
			}
			return fmt.Errorf("%s needs discrete latents; use %s for the real latents of this model", MethodBP, MethodEP)
		},
	},
	MethodExact: {Method: MethodExact, Options: exactOptions, Defaults: Defaults(MethodExact)},
	MethodMCMC:  {Method: MethodMCMC, Options: SamplerOptions, Defaults: Defaults(MethodMCMC)},
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
func (e *Entry) Accepts(key string) bool { return e.Options.Has(key) }

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

// Refuse is the error refusing a line of the method on a model of
// structure s that no registered engine of the method serves (the
// engines register by method and structure: compile.RegisterEngine).
func (e *Entry) Refuse(s Structure) error {
	switch {
	case s == Mixed:
		return fmt.Errorf("the model mixes discrete and real latents; no engine of fg handles both in one graph yet")
	case e.refuse != nil:
		return e.refuse(s)
	}
	return fmt.Errorf("%s does not run on this model", e.Method)
}
