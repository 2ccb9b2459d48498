package graph

import "github.com/fg-infer/fg/lang/ast"

// DiscreteVar is an element of a cat(K) latent with prior p(z = k) = Prior[k].
type DiscreteVar struct {
	Var   int // graph variable (Graph.Vars)
	Prior []float64
}

// Gate is the gated factor (Minka & Winn 2008) p(y | Branches[z]) whose
// branch the discrete variable Discrete[Selector] of its factor graph
// selects: Branches[k] is the likelihood site with z = k, on its own
// affine form (no variables for a branch whose projection is a number).
type Gate struct {
	Selector int
	Branches []AffineSite
	Factor   int    // the factor's number (compile.Model.Factors)
	Label    string // e.g. "normal(y[3] | z[3])"
	Pos      ast.Pos
}
