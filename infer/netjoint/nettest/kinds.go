// Package nettest builds small graph.Net models from package factor's
// kinds for the tests of the gold standards on graph.Net (infer/exact,
// infer/mcmc), without the compiler.
package nettest

import (
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
)

// Var adds a variable.
func Var(n *graph.Net, name string, fam graph.Family, dim int) int {
	return n.AddVar(graph.NetVar{Name: name, Family: fam, Dim: dim})
}

// Factor adds the factor kind(x = v; edges...) of variable v.
func Factor(n *graph.Net, k graph.Kind, v int, edges ...graph.Edge) int {
	es := append([]graph.Edge{graph.VarEdge("x", v)}, edges...)
	return n.AddFactor(graph.NetFactor{Kind: k, Edges: es, Label: k.Name() + "(" + n.Vars[v].Name + ")"})
}

// Obs adds the likelihood kind(y; edges...) of the observation y.
func Obs(n *graph.Net, k graph.Kind, y float64, edges ...graph.Edge) int {
	return n.AddFactor(graph.NetFactor{Kind: k, Edges: edges, Observed: true, Y: []float64{y}, Label: k.Name()})
}

// Select is the edge named name that is branches[s] when selector sel is
// in state s.
func Select(name string, sel int, branches ...graph.Edge) graph.Edge {
	return graph.Edge{Name: name, Selected: true, Sel: sel, Branches: branches}
}

// D is a data edge, V a variable edge.
func D(name string, x ...float64) graph.Edge { return graph.DataEdge(name, x...) }
func V(name string, v int) graph.Edge        { return graph.VarEdge(name, v) }

// The kinds, for short.
var (
	Beta        = factor.Beta{}
	Gamma       = factor.Gamma{}
	InvGamma    = factor.InvGamma{}
	Dirichlet   = factor.Dirichlet{}
	Bernoulli   = factor.Bernoulli{}
	Binomial    = factor.Binomial{}
	Poisson     = factor.Poisson{}
	Categorical = factor.Categorical{}
	NormalPrior = factor.NormalPrior{}
	Normal      = factor.Normal{}
)
