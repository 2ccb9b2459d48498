package graph

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// unionFind is a disjoint-set forest with path halving and union by size.
type unionFind struct{ parent, size []int }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, n), size: make([]int, n)}
	for i := range u.parent {
		u.parent[i], u.size[i] = i, 1
	}
	return u
}

func (u *unionFind) find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

// groups lists the sets of the elements v < n with in(v), each in element
// order, the sets ordered by their first element.
func (u *unionFind) groups(n int, in func(int) bool) [][]int {
	index := map[int]int{}
	var out [][]int
	for v := range n {
		if !in(v) {
			continue
		}
		r := u.find(v)
		k, ok := index[r]
		if !ok {
			k = len(out)
			index[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], v)
	}
	return out
}

// union merges the sets of a and b and reports whether they were distinct.
func (u *unionFind) union(a, b int) bool {
	a, b = u.find(a), u.find(b)
	if a == b {
		return false
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = a
	u.size[a] += u.size[b]
	return true
}

// distinctVars returns a factor's variables without repetitions, in
// first-seen order.
func distinctVars(vars []int) []int {
	out := make([]int, 0, len(vars))
	for _, v := range vars {
		dup := false
		for _, w := range out {
			dup = dup || w == v
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}

// Components returns the connected components of the factor graph as sets
// of variable ids: two variables are connected when a chain of factors links
// them. Each component is sorted ascending and components are ordered by
// their smallest variable; a variable touched by no factor is a component of
// its own.
func (g *Graph) Components() [][]int {
	u := newUnionFind(len(g.Vars))
	for _, f := range g.FactorForms() {
		vs := f.Vars
		for _, v := range vs[min(1, len(vs)):] {
			u.union(vs[0], v)
		}
	}
	return u.groups(len(g.Vars), func(int) bool { return true })
}

// HasCycle reports whether the factor graph (the bipartite graph of
// variables and factors, one edge per distinct factor–variable incidence)
// contains a cycle, i.e. whether loopy BP is not exact.
func (g *Graph) HasCycle() bool {
	return hasCycle(len(g.Vars), g.NumFactors(), g.FactorForms())
}

// Heuristic names for EliminationOrder.
const (
	MinFill   = "min-fill"   // eliminate the variable adding the fewest fill-in edges
	MinWeight = "min-weight" // eliminate the variable whose clique table is smallest
)

// EliminationOrder computes a greedy variable-elimination order on the
// interaction graph (variables adjacent when they share a factor). At each
// step it eliminates the remaining variable v minimising the heuristic cost,
// ties broken by the smallest id, then connects v's remaining neighbours:
//
//	min-fill:   cost(v) = #{ {a, b} ⊂ N(v) : a, b not adjacent }
//	min-weight: cost(v) = Π_{u ∈ N(v)} card(u)   (libDAI's MinWeight)
//
// It returns the order, the induced width w = max_v |N(v)| at elimination
// (the largest clique has w + 1 variables) and the size of the largest
// clique table Π_{u ∈ {v} ∪ N(v)} card(u). Continuous variables count as
// cardinality +Inf. An unknown heuristic is an error.
func (g *Graph) EliminationOrder(heuristic string) (order []int, width int, maxTableSize float64, err error) {
	return g.EliminationOrderContext(context.Background(), heuristic)
}

// EliminationOrderContext is EliminationOrder that stops with ctx.Err()
// when ctx is done (checked before every elimination).
//
// The remaining variables sit in a binary heap keyed by (cost, id), so
// each step takes the same variable as a scan for the smallest cost with
// ties to the smallest id, in O(log n) instead of O(n). Costs are updated
// lazily: eliminating v changes the cost only of v's neighbours (they lose
// v and gain fill edges; their cost is recomputed) and, for min-fill, of
// the common neighbours w of the two ends of each fill edge added, whose
// fill drops by one per such edge (N(w) is unchanged). Changed costs get a
// fresh heap entry; entries whose cost is stale are skipped when popped.
// Timings against the scan: docs/performance.md, "Elimination orders".
func (g *Graph) EliminationOrderContext(ctx context.Context, heuristic string) (order []int, width int, maxTableSize float64, err error) {
	return g.EliminationOrderBudget(ctx, heuristic, math.Inf(1), math.Inf(1))
}

// OverBudgetError is returned by EliminationOrderBudget when an
// elimination makes a clique table larger than the budget, or the tables
// of the cliques so far more than the total budget: the ordering stops
// there, before the rest of its work (on a 100×100 grid, min-fill passes a
// table of 2²⁵ entries after a fraction of the eliminations).
type OverBudgetError struct {
	Heuristic  string
	Eliminated int     // variables eliminated before the clique over budget
	Width      int     // induced width so far
	TableSize  float64 // entries of the clique table over budget (or the largest so far)
	Total      float64 // entries of all clique tables so far
	MaxTable   float64 // the budgets
	MaxTotal   float64
}

func (e *OverBudgetError) Error() string {
	if e.TableSize > e.MaxTable {
		return fmt.Sprintf("the %s elimination order reaches a clique table of %g entries (induced width ≥ %d) after %d eliminations, over the budget of %g entries", e.Heuristic, e.TableSize, e.Width, e.Eliminated, e.MaxTable)
	}
	return fmt.Sprintf("the %s elimination order's clique tables reach %g entries in all after %d eliminations, over the memory budget of %g entries", e.Heuristic, e.Total, e.Eliminated, e.MaxTotal)
}

// EliminationOrderBudget is EliminationOrderContext that stops with an
// *OverBudgetError as soon as a clique table has more than maxTable
// entries or all the clique tables so far more than maxTotal.
func (g *Graph) EliminationOrderBudget(ctx context.Context, heuristic string, maxTable, maxTotal float64) (order []int, width int, maxTableSize float64, err error) {
	var cost func(e *eliminator, v int) float64
	twoHop := false
	switch heuristic {
	case MinFill:
		cost, twoHop = (*eliminator).fill, true
	case MinWeight:
		cost = (*eliminator).weight
	default:
		return nil, 0, 0, fmt.Errorf("graph: unknown elimination heuristic %q (want %q or %q)", heuristic, MinFill, MinWeight)
	}
	e := newEliminator(g)
	q := newCostHeap(e, cost)
	order = make([]int, 0, len(g.Vars))
	total := 0.0
	for len(order) < len(g.Vars) {
		if ctx.Err() != nil {
			return nil, 0, 0, ctx.Err()
		}
		v := q.pop()
		width = max(width, len(e.nb[v]))
		size := e.cliqueSize(v)
		maxTableSize = math.Max(maxTableSize, size)
		total += size
		if size > maxTable || total > maxTotal {
			return nil, 0, 0, &OverBudgetError{Heuristic: heuristic, Eliminated: len(order), Width: width, TableSize: maxTableSize,
				Total: total, MaxTable: maxTable, MaxTotal: maxTotal}
		}
		ns := e.sortedNeighbours(v)
		added := e.eliminate(v, ns)
		order = append(order, v)
		q.update(ns, added, twoHop)
	}
	return order, width, maxTableSize, nil
}

// eliminator holds the interaction graph as neighbour sets.
type eliminator struct {
	nb    []map[int]struct{}
	card  []float64
	alive []bool
}

func newEliminator(g *Graph) *eliminator {
	e := &eliminator{nb: make([]map[int]struct{}, len(g.Vars)), card: make([]float64, len(g.Vars)), alive: make([]bool, len(g.Vars))}
	for v, x := range g.Vars {
		e.nb[v] = map[int]struct{}{}
		e.card[v] = math.Inf(1)
		if x.Card > 0 {
			e.card[v] = float64(x.Card)
		}
		e.alive[v] = true
	}
	for _, f := range g.FactorForms() {
		vs := distinctVars(f.Vars)
		for a := range vs {
			for b := a + 1; b < len(vs); b++ {
				e.nb[vs[a]][vs[b]] = struct{}{}
				e.nb[vs[b]][vs[a]] = struct{}{}
			}
		}
	}
	return e
}

func (e *eliminator) sortedNeighbours(v int) []int {
	ns := make([]int, 0, len(e.nb[v]))
	for u := range e.nb[v] {
		ns = append(ns, u)
	}
	sort.Ints(ns)
	return ns
}

func (e *eliminator) fill(v int) float64 {
	ns := e.sortedNeighbours(v)
	n := 0
	for a := range ns {
		for b := a + 1; b < len(ns); b++ {
			if _, ok := e.nb[ns[a]][ns[b]]; !ok {
				n++
			}
		}
	}
	return float64(n)
}

func (e *eliminator) weight(v int) float64 {
	w := 1.0
	for u := range e.nb[v] {
		w *= e.card[u]
	}
	return w
}

func (e *eliminator) cliqueSize(v int) float64 { return e.card[v] * e.weight(v) }

// eliminate removes v and connects its neighbours ns (sorted); it returns
// the fill edges it added.
func (e *eliminator) eliminate(v int, ns []int) (added [][2]int) {
	for a := range ns {
		delete(e.nb[ns[a]], v)
		for b := a + 1; b < len(ns); b++ {
			if _, ok := e.nb[ns[a]][ns[b]]; !ok {
				added = append(added, [2]int{ns[a], ns[b]})
				e.nb[ns[a]][ns[b]] = struct{}{}
				e.nb[ns[b]][ns[a]] = struct{}{}
			}
		}
	}
	e.nb[v] = nil
	e.alive[v] = false
	return added
}
