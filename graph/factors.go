package graph

import (
	"iter"
	"math"
	"slices"
	"sort"

	"github.com/fg-infer/fg/lang/ast"
)

// Factors are stored in runs, in the order they were added. A run is
// either a list of Factor values (AddFactor) or a compact run
// (AddCompact): the factors of one statement of one kind, position and
// parameter name, each of the same number of variables and table size,
// stored as columns — the variables of each factor, its scalar parameter
// and the offset of its table in the run's table array, where consecutive
// factors with the same table share one copy. A pairwise factor with a
// shared table then costs 28 bytes (two variables, its parameter, a table
// offset) instead of a Factor (136 bytes) and its variable slice (16), so a
// 1000×1000 Ising grid written in the language (3·10⁶ factors) takes about
// 100 MB rather than 460 MB. Factor(i) assembles a Factor value whose
// Vars and Table are views of the columns (no allocation); Label stays
// empty (FactorLabel makes it on demand). AddLogLinear stores a potential whose table is exp(θ·φ)
// entrywise, φ a statistic fixed for the run (ising: x_i·x_j, field: x_i),
// as its parameter θ alone: a coupling per edge then costs its variables
// and one number, like a shared one, and Factor(i) computes its table.
type factorStore struct {
	runs []factorRun
	n    int // factors in all
	hint int // capacity for the next run (Reserve)
}

// factorRun is factors first, first+1, ...: list, or the compact run c.
type factorRun struct {
	first int
	list  []Factor
	c     *compactRun
}

// compactRun holds the columns of a compact run.
type compactRun struct {
	kind         Kind
	scalarName   string
	pos          ast.Pos
	arity, tsize int
	vars         []int     // arity per factor
	scalar       []float64 // one per factor; nil while every one is 0 (a libDAI file's tables)
	n, hint      int       // factors in the run; the capacity Reserve asked for
	toff         []int32   // per factor: offset of its table in tab
	tab          []float64 // the tables, tsize entries each
	last         []float64 // the table the previous factor was added with
	// stat is the statistic φ of a log-linear run (AddLogLinear): factor
	// k's table is exp(scalar[k]·φ), and the run keeps no tables.
	stat []float64
}

func (r *factorRun) len() int {
	if r.c != nil {
		return r.c.n
	}
	return len(r.list)
}

// factor is the run's k-th factor.
func (r *factorRun) factor(k int) Factor {
	if r.c == nil {
		return r.list[k]
	}
	return r.c.factor(k)
}

// factor is the run's k-th factor.
func (c *compactRun) factor(k int) Factor {
	v := k * c.arity
	f := Factor{Kind: c.kind, Vars: c.vars[v : v+c.arity : v+c.arity],
		Pos: c.pos, ScalarName: c.scalarName, Scalar: c.scalarAt(k)}
	if c.tsize > 0 { // runs of factors without tables keep no offsets
		t := int(c.toff[k])
		f.Table = c.tab[t : t+c.tsize : t+c.tsize]
	}
	if c.stat != nil {
		f.Stat = c.stat
		f.Table = LogLinearTable(f.Scalar, c.stat)
	}
	return f
}

// NumFactors is the number of factors.
func (g *Graph) NumFactors() int { return g.factors.n }

// Factor is factor i (0 ≤ i < NumFactors). Its Vars and Table may be
// shared with the graph and with other factors: read them, never write
// (SetFactor replaces a factor).
func (g *Graph) Factor(i int) Factor {
	r := g.run(i)
	return r.factor(i - r.first)
}

// FactorPos is factor i's position (Factor(i).Pos without assembling it).
func (g *Graph) FactorPos(i int) ast.Pos {
	r := g.run(i)
	if r.c != nil {
		return r.c.pos
	}
	return r.list[i-r.first].Pos
}

// run is the run holding factor i.
func (g *Graph) run(i int) *factorRun {
	runs := g.factors.runs
	if i < 0 || i >= g.factors.n {
		panic("graph: factor index out of range")
	}
	k := sort.Search(len(runs), func(k int) bool { return runs[k].first > i }) - 1
	return &runs[k]
}

