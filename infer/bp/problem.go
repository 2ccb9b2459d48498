package bp

import (
	"fmt"
	"math"
	"slices"

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
//	fstart[a]..fstart.at(a+1)  edges of factor a; evar[e] its variable, efac[e] = a
//	                        (efac nil when every factor is pairwise: a = e/2)
//	toff[a]                 offset of factor a's log table in tab (first variable fastest);
//	                        factors with one source table share it (table)
//	theta.at(a)             the scale of that table: log f_a = θ_a·tab[toff[a]:...], the
//	                        parameter θ of a log-linear factor (graph.AddLogLinear: tab then
//	                        holds its statistic φ, once for its run), 1 for a factor given
//	                        its own table (a column: no array while every θ is the same)
//	moff[e]                 offset of edge e's log message in the message arrays
//	                        (moff nil when every variable is binary: 2e)
//	vstart[i]..vstart[i+1]  vedge[...] = edges of variable i, by factor index
//
// card, voff, fstart, toff, theta and orig are columns (column.go): on a
// binary pairwise model with one table, or a table each, they keep no
// arrays (card 2, voff 2i, fstart 2a, toff 0 or 4a).
type Problem struct {
	nv     int
	card   column[int32]
	voff   column[int32]
	prior  []float64
	fstart column[int32]
	evar   []int32
	efac   []int32 // factor of each edge (nil when every factor is pairwise)
	toff   column[int32]
	theta  column[float64]
	tab    []float64
	moff   []int32 // nil when every variable is binary (msgStart)
	vstart []int32
	vedge  []int32
	orig   column[int32] // graph factor index of each engine factor (-1 if built directly)
	// nabs[i] is the number of single-variable factors absorbed into
	// variable i's prior, for the Bethe log Z (their log tables sum to
	// the prior).
	nabs []int32
	nfac int     // factors of the source graph (for per-factor results)
	logc float64 // log of the constant factors (over no variable)
}

// table is factor a's log table as t and a scale θ: log f_a = θ·t, with t
// the Π card entries from toff[a] (first variable fastest).
func (p *Problem) table(a int32) (t []float64, theta float64) {
	n := int32(1)
	for e := p.fstart.at(a); e < p.fstart.at(a+1); e++ {
		n *= p.card.at(p.evar[e])
	}
	return p.tab[p.toff.at(a) : p.toff.at(a)+n : p.toff.at(a)+n], p.scale(a)
}

// scale is factor a's θ (1 for a factor given its own table).
func (p *Problem) scale(a int32) float64 { return p.theta.at(a) }

// factorOf is the factor of edge e.
func (p *Problem) factorOf(e int32) int32 {
	if p.efac == nil {
		return e >> 1
	}
	return p.efac[e]
}

// msgStart is the offset of edge e's message in the message arrays.
func (p *Problem) msgStart(e int32) int32 {
	if p.moff == nil {
		return 2 * e
	}
	return p.moff[e]
}

// msgOf is edge e's message in the message array m.
func (p *Problem) msgOf(m []float64, e int32) []float64 {
	if p.moff == nil {
		return m[2*e : 2*e+2 : 2*e+2]
	}
	return m[p.moff[e]:p.moff[e+1]:p.moff[e+1]]
}

// numMsg is the length of a message array: Σ_e card of e's variable.
func (p *Problem) numMsg() int {
	if p.moff == nil {
		return 2 * len(p.evar)
	}
	return int(p.moff[len(p.evar)])
}

// NumVars is the number of variables.
func (p *Problem) NumVars() int { return p.nv }

// NumFactors is the number of message-passing factors (two or more variables).
func (p *Problem) NumFactors() int { return p.fstart.n - 1 }

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
// is ignored (it changes log Z by log of its value: added to LogZ). A
// log-linear factor (graph.AddLogLinear) is taken as its parameter θ and
// its run's statistic φ, log f = θ·φ, without its table.
func NewProblem(g *graph.Graph) (*Problem, error) {
	b := newBuilder(len(g.Vars))
	for i, v := range g.Vars {
		if !v.Domain.Discrete() || v.Card < 1 {
			return nil, fmt.Errorf("bp: variable %s is %s; BP needs discrete variables", g.VarName(i), v.Domain)
		}
		b.addVar(v.Card)
	}
	b.p.prior = make([]float64, b.p.voff.at(int32(len(g.Vars))))
	nfac, nedge, ntab := 0, 0, 0
	var last []float64 // the previous factor's source table (or statistic)
	for _, f := range g.FactorForms() {
		t := f.Table
		if f.Stat != nil {
			t = f.Stat
		}
		if n := len(f.Vars); n > 1 {
			nfac, nedge = nfac+1, nedge+n
			if !sameSlice(t, last) {
				ntab += len(t)
			}
			last = t
		}
	}
	b.reserve(nfac, nedge, ntab)
	var buf canonBuf
	last = nil
	for a, f := range g.FactorForms() {
		vars, logt, err := canonical(g, a, f, &buf)
		if err != nil {
			return nil, err
		}
		if len(vars) == 0 {
			b.p.logc += logt[0]
			continue
		}
		t, theta := f.Table, 1.0
		if f.Stat != nil {
			t, theta = f.Stat, f.Scalar
		}
		share := len(vars) > 1 && len(vars) == len(f.Vars) && sameSlice(t, last)
		if f.Stat != nil && len(vars) > 1 && len(vars) == len(f.Vars) {
			b.addMulti(vars, t, theta, int32(a), share)
		} else {
			b.addFactor(vars, logt, int32(a), share)
		}
		if len(vars) > 1 {
			last = t
		}
	}
	b.p.nfac = g.NumFactors()
	return b.finish(), nil
}

// sameSlice reports whether a and b are the same non-empty slice (one
// table shared by several factors, as the compiler makes for identical
// potentials).
func sameSlice(a, b []float64) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// canonBuf is canonical's scratch space, reused from factor to factor.
type canonBuf struct {
	vars []int32
	logt []float64
}

// canonical returns factor a (f, as FactorForms gives it) distinct
// variables and its log table over them (the diagonal when a variable is
// repeated). Without repeated variables (the usual case) the results live
// in buf until the next call.
func canonical(g *graph.Graph, a int, f graph.Factor, buf *canonBuf) ([]int32, []float64, error) {
	if f.Stat != nil {
		if vars, ok := distinctVars(g, f, buf); ok {
			buf.logt = slices.Grow(buf.logt[:0], len(f.Stat))[:len(f.Stat)]
			for k, s := range f.Stat {
				if x := f.Scalar * s; math.IsNaN(x) || math.IsInf(x, 1) {
					return nil, nil, fmt.Errorf("bp: factor %d (%s) has table entry %v; entries must be finite and non-negative", a, g.FactorLabel(a), math.Exp(x))
				}
				buf.logt[k] = f.Scalar * s
			}
			return vars, buf.logt, nil
		}
		f.Table = graph.LogLinearTable(f.Scalar, f.Stat)
	}
	if vars, logt, ok, err := canonicalDistinct(g, a, f, buf); ok || err != nil {
		return vars, logt, err
	}
	size := 1
	for _, v := range f.Vars {
		if v < 0 || v >= len(g.Vars) {
			return nil, nil, fmt.Errorf("bp: factor %d (%s) refers to variable %d of %d", a, g.FactorLabel(a), v, len(g.Vars))
		}
		size *= g.Vars[v].Card
	}
	if len(f.Table) != size {
		return nil, nil, fmt.Errorf("bp: factor %d (%s) has a table of %d entries, want %d", a, g.FactorLabel(a), len(f.Table), size)
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
			return nil, nil, fmt.Errorf("bp: factor %d (%s) has table entry %v; entries must be finite and non-negative", a, g.FactorLabel(a), x)
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

// distinctVars is f's variables as int32 in buf when they are distinct, in
// range and as many states as a table of f.Stat has.
func distinctVars(g *graph.Graph, f graph.Factor, buf *canonBuf) ([]int32, bool) {
	buf.vars = buf.vars[:0]
	size := 1
	for k, v := range f.Vars {
		if v < 0 || v >= len(g.Vars) || slices.Contains(f.Vars[:k], v) {
			return nil, false
		}
		buf.vars = append(buf.vars, int32(v))
		size *= g.Vars[v].Card
	}
	return buf.vars, f.Stat == nil || len(f.Stat) == size
}

// canonicalDistinct is canonical for a factor whose variables are
// distinct: the log of its table, with no allocation. It reports false
// when a variable repeats (or is out of range: canonical then says so).
func canonicalDistinct(g *graph.Graph, a int, f graph.Factor, buf *canonBuf) ([]int32, []float64, bool, error) {
	if _, ok := distinctVars(g, f, buf); !ok {
		return nil, nil, false, nil
	}
	size := 1
	for _, v := range buf.vars {
		size *= g.Vars[v].Card
	}
	if len(f.Table) != size {
		return nil, nil, false, nil
	}
	buf.logt = slices.Grow(buf.logt[:0], size)[:size]
	for k, x := range f.Table {
		if !(x >= 0) || math.IsInf(x, 1) {
			return nil, nil, false, fmt.Errorf("bp: factor %d (%s) has table entry %v; entries must be finite and non-negative", a, g.FactorLabel(a), x)
		}
		buf.logt[k] = math.Log(x)
	}
	return buf.vars, buf.logt, true, nil
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
