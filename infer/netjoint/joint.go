package netjoint

import (
	"fmt"

	"github.com/fg-infer/fg/graph"
)

// Density is what Joint needs of a factor kind (factor.NetKind's
// LogDensityEdges): log f at the values of the factor's edges, vals[i] the
// value of edge i (one number, or a vector: a Dirichlet point, a
// probability vector, a discrete state's index), the observation f.Y.
type Density interface {
	LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64
}

// Joint evaluates the joint log density of a Net at points. Its buffers
// make it unsafe for concurrent use: each goroutine takes a Clone.
type Joint struct {
	Net    *graph.Net
	off    []int // offset of variable v in a point
	n      int
	dens   []Density
	vals   [][][]float64 // per factor, per edge: the resolved values
	aff    [][]float64   // per factor: one slot per edge for affine values
	fitBuf []float64     // FitFamily's values at the design points
}

// New checks that every factor of n has a log density and that its edges
// are well formed (selectors discrete with one branch per state, affine
// edges over Gaussian variables), and lays out the points.
func New(n *graph.Net) (*Joint, error) {
	j := &Joint{Net: n, off: make([]int, len(n.Vars)+1)}
	for v, nv := range n.Vars {
		j.off[v+1] = j.off[v] + width(nv)
	}
	j.n = j.off[len(n.Vars)]
	j.dens = make([]Density, len(n.Factors))
	for fi := range n.Factors {
		f := &n.Factors[fi]
		d, ok := f.Kind.(Density)
		if !ok {
			return nil, fmt.Errorf("%s: factor %s (kind %s) has no log density", n.Fset.Position(f.Pos), f.Label, f.Kind.Name())
		}
		j.dens[fi] = d
		for _, e := range f.Edges {
			if err := j.checkEdge(&e); err != nil {
				return nil, fmt.Errorf("%s: factor %s, edge %q: %w", n.Fset.Position(f.Pos), f.Label, e.Name, err)
			}
		}
	}
	if len(n.Vars) > 0 {
		n.FactorsOf(0) // build the adjacency now: later calls only read it
	}
	j.alloc()
	return j, nil
}

func (j *Joint) alloc() {
	j.vals = make([][][]float64, len(j.Net.Factors))
	j.aff = make([][]float64, len(j.Net.Factors))
	for fi, f := range j.Net.Factors {
		j.vals[fi] = make([][]float64, len(f.Edges))
		j.aff[fi] = make([]float64, len(f.Edges))
	}
}

// Clone returns a Joint on the same Net with its own buffers.
func (j *Joint) Clone() *Joint {
	c := *j
	c.fitBuf = nil
	c.alloc()
	return &c
}

// width is the number of coordinates variable v takes in a point.
func width(v graph.NetVar) int {
	if v.Family == graph.Dirichlet {
		return v.Dim
	}
	return 1
}

// Len is the length of a point.
func (j *Joint) Len() int { return j.n }

// Off is the offset of variable v in a point.
func (j *Joint) Off(v int) int { return j.off[v] }

// Value is variable v's slice of the point x.
func (j *Joint) Value(v int, x []float64) []float64 { return x[j.off[v]:j.off[v+1]] }

// State is the state of Discrete variable v at x.
func (j *Joint) State(v int, x []float64) int { return int(x[j.off[v]]) }

func (j *Joint) checkEdge(e *graph.Edge) error {
	nv := len(j.Net.Vars)
	if e.Selected {
		if e.Sel < 0 || e.Sel >= nv || j.Net.Vars[e.Sel].Family != graph.Discrete {
			return fmt.Errorf("selector %d is not a discrete variable", e.Sel)
		}
		if len(e.Branches) != j.Net.Vars[e.Sel].Dim {
			return fmt.Errorf("%d branches for a selector of %d states", len(e.Branches), j.Net.Vars[e.Sel].Dim)
		}
		for k := range e.Branches {
			if err := j.checkEdge(&e.Branches[k]); err != nil {
				return err
			}
		}
		return nil
	}
	if len(e.Coefs) != len(e.Vars) {
		return fmt.Errorf("%d coefficients for %d variables", len(e.Coefs), len(e.Vars))
	}
	for _, v := range e.Vars {
		if v < 0 || v >= nv {
			return fmt.Errorf("variable %d out of range", v)
		}
	}
	if _, ok := e.IsVar(); ok || len(e.Vars) == 0 {
		return nil
	}
	for _, v := range e.Vars {
		if j.Net.Vars[v].Family != graph.Gaussian {
			return fmt.Errorf("affine expression of %s, a %s variable", j.Net.Vars[v].Name, j.Net.Vars[v].Family)
		}
	}
	return nil
}

