package fgraph

import (
	"iter"
	"slices"

	"github.com/fg-infer/fg/graph"
)

// The factors' affine forms f_k(x) = Σ_j a_kj x_{v_kj} + c_k with their
// observations y_k, variances v_k (0 for a site) and site indices are
// held as runs: a run is a stretch of factors of one arity over which
// every column of the compiled model's graph.Affines is one stretch — one
// rule base + step·k (a chain's targets t, its coefficients −1, its
// variance q) or a view of the explicit values the column holds (the
// observations) — so that the engine reads the model's columns in place:
// a 10⁶-step chain is three runs and no array per factor or edge. The
// edges of factor i of a run are e0 + arity·i … e0 + arity·(i+1) − 1
// (the messages are indexed by edge). What follows no long stretch —
// factors added one at a time (AddGaussian, AddSite), a model's stretches
// shorter than minRun — is held decoded, as per-edge and per-factor
// arrays (a run with starts).

// view is the values of one column over a run: vals[i] when vals is not
// nil, else the rule base + step·(k0 + i) as graph.Column values it (base
// itself when k0 + i or step is 0, so that a −0 stays −0).
type view[T int | int32 | float64] struct {
	base, step T
	k0         int
	vals       []T
}

// at is value i of the run.
func (w *view[T]) at(i int) T {
	if w.vals != nil {
		return w.vals[i]
	}
	if k := w.k0 + i; k != 0 && w.step != 0 {
		return w.base + T(k)*w.step
	}
	return w.base
}

// constant is the view of a value shared by every factor of a run.
func constant[T int | int32 | float64](x T) view[T] { return view[T]{base: x} }

// viewOf is the view of column c over from … to−1, which one stretch of c
// must cover.
func viewOf[T int | int32 | float64](c *graph.Column[T], from, to int) view[T] {
	end, base, step, k0, vals := c.Stretch(from)
	if end < to {
		panic("fgraph: a run spans two stretches of a column")
	}
	if vals != nil {
		return view[T]{vals: vals[: to-from : to-from]}
	}
	return view[T]{base: base, step: step, k0: k0}
}

// decoded is the view of column c over from … to−1 as values of its own.
func decoded[T int | int32 | float64](c *graph.Column[T], from, to int) view[T] {
	return view[T]{vals: c.AppendTo(make([]T, 0, to-from), from, to)}
}

// run is a stretch of n factors k0 … k0+n−1 whose edges start at e0.
// Either arity > 0 and vars, coefs view slot j of every factor (edge
// e0 + arity·i + j), or starts is not nil and factor i's edges are
// e0 + starts[i] … e0 + starts[i+1] − 1 with their variables and
// coefficients evar and ecoef (relative to e0): a decoded run.
type run struct {
	k0, n, e0 int
	arity     int
	vars      []view[int]
	coefs     []view[float64]
	starts    []int32
	evar      []int32
	ecoef     []float64
	c, y, v   view[float64]
	site      view[int32] // index into Graph.liks, −1 for a linear-Gaussian factor
}

// minRun is the shortest stretch of a model's factors held as a run of
// views; shorter ones are decoded together.
const minRun = 16

// fac is factor k as its engine reads it: its run, its index i there and
// its edges lo … hi−1.
type fac struct {
	r      *run
	i      int
	lo, hi int
}

// fac returns factor k's view.
func (g *Graph) fac(k int) fac {
	r := g.runOf(k)
	i := k - r.k0
	if r.starts != nil {
		return fac{r, i, r.e0 + int(r.starts[i]), r.e0 + int(r.starts[i+1])}
	}
	lo := r.e0 + r.arity*i
	return fac{r, i, lo, lo + r.arity}
}

// facs iterates over the factors in order with their views, a run at a
// time (no lookup per factor). The view is reused for the next factor.
func (g *Graph) facs() iter.Seq2[int, *fac] {
	return func(yield func(int, *fac) bool) {
		for ri := range g.runs {
			r := &g.runs[ri]
			f := fac{r: r}
			for i := range r.n {
				f.i = i
				if r.starts != nil {
					f.lo, f.hi = r.e0+int(r.starts[i]), r.e0+int(r.starts[i+1])
				} else {
					f.lo = r.e0 + r.arity*i
					f.hi = f.lo + r.arity
				}
				if !yield(r.k0+i, &f) {
					return
				}
			}
		}
	}
}

