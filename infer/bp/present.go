package bp

import (
	"strconv"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// Variables groups per-variable marginals (bp.Result.Marginals or
// jtree.Result.Marginals, indexed by variable id) by latent into the
// engine-neutral infer.Variable form, with state labels "-1", "+1" (spin),
// "false", "true" (bool) or "0", …, "K-1" (cat).
func Variables(g *graph.Graph, marginals [][]float64) []infer.Variable {
	out := make([]infer.Variable, 0, len(g.Latents))
	for li := range g.Latents {
		l := &g.Latents[li]
		if !l.Domain.Discrete() {
			continue
		}
		v := infer.Variable{Name: l.Name, Shape: append([]int(nil), l.Shape...), Discrete: true, States: StateLabels(l.Domain, l.Card)}
		for k := 0; k < l.Size(); k++ {
			if id := l.First + k; id < len(marginals) {
				v.Probs = append(v.Probs, append([]float64(nil), marginals[id]...))
			}
		}
		out = append(out, v)
	}
	return out
}

// StateLabels names the states of a discrete domain in state order.
func StateLabels(d graph.Domain, card int) []string {
	switch d {
	case graph.Spin:
		return []string{"-1", "+1"}
	case graph.Bool:
		return []string{"false", "true"}
	}
	s := make([]string, card)
	for k := range s {
		s[k] = strconv.Itoa(k)
	}
	return s
}

// Relaxations lists the factors with a non-zero relaxation weight b
// (Result.B, relaxed BP) with their labels and positions.
func Relaxations(g *graph.Graph, b []float64) []infer.Relaxation {
	var out []infer.Relaxation
	for a, w := range b {
		if w == 0 || a >= g.NumFactors() {
			continue
		}
		out = append(out, infer.Relaxation{Factor: g.FactorLabel(a), Pos: g.Fset.Position(g.Factor(a).Pos).String(), B: w})
	}
	return out
}
