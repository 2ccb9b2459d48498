package fgraph

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/ep"
)

// MaxVars bounds the number of variables of a Graph (about 1 GB of state
// at the bound; edges are int32-indexed).
const MaxVars = 1 << 26

// Graph is a factor graph over scalar continuous variables x_0 … x_{n−1}.
// Every factor touches an affine expression of its variables,
//
//	f(x) = aᵀx_F + c,
//
// and is either linear-Gaussian, N(y; aᵀx_F + c, σ²) with known σ² > 0
// (priors, conditionals x_t ~ N(a x_{t−1} + b, q) written as
// N(0; x_t − a x_{t−1} − b, q), observations), or a non-Gaussian likelihood
// p(y | aᵀx_F + c) from infer/ep (probit, step, gaussian).
//
// The graph is stored flat (edges of factor k are start[k]:start[k+1]), so a
// chain of T steps costs O(T) memory with no per-factor allocation.
type Graph struct {
	n     int
	start []int32 // factor k's edges: start[k] : start[k+1]
	evar  []int32 // variable of each edge
	ecoef []float64
	// Per factor, as columns (a plate's constants and variances follow
	// rules and take no memory per factor):
	c    graph.Column[float64] // constant of each factor's affine expression
	y    graph.Column[float64] // observation
	v    graph.Column[float64] // noise variance of a Gaussian factor (0 for a site)
	site graph.Column[int32]   // index into liks, −1 for a Gaussian factor
	liks []ep.Likelihood       // one per site (no pointers in the per-factor columns)
	// blocks are dense Gaussian factors (GP, mvnormal) over several variables.
	blocks []*block
	// disc are the discrete variables and gates the gated factors whose
	// branch they select (discrete.go).
	disc  []discrete
	gates []gate
	err   error
}

// NewGraph returns an empty graph over n variables.
func NewGraph(n int) *Graph {
	g := &Graph{n: n, start: []int32{0}}
	if n <= 0 || n > MaxVars {
		g.err = fmt.Errorf("fgraph: %d variables, want 1 … %d", n, MaxVars)
	}
	return g
}

// Grow makes room for about factors more factors on edges more
// variable–factor edges in all, so that a graph of 10⁶ factors built one
// at a time fills its columns in place instead of copying them as append
// grows them (a quarter at a time).
func (g *Graph) Grow(factors, edges int) {
	if factors <= 0 || edges < 0 {
		return
	}
	g.evar, g.ecoef = slices.Grow(g.evar, edges), slices.Grow(g.ecoef, edges)
	g.start = slices.Grow(g.start, factors)
}

// NumVars returns the number of variables.
func (g *Graph) NumVars() int { return g.n }

// NumFactors returns the number of factors on affine expressions (blocks
// not included).
func (g *Graph) NumFactors() int { return len(g.start) - 1 }

// AddGaussian adds the linear-Gaussian factor N(y; Σ_k coefs[k]·x[vars[k]] + c, variance).
// A prior x ~ N(m, s²) is AddGaussian([x], [1], 0, m, s²); a conditional
// x_t ~ N(a x_{t−1} + b, q) is AddGaussian([t, t−1], [1, −a], −b, 0, q).
func (g *Graph) AddGaussian(vars []int, coefs []float64, c, y, variance float64) {
	if g.err == nil && !(variance > 0 && !math.IsInf(variance, 1)) {
		g.err = fmt.Errorf("fgraph: factor %d: variance %g, want 0 < variance < ∞", g.NumFactors(), variance)
	}
	g.add(vars, coefs, c, y, variance, nil)
}

// AddSite adds the likelihood factor lik(y | Σ_k coefs[k]·x[vars[k]] + c).
func (g *Graph) AddSite(lik ep.Likelihood, y float64, vars []int, coefs []float64, c float64) {
	if g.err == nil && lik == nil {
		g.err = fmt.Errorf("fgraph: factor %d has no likelihood", g.NumFactors())
	}
	if g.err == nil {
		if err := lik.CheckY(y); err != nil {
			g.err = fmt.Errorf("fgraph: factor %d: %w", g.NumFactors(), err)
		}
	}
	g.add(vars, coefs, c, y, 0, lik)
}

func (g *Graph) add(vars []int, coefs []float64, c, y, variance float64, lik ep.Likelihood) {
	if g.err != nil {
		return
	}
	k := g.NumFactors()
	switch {
	case len(vars) == 0 || len(vars) != len(coefs):
		g.err = fmt.Errorf("fgraph: factor %d has %d variables and %d coefficients", k, len(vars), len(coefs))
	case !finite(c) || !finite(y):
		g.err = fmt.Errorf("fgraph: factor %d: constant %g or observation %g is not finite", k, c, y)
	case len(g.evar)+len(vars) > math.MaxInt32:
		g.err = errors.New("fgraph: too many edges")
	}
	for i, x := range vars {
		if g.err == nil {
			g.err = g.checkEdge(k, x, coefs[i])
		}
		if g.err == nil && slices.Index(vars[:i], x) >= 0 {
			g.err = twice(k, x)
		}
	}
	if g.err != nil {
		return
	}
	for i, x := range vars {
		g.evar = append(g.evar, int32(x))
		g.ecoef = append(g.ecoef, coefs[i])
	}
	g.start = append(g.start, int32(len(g.evar)))
	g.c.Add(c)
	g.y.Add(y)
	g.v.Add(variance)
	if lik == nil {
		g.site.Add(-1)
	} else {
		g.site.Add(int32(len(g.liks)))
		g.liks = append(g.liks, lik)
	}
}