// varLists iterates over the factors in order with their variables in
// edge order (factor k's edges follow factor k−1's): a decoded run's
// lists are its own, a run of views is read a slot at a time, listChunk
// factors at a time, into a list reused for the next chunk. The passes
// over every edge (adjacency, components, bandwidth) read them as arrays,
// with no lookup per factor or edge.
func (g *Graph) varLists() iter.Seq2[int, []int32] {
	return func(yield func(int, []int32) bool) {
		var buf []int32
		for ri := range g.runs {
			r := &g.runs[ri]
			if r.starts != nil {
				for i := range r.n {
					if !yield(r.k0+i, r.evar[r.starts[i]:r.starts[i+1]]) {
						return
					}
				}
				continue
			}
			for i0 := 0; i0 < r.n; i0 += listChunk {
				i1 := min(i0+listChunk, r.n)
				buf = r.appendVars(buf[:0], i0, i1)
				for i := range i1 - i0 {
					if !yield(r.k0+i0+i, buf[r.arity*i:r.arity*(i+1)]) {
						return
					}
				}
			}
		}
	}
}

// listChunk is the number of factors of a run of views varLists reads at
// a time.
const listChunk = 1024

// appendVars appends the variables of factors i0 … i1−1 of r, a run of
// views, to dst in edge order, a slot at a time.
func (r *run) appendVars(dst []int32, i0, i1 int) []int32 {
	n, m := len(dst), r.arity*(i1-i0)
	dst = slices.Grow(dst, m)[:n+m]
	out := dst[n:]
	for j := range r.vars {
		w := &r.vars[j]
		if w.vals != nil {
			for i, v := range w.vals[i0:i1] {
				out[r.arity*i+j] = int32(v)
			}
			continue
		}
		// base + step·k, k = k0 + i: an integer rule (at's exceptions
		// for k or step 0 are the same number).
		v, step := w.base+(w.k0+i0)*w.step, w.step
		for e := j; e < m; e += r.arity {
			out[e] = int32(v)
			v += step
		}
	}
	return dst
}

// runOf is the run holding factor k.
func (g *Graph) runOf(k int) *run {
	rs := g.runs
	lo, hi := 0, len(rs)
	for hi-lo > 1 {
		if m := int(uint(lo+hi) >> 1); rs[m].k0 <= k {
			lo = m
		} else {
			hi = m
		}
	}
	return &rs[lo]
}

// v is the variable of edge e (lo ≤ e < hi), a its coefficient.
func (f *fac) v(e int) int {
	if f.r.starts != nil {
		return int(f.r.evar[e-f.r.e0])
	}
	return f.r.vars[e-f.lo].at(f.i)
}

func (f *fac) a(e int) float64 {
	if f.r.starts != nil {
		return f.r.ecoef[e-f.r.e0]
	}
	return f.r.coefs[e-f.lo].at(f.i)
}

// c is the factor's constant, y its observation, variance its noise
// variance (0 for a site) and site its index into Graph.liks (−1 for a
// linear-Gaussian factor).
func (f *fac) c() float64        { return f.r.c.at(f.i) }
func (f *fac) y() float64        { return f.r.y.at(f.i) }
func (f *fac) variance() float64 { return f.r.v.at(f.i) }
func (f *fac) site() int         { return int(f.r.site.at(f.i)) }
func (f *fac) gaussian() bool    { return f.r.site.at(f.i) < 0 }

// vars appends the factor's variables to dst, coefs its coefficients.
func (f *fac) vars(dst []int) []int {
	if r := f.r; r.starts != nil {
		ev := r.evar[f.lo-r.e0 : f.hi-r.e0]
		n := len(dst)
		dst = slices.Grow(dst, len(ev))[:n+len(ev)]
		for i, v := range ev {
			dst[n+i] = int(v)
		}
		return dst
	}
	ws := f.r.vars[:f.hi-f.lo]
	for j := range ws {
		dst = append(dst, ws[j].at(f.i))
	}
	return dst
}

func (f *fac) coefs(dst []float64) []float64 {
	if r := f.r; r.starts != nil {
		return append(dst, r.ecoef[f.lo-r.e0:f.hi-r.e0]...)
	}
	ws := f.r.coefs[:f.hi-f.lo]
	for j := range ws {
		dst = append(dst, ws[j].at(f.i))
	}
	return dst
}

// stretchEnd is the end of the stretch of c holding value i.
func stretchEnd[T int | int32 | float64](c *graph.Column[T], i int) int {
	end, _, _, _, _ := c.Stretch(i)
	return end
}

// source is where the runs of a model's factors read their columns: a's,
// with variances variance (a's when 0) and, when sites, the site index
// site0 + i for a's factor i (−1, linear-Gaussian, otherwise).
type source struct {
	a        *graph.Affines
	variance float64
	sites    bool
	site0    int
}

