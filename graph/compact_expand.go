package graph

// ExpandCompactLatent gives compact latent li (AddCompactLatent) graph
// variables after all the others, First = len(Vars), as AddLatent would
// have at its declaration but for their place: no factor names a compact
// latent's elements, so no other ID moves. The compiler expands a latent
// it made compact by choice when the model turns out to need its elements
// (a factor-graph model, whose refusals name them).
func (g *Graph) ExpandCompactLatent(li int) {
	l := &g.Latents[li]
	if !l.Compact {
		return
	}
	l.First, l.Compact = len(g.Vars), false
	for i := range l.Size() {
		g.Vars = append(g.Vars, Var{Latent: li, Index: i, Domain: l.Domain, Card: l.Card})
	}
	g.adj = nil
}
