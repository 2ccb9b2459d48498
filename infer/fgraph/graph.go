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
// The factors are stored as runs (forms.go): a compiled model's factors
// are read in place from its graph.Affines columns (AddAffines, AddSites),
// so a chain of T steps is a few runs and no array per factor; factors
// added one at a time (AddGaussian, AddSite) are held as per-edge arrays.
type Graph struct {
	n      int
	runs   []run
	nf, ne int             // factors and edges
	own    bool            // the last run is AddGaussian's and AddSite's (decoded, appended to)
	liks   []ep.Likelihood // one per site (no pointers in the runs' columns)
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
	g := &Graph{n: n}
	if n <= 0 || n > MaxVars {
		g.err = fmt.Errorf("fgraph: %d variables, want 1 … %d", n, MaxVars)
	}
	return g
}

// NumVars returns the number of variables.
func (g *Graph) NumVars() int { return g.n }

// NumFactors returns the number of factors on affine expressions (blocks
// not included).
func (g *Graph) NumFactors() int { return g.nf }

// numEdges is the number of variable–factor edges.
func (g *Graph) numEdges() int { return g.ne }

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
	case g.ne+len(vars) > math.MaxInt32:
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
	r := g.ownRun()
	for i, x := range vars {
		r.evar = append(r.evar, int32(x))
		r.ecoef = append(r.ecoef, coefs[i])
	}
	r.starts = append(r.starts, int32(len(r.evar)))
	r.c.vals, r.y.vals, r.v.vals = append(r.c.vals, c), append(r.y.vals, y), append(r.v.vals, variance)
	if lik == nil {
		r.site.vals = append(r.site.vals, -1)
	} else {
		r.site.vals = append(r.site.vals, int32(len(g.liks)))
		g.liks = append(g.liks, lik)
	}
	r.n++
	g.nf++
	g.ne += len(vars)
}

// ownRun is the run AddGaussian and AddSite append to: the last one if
// it is theirs, else a new decoded run.
func (g *Graph) ownRun() *run {
	if !g.own {
		// Empty, not nil, value slices: a view with vals reads them (forms.go).
		g.runs = append(g.runs, run{k0: g.nf, e0: g.ne, starts: []int32{0},
			c: view[float64]{vals: []float64{}}, y: view[float64]{vals: []float64{}},
			v: view[float64]{vals: []float64{}}, site: view[int32]{vals: []int32{}}})
		g.own = true
	}
	return &g.runs[len(g.runs)-1]
}

// AddAffines adds factors from … to−1 of a — a compiled model's factors on
// affine forms (graph.Affines) — as linear-Gaussian factors
// N(a.Y(k); form_k(x), v_k), with v_k = variance when variance ≠ 0 and
// a's variance of the factor when it is 0: what AddGaussian of each
// factor adds, with the same checks, read in place (runs of a's columns:
// forms.go). a must not change while g is used.
func (g *Graph) AddAffines(a *graph.Affines, from, to int, variance float64) {
	if g.err != nil || from >= to {
		return
	}
	if g.checkAffines(a, from, to, variance, nil); g.err == nil {
		g.addRuns(&source{a: a, variance: variance}, from, to)
		g.own = false
	}
}

// AddSites adds factors from … to−1 of a as likelihood sites
// liks[i](a.Y(k) | form_k(x)), i = k − from: what AddSite of each adds,
// with the same checks, read in place as AddAffines reads.
func (g *Graph) AddSites(a *graph.Affines, from, to int, liks []ep.Likelihood) {
	if g.err != nil || from >= to {
		return
	}
	if len(liks) != to-from {
		g.err = fmt.Errorf("fgraph: %d likelihoods for %d sites", len(liks), to-from)
		return
	}
	if g.checkAffines(a, from, to, 0, liks); g.err == nil {
		g.addRuns(&source{a: a, sites: true, site0: len(g.liks) - from}, from, to)
		g.liks = append(g.liks, liks...)
		g.own = false
	}
}

// checkAffines makes the checks AddGaussian (liks nil) or AddSite makes of
// factors from … to−1 of a, reading a's columns a stretch at a time.
func (g *Graph) checkAffines(a *graph.Affines, from, to int, variance float64, liks []ep.Likelihood) {
	var ar []int32
	var c, y, v []float64
	vars, coefs := make([][]int, a.Slots()), make([][]float64, a.Slots())
	k, e := g.nf, g.ne
	for lo := from; lo < to; lo += affineChunk {
		hi := min(lo+affineChunk, to)
		ar = a.ArityCol().AppendTo(ar[:0], lo, hi)
		c = a.ConstCol().AppendTo(c[:0], lo, hi)
		y = a.YCol().AppendTo(y[:0], lo, hi)
		if liks == nil && variance == 0 {
			v = a.VarCol().AppendTo(v[:0], lo, hi)
		}
		for j := range vars {
			vars[j] = a.VarsCol(j).AppendTo(vars[j][:0], lo, hi)
			coefs[j] = a.CoefsCol(j).AppendTo(coefs[j][:0], lo, hi)
		}
		for i := range hi - lo {
			if liks == nil {
				vi := variance
				if variance == 0 {
					vi = v[i]
				}
				if !(vi > 0 && !math.IsInf(vi, 1)) {
					g.err = fmt.Errorf("fgraph: factor %d: variance %g, want 0 < variance < ∞", k, vi)
					return
				}
			} else if lik := liks[lo+i-from]; lik == nil {
				g.err = fmt.Errorf("fgraph: factor %d has no likelihood", k)
				return
			} else if err := lik.CheckY(y[i]); err != nil {
				g.err = fmt.Errorf("fgraph: factor %d: %w", k, err)
				return
			}
			n := int(ar[i])
			switch {
			case n == 0:
				g.err = fmt.Errorf("fgraph: factor %d has %d variables and %d coefficients", k, 0, 0)
			case !finite(c[i]) || !finite(y[i]):
				g.err = fmt.Errorf("fgraph: factor %d: constant %g or observation %g is not finite", k, c[i], y[i])
			case e+n > math.MaxInt32:
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
			k, e = k+1, e+n
		}
	}
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

// gaussian reports whether factor k is linear-Gaussian (every factor is
// when the graph has no sites).
func (g *Graph) gaussian(k int) bool {
	if len(g.liks) == 0 {
		return true
	}
	f := g.fac(k)
	return f.gaussian()
}

// lik returns the likelihood of site factor k.
func (g *Graph) lik(k int) ep.Likelihood {
	f := g.fac(k)
	return g.liks[f.site()]
}

// StateBytes returns the bytes the graph and an engine's state hold: the
// graph's arrays and columns, two messages per edge, a belief per variable and the
// schedule (for the memory-per-time-step figure of a chain).
func (g *Graph) StateBytes() int {
	e, f := g.ne, g.nf
	arrays := 16 * len(g.liks)
	for k := range g.runs {
		r := &g.runs[k]
		arrays += 200 + 4*len(r.starts) + 12*len(r.evar) + 8*(len(r.c.vals)+len(r.v.vals)) + 4*len(r.site.vals)
		if r.starts != nil {
			arrays += 8 * len(r.y.vals) // a decoded run's own observations
		}
	}
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
