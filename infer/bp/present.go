package bp

import (
	"strconv"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

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
