package compile

import (
	"context"
	"fmt"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// Engine is one internal engine of package infer's method registry as one
// type: the options it takes, its check of an infer line and its runner.
// An engine serves one or more methods on one or more model structures
// (infer.Structure); compile comes before the engines in the phase order
// and imports none of them, so the types live with the runners (infer/run)
// and install themselves with RegisterEngine from an init function;
// compile reaches an engine only through this interface.
type Engine interface {
	// Options are the options the engine takes when it takes fewer than
	// its method (nil: every option of the method; infer's schemas).
	Options() *infer.LineSchema
	// Supports checks infer line ck.Spec against the engine, composed
	// from Checker's building blocks (the method's checks, Checker.Method,
	// around the engine's own), each refusal at the node of the line it
	// is about (Checker.Fail). Model.Supports is this call on the engine
	// the line runs on.
	Supports(ck *Checker)
	// Run runs infer line spec of m, which Supports accepted, under ctx,
	// passing progress (when non-nil) the work done as it goes. An engine
	// failure is the error and the result's status failed with its
	// message; a canceled run returns ctx's error and status canceled; a
	// failed or canceled result carries no numbers.
	Run(ctx context.Context, m *Model, spec *InferSpec, progress func(infer.Progress)) (*infer.Result, error)
}

// engineKey is a method and a model structure, the key of the engine
// registry.
type engineKey struct {
	method    infer.Method
	structure infer.Structure
}

// engines are the registered engines.
var engines = map[engineKey]Engine{}

// RegisterEngine installs e as the engine running method m on a model of
// structure s. The runners' package (infer/run) calls it from an init
// function for each line of its engine table, so that compile checks
// infer lines against the engines without importing them; a program that
// compiles models links infer/run (compile's tests link it in
// engines_link_test.go).
func RegisterEngine(m infer.Method, s infer.Structure, e Engine) {
	if _, err := infer.Lookup(m); err != nil {
		panic(fmt.Sprintf("compile: engine %T registered for %v", e, err))
	}
	k := engineKey{m, s}
	if prev, dup := engines[k]; dup {
		panic(fmt.Sprintf("compile: engines %T and %T both registered for %s on structure %d", prev, e, m, s))
	}
	engines[k] = e
}

// EngineFor returns the engine that runs method m on a model of structure
// s, or the method registry's reason why none does (infer.Entry.Refuse).
func EngineFor(m infer.Method, s infer.Structure) (Engine, error) {
	entry, err := infer.Lookup(m)
	if err != nil {
		return nil, err
	}
	if e, ok := engines[engineKey{m, s}]; ok {
		return e, nil
	}
	if len(engines) == 0 {
		return nil, fmt.Errorf("internal error: no engine is linked into this program (import github.com/fg-infer/fg/infer/run)")
	}
	return nil, entry.Refuse(s)
}

// engineOptions is the schema of the options engine e takes when run by
// method entry m: its own, else every option of the method.
func engineOptions(e Engine, m *infer.Entry) *infer.LineSchema {
	if opts := e.Options(); opts != nil {
		return opts
	}
	return m.Options
}

// engineAccepts reports whether engine e, run by method entry m, takes
// option key.
func engineAccepts(e Engine, m *infer.Entry, key string) bool {
	return engineOptions(e, m).Has(key)
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
func (m *Model) Engine(spec *InferSpec) (Engine, error) {
	return EngineFor(spec.Method, m.Structure())
}

// structure is the structure of the model being compiled: that of a
// typed factor graph as soon as the model lowers to one (before Model.Net
// is set, and when errors keep it unset), else Model.Structure.
func (c *compiler) structure() infer.Structure {
	if c.isNet() {
		return infer.Net
	}
	return c.m.Structure()
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
