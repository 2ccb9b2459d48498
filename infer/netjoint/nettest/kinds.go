// Package nettest holds factor kinds with hand-written log densities and
// small model builders for the tests of the gold standards on graph.Net
// (infer/exact, infer/mcmc): each density is written out from its
// textbook formula, independently of package factor.
package nettest

import (
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/fg-infer/fg/graph"
)

// Kind is a test factor kind: a name and a log density of the value
// (the observation, or the first edge of a prior or conditional) given
// the parameters (the remaining edges).
type Kind struct {
	N string
	F func(x []float64, par [][]float64) float64
}

// Name is the kind's name.
func (k Kind) Name() string { return k.N }

// LogDensity implements netjoint.Density.
func (k Kind) LogDensity(y []float64, vals [][]float64) float64 {
	if y == nil {
		return k.F(vals[0], vals[1:])
	}
	return k.F(y, vals)
}

func lgamma(x float64) float64 {
	l, _ := math.Lgamma(x)
	return l
}

// The kinds. Parameters by position: Normal(x; mean, var),
// NormalPrec(x; mean, prec), Gamma(x; shape, rate), InvGamma(x; shape,
// scale), Beta(x; a, b), Dirichlet(x; α), Categorical(x; w) with x the
// state index, Bernoulli(y; p), Binomial(y; n, p), Poisson(y; rate).
var (
	Normal = Kind{"normal", func(x []float64, p [][]float64) float64 {
		d := x[0] - p[0][0]
		return -0.5*d*d/p[1][0] - 0.5*math.Log(2*math.Pi*p[1][0])
	}}
	NormalPrec = Kind{"normal_prec", func(x []float64, p [][]float64) float64 {
		d := x[0] - p[0][0]
		return -0.5*d*d*p[1][0] + 0.5*math.Log(p[1][0]/(2*math.Pi))
	}}
	Gamma = Kind{"gamma", func(x []float64, p [][]float64) float64 {
		a, b := p[0][0], p[1][0]
		return a*math.Log(b) - lgamma(a) + (a-1)*math.Log(x[0]) - b*x[0]
	}}
	InvGamma = Kind{"inv_gamma", func(x []float64, p [][]float64) float64 {
		a, b := p[0][0], p[1][0]
		return a*math.Log(b) - lgamma(a) - (a+1)*math.Log(x[0]) - b/x[0]
	}}
	Beta = Kind{"beta", func(x []float64, p [][]float64) float64 {
		a, b := p[0][0], p[1][0]
		return (a-1)*math.Log(x[0]) + (b-1)*math.Log1p(-x[0]) - mathext.Lbeta(a, b)
	}}
	Dirichlet = Kind{"dirichlet", func(x []float64, p [][]float64) float64 {
		s, l := 0.0, 0.0
		for k, a := range p[0] {
			s += a
			l += (a-1)*math.Log(x[k]) - lgamma(a)
		}
		return l + lgamma(s)
	}}
	Categorical = Kind{"categorical", func(x []float64, p [][]float64) float64 {
		return math.Log(p[0][int(x[0])])
	}}
	Bernoulli = Kind{"bernoulli", func(y []float64, p [][]float64) float64 {
		if y[0] == 1 {
			return math.Log(p[0][0])
		}
		return math.Log1p(-p[0][0])
	}}
	Binomial = Kind{"binomial", func(y []float64, p [][]float64) float64 {
		n, q, k := p[0][0], p[1][0], y[0]
		return lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1) + k*math.Log(q) + (n-k)*math.Log1p(-q)
	}}
	Poisson = Kind{"poisson", func(y []float64, p [][]float64) float64 {
		return y[0]*math.Log(p[0][0]) - p[0][0] - lgamma(y[0]+1)
	}}
)

// Var adds a variable.
func Var(n *graph.Net, name string, fam graph.Family, dim int) int {
	return n.AddVar(graph.NetVar{Name: name, Family: fam, Dim: dim})
}

// Prior adds the factor kind(x = v; params...) with data parameters.
func Prior(n *graph.Net, k Kind, v int, params ...[]float64) int {
	es := []graph.Edge{graph.VarEdge("x", v)}
	for _, p := range params {
		es = append(es, graph.DataEdge("p", p...))
	}
	return n.AddFactor(graph.NetFactor{Kind: k, Edges: es, Label: k.N + "(" + n.Vars[v].Name + ")"})
}

// Obs adds the likelihood kind(y; edges...) of the observation y.
func Obs(n *graph.Net, k Kind, y float64, edges ...graph.Edge) int {
	return n.AddFactor(graph.NetFactor{Kind: k, Edges: edges, Observed: true, Y: []float64{y}, Label: k.N})
}

// Cond adds the conditional kind(x = v; edges...).
func Cond(n *graph.Net, k Kind, v int, edges ...graph.Edge) int {
	es := append([]graph.Edge{graph.VarEdge("x", v)}, edges...)
	return n.AddFactor(graph.NetFactor{Kind: k, Edges: es, Label: k.N + "(" + n.Vars[v].Name + ")"})
}

// Select is the edge that is branches[s] when selector sel is in state s.
func Select(name string, sel int, branches ...graph.Edge) graph.Edge {
	return graph.Edge{Name: name, Selected: true, Sel: sel, Branches: branches}
}

// Data is a data edge.
func Data(x ...float64) graph.Edge { return graph.DataEdge("p", x...) }

// V is a variable edge.
func V(v int) graph.Edge { return graph.VarEdge("p", v) }