// AddAffines adds factors from … to−1 of a — a compiled model's factors on
// affine forms (graph.Affines) — as linear-Gaussian factors
// N(a.Y(k); form_k(x), v_k), with v_k = variance when variance ≠ 0 and
// a's variance of the factor when it is 0: what AddGaussian of each
// factor adds, with the same checks, read a stretch of a's columns at a
// time (graph.Column.AppendTo, AppendRange) rather than a factor at a
// time, so that a plate's factors cost no call each and their constants,
// observations and variances stay rules in g's columns.
func (g *Graph) AddAffines(a *graph.Affines, from, to int, variance float64) {
	if g.err != nil || from >= to {
		return
	}
	var ar []int32
	var c, y, v []float64
	vars, coefs := make([][]int, a.Slots()), make([][]float64, a.Slots())
	for lo := from; lo < to; lo += affineChunk {
		hi := min(lo+affineChunk, to)
		ar = a.ArityCol().AppendTo(ar[:0], lo, hi)
		c = a.ConstCol().AppendTo(c[:0], lo, hi)
		y = a.YCol().AppendTo(y[:0], lo, hi)
		if variance == 0 {
			v = a.VarCol().AppendTo(v[:0], lo, hi)
		}
		for j := range vars {
			vars[j] = a.VarsCol(j).AppendTo(vars[j][:0], lo, hi)
			coefs[j] = a.CoefsCol(j).AppendTo(coefs[j][:0], lo, hi)
		}
		for i := range hi - lo {
			k, vi := g.NumFactors(), variance
			if variance == 0 {
				vi = v[i]
			}
			if !(vi > 0 && !math.IsInf(vi, 1)) {
				g.err = fmt.Errorf("fgraph: factor %d: variance %g, want 0 < variance < ∞", k, vi)
				return
			}
			n := int(ar[i])
			switch {
			case n == 0:
				g.err = fmt.Errorf("fgraph: factor %d has %d variables and %d coefficients", k, 0, 0)
			case !finite(c[i]) || !finite(y[i]):
				g.err = fmt.Errorf("fgraph: factor %d: constant %g or observation %g is not finite", k, c[i], y[i])
			case len(g.evar)+n > math.MaxInt32:
				g.err = errors.New("fgraph: too many edges")
			}
			for j := 0; j < n && g.err == nil; j++ {
				x := vars[j][i]
				g.err = g.checkEdge(k, x, coefs[j][i])
				for l := 0; l < j && g.err == nil; l++ {
					if vars[l][i] == x {
						g.err = twice(k, x)
					}
				}
			}
			if g.err != nil {
				return
			}
			for j := range n {
				g.evar = append(g.evar, int32(vars[j][i]))
				g.ecoef = append(g.ecoef, coefs[j][i])
			}
			g.start = append(g.start, int32(len(g.evar)))
		}
	}
	g.c.AppendRange(a.ConstCol(), from, to)
	g.y.AppendRange(a.YCol(), from, to)
	if variance == 0 {
		g.v.AppendRange(a.VarCol(), from, to)
	} else {
		g.v.AddN(variance, to-from)
	}
	g.site.AddN(-1, to-from)
}

// affineChunk is the number of factors AddAffines reads at a time.
const affineChunk = 4096

// checkEdge checks an edge of factor k: variable x with coefficient c.
func (g *Graph) checkEdge(k, x int, c float64) error {
	switch {
	case x < 0 || x >= g.n:
		return fmt.Errorf("fgraph: factor %d: variable %d out of range [0, %d)", k, x, g.n)
	case !finite(c) || c == 0:
		return fmt.Errorf("fgraph: factor %d: coefficient %g of variable %d, want finite and non-zero", k, c, x)
	}
	return nil
}

// twice is the error of variable x appearing twice in factor k.
func twice(k, x int) error {
	return fmt.Errorf("fgraph: factor %d: variable %d appears twice (add its coefficients)", k, x)
}

// Err returns the first error met while building the graph.
func (g *Graph) Err() error { return g.err }

// edges returns the edge range of factor k.
func (g *Graph) edges(k int) (int, int) { return int(g.start[k]), int(g.start[k+1]) }

// gaussian reports whether factor k is linear-Gaussian.
func (g *Graph) gaussian(k int) bool { return g.site.At(k) < 0 }

// lik returns the likelihood of site factor k.
func (g *Graph) lik(k int) ep.Likelihood { return g.liks[g.site.At(k)] }

// StateBytes returns the bytes the graph and an engine's state hold: the
// graph's arrays and columns, two messages per edge, a belief per variable and the
// schedule (for the memory-per-time-step figure of a chain).
func (g *Graph) StateBytes() int {
	e, f := len(g.evar), g.NumFactors()
	arrays := 4*len(g.start) + 4*e + 8*e + int(g.c.Bytes()+g.y.Bytes()+g.v.Bytes()+g.site.Bytes()) + 16*len(g.liks)
	state := 16*e + 16*g.n + 8*g.n
	sched := 8*f + 4*(g.n+1) + 4*e
	return arrays + state + sched
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
