package compile

import (
	"context"
	"fmt"
	"slices"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// Engine is one internal engine of package infer's method registry (an
// infer.Engine value, which the registry chooses by method and model
// structure) as one type: the options it takes, its check of an infer line
// and its runner. compile comes before the engines in the phase order and
// imports none of them, so the types live with the runners (infer/run)
// and install themselves with RegisterEngine from an init function;
// compile reaches an engine only through this interface.
type Engine interface {
	// Options are the option keys the engine takes when it takes fewer
	// than its method (nil: every option of the method, and seed).
	Options() []string
	// Supports checks infer line ck.Spec against the engine: the
	// engine's own checks, composed from Checker's building blocks, each
	// refusal at the node of the line it is about (Checker.Fail). The
	// method's checks (the rule of every factor kind, kept draws, FITC,
	// libsvm sites, shards) run before and after it (Model.Supports).
	Supports(ck *Checker)
	// Run runs infer line spec of m, which Supports accepted, under ctx,
	// passing progress (when non-nil) the work done as it goes. An engine
	// failure is the error and the result's status failed with its
	// message; a canceled run returns ctx's error and status canceled; a
	// failed or canceled result carries no numbers.
	Run(ctx context.Context, m *Model, spec *InferSpec, progress func(infer.Progress)) (*infer.Result, error)
}

// engines are the registered engines.
var engines = map[infer.Engine]Engine{}

// RegisterEngine installs e as engine id. The runners' package (infer/run)
// calls it from an init function, so that compile checks infer lines
// against the engines without importing them; a program that compiles
// models links infer/run (compile's tests link it in engines_link_test.go).
func RegisterEngine(id infer.Engine, e Engine) {
	if _, dup := engines[id]; dup {
		panic(fmt.Sprintf("compile: engine %d registered twice", id))
	}
	engines[id] = e
}

// EngineOf returns the registered engine id.
func EngineOf(id infer.Engine) (Engine, error) {
	if e, ok := engines[id]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("internal error: engine %d is not linked into this program", id)
}

// engineOptions lists the option keys engine e takes when run by method
// entry m: its own, else every option of the method and seed.
func engineOptions(e Engine, m *infer.Entry) []string {
	if opts := e.Options(); opts != nil {
		return opts
	}
	return append(append([]string(nil), m.Options...), "seed")
}

// engineAccepts reports whether engine e, run by method entry m, takes
// option key.
func engineAccepts(e Engine, m *infer.Entry, key string) bool {
	if opts := e.Options(); opts != nil {
		return slices.Contains(opts, key)
	}
	return m.Accepts(key)
}

// Structure is the shape of the model as the engines see it (package
// infer's method registry maps it to the engine each method runs): a typed
// factor graph (Model.Net), gated
// likelihoods, discrete and real latents mixed, a factor graph over real
// latents, discrete latents only, or Gaussian blocks.
func (m *Model) Structure() infer.Structure {
	if m.Net != nil {
		return infer.Net
	}
	if fg := m.FactorGraph; fg != nil && len(fg.Gates) > 0 {
		return infer.Gated
	}
	disc, cont := latentKinds(m.Graph)
	switch {
	case disc && cont:
		return infer.Mixed
	case cont && m.FactorGraph != nil && m.Blocks() == nil:
		return infer.FactorGraph
	case disc:
		return infer.Discrete
	}
	return infer.Blocks
}

// Engine returns the engine that runs infer line spec on m, or the
// registry's reason why none does (compile refuses such a line).
func (m *Model) Engine(spec *InferSpec) (infer.Engine, error) {
	e, err := infer.Lookup(spec.Method)
	if err != nil {
		return infer.NoEngine, err
	}
	return e.Engine(m.Structure())
}

// latentKinds reports whether the graph has discrete and real latents.
func latentKinds(g *graph.Graph) (disc, cont bool) {
	if g == nil {
		return false, false
	}
	for i := range g.Latents {
		if g.Latents[i].Domain.Discrete() {
			disc = true
		} else if g.Latents[i].Domain == graph.Real {
			cont = true
		}
	}
	return disc, cont
}