// active is the form of e at x: the branch that the selectors' states pick.
func (j *Joint) active(e *graph.Edge, x []float64) *graph.Edge {
	for e.Selected {
		e = &e.Branches[j.State(e.Sel, x)]
	}
	return e
}

// edgeValue is e's value at x; slot holds an affine value.
func (j *Joint) edgeValue(e *graph.Edge, x []float64, slot *float64) []float64 {
	e = j.active(e, x)
	if len(e.Vars) == 0 {
		if e.Value == nil {
			*slot = e.Const
			return []float64{*slot}
		}
		return e.Value
	}
	if v, ok := e.IsVar(); ok {
		return j.Value(v, x)
	}
	s := e.Const
	for k, v := range e.Vars {
		s += e.Coefs[k] * x[j.off[v]]
	}
	*slot = s
	return []float64{s}
}

// FactorLog is log f(x) for factor fi.
func (j *Joint) FactorLog(fi int, x []float64) float64 {
	f := &j.Net.Factors[fi]
	vals := j.vals[fi]
	for k := range f.Edges {
		vals[k] = j.edgeValue(&f.Edges[k], x, &j.aff[fi][k])
	}
	return j.dens[fi].LogDensityEdges(f, vals)
}

// Log is the joint log density at x.
func (j *Joint) Log(x []float64) float64 {
	s := 0.0
	for fi := range j.Net.Factors {
		s += j.FactorLog(fi, x)
	}
	return s
}

// LogOf is Σ log f(x) over the factors fs.
func (j *Joint) LogOf(fs []int, x []float64) float64 {
	s := 0.0
	for _, fi := range fs {
		s += j.FactorLog(fi, x)
	}
	return s
}

// ActiveVars lists the variables factor fi depends on at x: those of its
// edges' active branches and the selectors on the way, without repeats.
func (j *Joint) ActiveVars(fi int, x []float64) []int {
	var out []int
	add := func(v int) {
		for _, u := range out {
			if u == v {
				return
			}
		}
		out = append(out, v)
	}
	for k := range j.Net.Factors[fi].Edges {
		e := &j.Net.Factors[fi].Edges[k]
		for e.Selected {
			add(e.Sel)
			e = &e.Branches[j.State(e.Sel, x)]
		}
		for _, v := range e.Vars {
			add(v)
		}
	}
	return out
}

// Selectors lists the discrete variables factor fi depends on through any
// branch (its selectors) or directly (a categorical's x), without repeats.
func (j *Joint) Selectors(fi int) []int {
	var out []int
	for _, e := range j.Net.Factors[fi].Edges {
		for _, v := range e.VarsOf() {
			if j.Net.Vars[v].Family == graph.Discrete && !contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

func contains(s []int, v int) bool {
	for _, u := range s {
		if u == v {
			return true
		}
	}
	return false
}

// Reference sets x to the reference point: state 0 for discrete
// variables, an interior point of the support for the continuous ones (0.3 on the line,
// 1.3 on (0, ∞), 0.4 on (0, 1), (1, 2, …, K)/Σ on the simplex).
func (j *Joint) Reference(x []float64) {
	for v, nv := range j.Net.Vars {
		th := j.Value(v, x)
		switch nv.Family {
		case graph.Discrete:
			th[0] = 0
		case graph.Gaussian:
			th[0] = 0.3
		case graph.Gamma, graph.InvGamma:
			th[0] = 1.3
		case graph.Beta:
			th[0] = 0.4
		case graph.Dirichlet:
			s := float64(nv.Dim*(nv.Dim+1)) / 2
			for k := range th {
				th[k] = float64(k+1) / s
			}
		}
	}
}