// end is the end of the longest stretch from i (< to) over which every
// column the runs read is one stretch.
func (s *source) end(i, to int) int {
	a := s.a
	end := min(to, stretchEnd(a.ArityCol(), i), stretchEnd(a.ConstCol(), i), stretchEnd(a.YCol(), i))
	if s.variance == 0 {
		end = min(end, stretchEnd(a.VarCol(), i))
	}
	for j := range a.Slots() {
		end = min(end, stretchEnd(a.VarsCol(j), i), stretchEnd(a.CoefsCol(j), i))
	}
	return end
}

// addRuns appends the runs of factors from … to−1 of s: a run of views
// per stretch of at least minRun factors of one arity, the others decoded.
func (g *Graph) addRuns(s *source, from, to int) {
	short := -1 // the first of the short stretches being gathered
	for i := from; i < to; {
		end := s.end(i, to)
		_, _, step, _, vals := s.a.ArityCol().Stretch(i)
		if end-i < minRun || vals != nil || step != 0 {
			if short < 0 {
				short = i
			}
			i = end
			continue
		}
		if short >= 0 {
			g.decodedRun(s, short, i)
			short = -1
		}
		g.viewRun(s, i, end)
		i = end
	}
	if short >= 0 {
		g.decodedRun(s, short, to)
	}
}

// numbers sets r's constants, observations, variances and site indices
// over from … to−1 of s, as views (read) or values of their own.
func (s *source) numbers(r *run, from, to int, read func(*graph.Column[float64], int, int) view[float64]) {
	r.c, r.y = read(s.a.ConstCol(), from, to), read(s.a.YCol(), from, to)
	r.v = constant(s.variance)
	if s.variance == 0 {
		r.v = read(s.a.VarCol(), from, to)
	}
	r.site = constant[int32](-1)
	if s.sites {
		r.site = view[int32]{base: int32(s.site0 + from), step: 1}
	}
}

// viewRun appends factors from … to−1 of s, one stretch of every column
// and of one arity, as a run of views.
func (g *Graph) viewRun(s *source, from, to int) {
	a := s.a
	_, base, _, _, _ := a.ArityCol().Stretch(from)
	r := run{k0: g.nf, n: to - from, e0: g.ne, arity: int(base)}
	for j := range r.arity {
		r.vars = append(r.vars, viewOf(a.VarsCol(j), from, to))
		r.coefs = append(r.coefs, viewOf(a.CoefsCol(j), from, to))
	}
	s.numbers(&r, from, to, viewOf[float64])
	g.appendRun(r)
}

// decodedRun appends factors from … to−1 of s as a decoded run.
func (g *Graph) decodedRun(s *source, from, to int) {
	a := s.a
	r := run{k0: g.nf, n: to - from, e0: g.ne, starts: make([]int32, 1, to-from+1)}
	ar := a.ArityCol().AppendTo(nil, from, to)
	slots := make([][]int, a.Slots())
	coefs := make([][]float64, a.Slots())
	for j := range slots {
		slots[j] = a.VarsCol(j).AppendTo(nil, from, to)
		coefs[j] = a.CoefsCol(j).AppendTo(nil, from, to)
	}
	for i, n := range ar {
		for j := range int(n) {
			r.evar = append(r.evar, int32(slots[j][i]))
			r.ecoef = append(r.ecoef, coefs[j][i])
		}
		r.starts = append(r.starts, int32(len(r.evar)))
	}
	s.numbers(&r, from, to, decoded[float64])
	g.appendRun(r)
}

// appendRun appends r's factors and edges.
func (g *Graph) appendRun(r run) {
	g.runs = append(g.runs, r)
	g.nf += r.n
	if r.starts != nil {
		g.ne += int(r.starts[r.n])
	} else {
		g.ne += r.arity * r.n
	}
}

// cst is factor k's constant, obs its observation, noise its variance and
// siteIndex its index into liks (−1 for a linear-Gaussian factor).
func (g *Graph) cst(k int) float64 {
	f := g.fac(k)
	return f.c()
}

func (g *Graph) obs(k int) float64 {
	f := g.fac(k)
	return f.y()
}

func (g *Graph) noise(k int) float64 {
	f := g.fac(k)
	return f.variance()
}

func (g *Graph) siteIndex(k int) int {
	f := g.fac(k)
	return f.site()
}

// factorVars appends factor k's variables to dst, factorCoefs its
// coefficients.
func (g *Graph) factorVars(k int, dst []int) []int {
	f := g.fac(k)
	return f.vars(dst)
}

func (g *Graph) factorCoefs(k int, dst []float64) []float64 {
	f := g.fac(k)
	return f.coefs(dst)
}

// minVar is the factor's smallest variable.
func (f *fac) minVar() int {
	m := f.v(f.lo)
	for e := f.lo + 1; e < f.hi; e++ {
		m = min(m, f.v(e))
	}
	return m
}