// Factors iterates over the factors in order, with their indices.
func (g *Graph) Factors() iter.Seq2[int, Factor] {
	return g.factorSeq(false)
}

// FactorForms iterates over the factors as Factors does, except that a
// log-linear factor (Stat non-nil) comes without its Table and a factor
// labelled on demand (AddIndexedFactor) without its Label, so that
// nothing is allocated: for readers that take a potential as θ·φ (BP) or
// that read only the variables and kinds.
func (g *Graph) FactorForms() iter.Seq2[int, Factor] {
	return g.factorSeq(true)
}

// KindUse is the kind shared by a stretch of factors, the position of
// their statement and whether they are potentials (a table or a log-linear
// statistic), as FactorKinds yields it.
type KindUse struct {
	Kind      Kind
	Pos       ast.Pos
	Potential bool
}

// FactorKinds yields the kinds of the graph's factors: once for each run of
// compact factors (which share kind, position and form) and once for each
// factor of a list run, so that a check of the kinds a model uses costs the
// number of its statements, not of its factors.
func (g *Graph) FactorKinds() iter.Seq[KindUse] {
	return func(yield func(KindUse) bool) {
		for ri := range g.factors.runs {
			r := &g.factors.runs[ri]
			if c := r.c; c != nil {
				if c.n > 0 && !yield(KindUse{c.kind, c.pos, c.tsize > 0 || c.stat != nil}) {
					return
				}
				continue
			}
			for k := range r.list {
				f := &r.list[k]
				if !yield(KindUse{f.Kind, f.Pos, f.Table != nil || f.Stat != nil}) {
					return
				}
			}
		}
	}
}

func (g *Graph) factorSeq(forms bool) iter.Seq2[int, Factor] {
	return func(yield func(int, Factor) bool) {
		for ri := range g.factors.runs {
			r := &g.factors.runs[ri]
			for k := range r.len() {
				var f Factor
				switch {
				case forms && r.c != nil && r.c.stat != nil:
					f = r.form(k)
				default:
					f = r.factor(k)
				}
				if !yield(r.first+k, f) {
					return
				}
			}
		}
	}
}

// form is factor k of a log-linear run without its table.
func (r *factorRun) form(k int) Factor {
	c := r.c
	v := k * c.arity
	return Factor{Kind: c.kind, Vars: c.vars[v : v+c.arity : v+c.arity], Pos: c.pos, ScalarName: c.scalarName,
		Scalar: c.scalarAt(k), Stat: c.stat}
}

// scalarAt is factor k's scalar.
func (c *compactRun) scalarAt(k int) float64 {
	if c.scalar == nil {
		return 0
	}
	return c.scalar[k]
}

// LogLinearTable is exp(θ·φ) entrywise: the table of a log-linear factor.
func LogLinearTable(theta float64, stat []float64) []float64 {
	t := make([]float64, len(stat))
	for k, s := range stat {
		t[k] = math.Exp(theta * s)
	}
	return t
}

// Reserve makes room for about n more factors, so that a plate known to
// add n of them fills its run in place instead of copying it as append
// grows it (a quarter at a time: dozens of copies for 10⁶ factors): in the
// run that receives the next factor (the last list for AddFactor, a new
// compact run for AddCompact), so that a list run before a plate of
// compact factors is not grown for nothing.
func (g *Graph) Reserve(n int) { g.factors.hint = n }

// AddFactor appends a factor and returns its index.
func (g *Graph) AddFactor(f Factor) int {
	if f.Kind == nil {
		panic("graph: AddFactor of a factor without a kind")
	}
	s := &g.factors
	if len(s.runs) == 0 || s.runs[len(s.runs)-1].c != nil {
		s.runs = append(s.runs, factorRun{first: s.n, list: make([]Factor, 0, max(s.hint, 1))})
	}
	r := &s.runs[len(s.runs)-1]
	if s.hint > 0 {
		r.list = slices.Grow(r.list, s.hint)
		s.hint = 0
	}
	r.list = append(r.list, f)
	g.adj = nil
	s.n++
	return s.n - 1
}

