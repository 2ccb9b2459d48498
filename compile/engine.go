package compile

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

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
	case cont && m.FactorGraph != nil:
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
