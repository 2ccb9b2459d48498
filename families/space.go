package families

import "github.com/fg-infer/fg/graph"

// For is the Space of a variable of family f with dim components (the
// states of a discrete variable, the components of a Dirichlet one).
func For(f graph.Family, dim int) Space {
	switch f {
	case graph.Gaussian:
		return GaussianSpace{}
	case graph.Gamma:
		return GammaSpace{}
	case graph.InvGamma:
		return InvGammaSpace{}
	case graph.Beta:
		return BetaSpace{}
	case graph.Dirichlet:
		return DirichletSpace{K: dim}
	}
	return DiscreteSpace{K: dim}
}