// AddCompact appends a factor of kind over vars with the table and the
// scalar parameter named scalarName (an Ising coupling J, a field h) to
// the compact run of the factors added before it when they share its kind,
// position, parameter name, number of variables and table size, else to a
// new compact run, and returns its index. The table is copied, once for
// consecutive factors given the same table slice.
func (g *Graph) AddCompact(kind Kind, pos ast.Pos, scalarName string, scalar float64, table []float64, vars ...int) int {
	return g.addCompact(compactRun{kind: kind, pos: pos, scalarName: scalarName}, scalar, table, vars)
}

// AddLogLinear appends a factor of kind over vars whose table is
// exp(theta·stat) entrywise (stat in libDAI order, the same slice for the
// whole statement: ising's x_i·x_j = [1, −1, −1, 1]) to the log-linear run
// of the factors added before it when they share its kind, position,
// parameter name, number of variables and stat, else to a new run, and
// returns its index. The run keeps theta and the variables, no table:
// Factor(i) computes the table, FactorForms gives theta and stat.
func (g *Graph) AddLogLinear(kind Kind, pos ast.Pos, scalarName string, theta float64, stat []float64, vars ...int) int {
	if len(stat) == 0 {
		panic("graph: AddLogLinear without a statistic")
	}
	return g.addCompact(compactRun{kind: kind, pos: pos, scalarName: scalarName, stat: stat}, theta, nil, vars)
}

// addCompact appends a factor with the run fields of key to the last run
// when it matches, else to a new run.
func (g *Graph) addCompact(key compactRun, scalar float64, table []float64, vars []int) int {
	if key.kind == nil {
		panic("graph: a compact factor without a kind")
	}
	s := &g.factors
	var c *compactRun
	if len(s.runs) > 0 {
		c = s.runs[len(s.runs)-1].c
	}
	if c == nil || !SameKind(c.kind, key.kind) || c.pos != key.pos || c.scalarName != key.scalarName || c.arity != len(vars) || c.tsize != len(table) ||
		!sameTable(c.stat, key.stat) {
		c = new(compactRun)
		*c = key
		c.arity, c.tsize = len(vars), len(table)
		if s.hint > 0 {
			c.vars = make([]int, 0, s.hint*len(vars))
			c.hint = s.hint
			if len(table) > 0 {
				c.toff = make([]int32, 0, s.hint)
			}
			s.hint = 0
		}
		s.runs = append(s.runs, factorRun{first: s.n, c: c})
	}
	switch {
	case len(table) == 0:
	case len(c.toff) == 0 || !sameTable(table, c.last):
		if len(c.tab)+len(table) > 1<<31-1 {
			// int32 offsets: start a new run rather than overflow.
			c.tsize = -1
			return g.addCompact(key, scalar, table, vars)
		}
		c.toff = append(c.toff, int32(len(c.tab)))
		c.tab = append(c.tab, table...)
		c.last = table
	default:
		c.toff = append(c.toff, c.toff[len(c.toff)-1])
	}
	c.push(scalar, vars)
	g.adj = nil
	s.n++
	return s.n - 1
}

// push appends a factor's variables and scalar to the run's columns.
func (c *compactRun) push(scalar float64, vars []int) {
	c.vars = append(c.vars, vars...)
	if c.scalar != nil || scalar != 0 || math.Signbit(scalar) {
		if c.scalar == nil {
			c.scalar = make([]float64, c.n, max(c.hint, c.n+1))
		}
		c.scalar = append(c.scalar, scalar)
	}
	c.n++
}

// sameTable reports whether a and b are the same slice (not only equal).
func sameTable(a, b []float64) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// SetFactor replaces factor i. A factor of a compact run turns its run
// into a list first (rare: tests and tools that edit a graph).
func (g *Graph) SetFactor(i int, f Factor) {
	r := g.run(i)
	if r.c != nil {
		list := make([]Factor, r.len())
		for k := range list {
			list[k] = r.factor(k)
			list[k].Vars = slices.Clone(list[k].Vars)
			list[k].Table = slices.Clone(list[k].Table)
		}
		r.list, r.c = list, nil
	}
	r.list[i-r.first] = f
	g.adj = nil
}
