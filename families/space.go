package families

import (
	"math"

	"github.com/fg-infer/fg/graph"
)

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

// MeanInv is E[1/x] of a marginal of family f with natural parameters
// eta: Gamma.MeanInv or InvGamma.MeanInv; NaN for the other families (1/x
// is not a quantity of theirs) or without eta.
func MeanInv(f graph.Family, eta []float64) float64 {
	if eta == nil {
		return math.NaN()
	}
	switch f {
	case graph.Gamma:
		return GammaOf(eta).MeanInv()
	case graph.InvGamma:
		return InvGammaOf(eta).MeanInv()
	}
	return math.NaN()
}
