package bp

import (
	"fmt"
	"math"

	"github.com/fg-infer/fg/graph"
)

// Problem is the compact engine form of a discrete factor graph: flat
// arrays in CSR layout, 32-bit indices, log-domain tables. Single-variable
// factors are absorbed into per-variable log priors (their BP message is
// their normalised table at every fixed point, so they need no message
// state); every factor of two or more distinct variables owns one message
// per incident variable.
//
// Layout (e indexes edges = (factor, variable) incidences):
//
//	card[i], voff[i]        states of variable i, offset of its states in prior/belief arrays
//	fstart[a]..fstart[a+1]  edges of factor a; evar[e] its variable, efac[e] = a
//	toff[a]                 offset of factor a's log table in tab (first variable fastest)
//	moff[e]                 offset of edge e's log message in the message arrays
//	vstart[i]..vstart[i+1]  vedge[...] = edges of variable i, by factor index
type Problem struct {
	nv     int
	card   []int32
	voff   []int32
	prior  []float64
	fstart []int32
	evar   []int32
	efac   []int32 // factor of each edge
	toff   []int32
	tab    []float64
	moff   []int32
	vstart []int32
	vedge  []int32
	orig   []int32 // graph factor index of each engine factor (-1 if built directly)
	// Absorbed single-variable factors, kept for the Bethe log Z:
	// factor uorig[u] on variable uvar[u] with log table utab[uoff[u]:...].
	uvar  []int32
	uoff  []int32
	utab  []float64
	uorig []int32
	nfac  int     // factors of the source graph (for per-factor results)
	logc  float64 // log of the constant factors (over no variable)
	names []string
}

// NumVars is the number of variables.
func (p *Problem) NumVars() int { return p.nv }

// NumFactors is the number of message-passing factors (two or more variables).
func (p *Problem) NumFactors() int { return len(p.fstart) - 1 }

// NumEdges is the number of factor–variable edges carrying messages.
func (p *Problem) NumEdges() int { return len(p.evar) }

// MessageBytes is the size of the message state a run with settings s
// keeps: 8 bytes per message on binary pairwise models under plain
// undamped BP (the spin state), else 8 bytes per state per edge; doubled
// when the schedule or damping keeps the newly computed messages apart.
func (p *Problem) MessageBytes(s Settings) (int, error) {
	en, err := newEngine(p, &s, true)
	if err != nil {
		return 0, err
	}
	if en.sp != nil {
		return 8 * (len(en.sp.r) + len(en.sp.nr)), nil
	}
	return 8 * (len(en.msg) + len(en.nmsg)), nil
}

// NewProblem converts a discrete graph. Every variable must be discrete with
// Card ≥ 1, every factor must have a table of Π card entries, finite and
// non-negative. A factor listing a variable twice is reduced to its diagonal
// over the distinct variables; a factor over no variable is a constant and
// is ignored (it changes log Z by log of its value: added to LogZ).
func NewProblem(g *graph.Graph) (*Problem, error) {
	b := newBuilder(len(g.Vars))
	for i, v := range g.Vars {
		if !v.Domain.Discrete() || v.Card < 1 {
			return nil, fmt.Errorf("bp: variable %s is %s; BP needs discrete variables", g.VarName(i), v.Domain)
		}
		b.addVar(v.Card)
	}
	b.p.prior = make([]float64, b.p.voff[len(g.Vars)])
	b.p.names = make([]string, len(g.Vars))
	for i := range g.Vars {
		b.p.names[i] = g.VarName(i)
	}
	for a := range g.Factors {
		vars, logt, err := canonical(g, a)
		if err != nil {
			return nil, err
		}
		if len(vars) == 0 {
			b.p.logc += logt[0]
			continue
		}
		b.addFactor(vars, logt, int32(a))
	}
	b.p.nfac = len(g.Factors)
	return b.finish(), nil
}

// canonical returns factor a's distinct variables and its log table over
// them (the diagonal when a variable is repeated).
func canonical(g *graph.Graph, a int) ([]int32, []float64, error) {
	f := &g.Factors[a]
	size := 1
	for _, v := range f.Vars {
		if v < 0 || v >= len(g.Vars) {
			return nil, nil, fmt.Errorf("bp: factor %d (%s) refers to variable %d of %d", a, f.Label, v, len(g.Vars))
		}
		size *= g.Vars[v].Card
	}
	if len(f.Table) != size {
		return nil, nil, fmt.Errorf("bp: factor %d (%s) has a table of %d entries, want %d", a, f.Label, len(f.Table), size)
	}
	var vars []int32
	pos := make([]int, len(f.Vars)) // position of each listed variable among the distinct ones
	for k, v := range f.Vars {
		pos[k] = -1
		for j, w := range vars {
			if int(w) == v {
				pos[k] = j
			}
		}
		if pos[k] < 0 {
			pos[k] = len(vars)
			vars = append(vars, int32(v))
		}
	}
	n := 1
	for _, v := range vars {
		n *= g.Vars[v].Card
	}
	logt := make([]float64, n)
	for i := range logt {
		logt[i] = math.Inf(-1)
	}
	state := make([]int, len(f.Vars))
	for _, x := range f.Table {
		if !(x >= 0) || math.IsInf(x, 1) {
			return nil, nil, fmt.Errorf("bp: factor %d (%s) has table entry %v; entries must be finite and non-negative", a, f.Label, x)
		}
		if j, ok := diagIndex(state, pos, vars, g); ok {
			logt[j] = math.Log(x)
		}
		for k := range state {
			if state[k]++; state[k] < g.Vars[f.Vars[k]].Card {
				break
			}
			state[k] = 0
		}
	}
	return vars, logt, nil
}

// diagIndex maps a state of the listed variables to the index over the
// distinct ones, reporting false if repeated variables disagree.
func diagIndex(state, pos []int, vars []int32, g *graph.Graph) (int, bool) {
	val := make([]int, len(vars))
	for j := range val {
		val[j] = -1
	}
	for k, s := range state {
		if val[pos[k]] >= 0 && val[pos[k]] != s {
			return 0, false
		}
		val[pos[k]] = s
	}
	idx, stride := 0, 1
	for j, v := range vars {
		idx += val[j] * stride
		stride *= g.Vars[v].Card
	}
	return idx, true
}
