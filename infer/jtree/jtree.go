// Package jtree computes exact marginals and the log partition function of a
// discrete factor graph with a junction tree built from a greedy
// elimination order (graph.EliminationOrder, min-fill or min-weight).
//
// Eliminating x_v in order creates the clique C_v = {v} ∪ N(v) and the
// separator S_v = N(v); the parent of C_v is C_u for the first-eliminated
// u ∈ S_v. Each factor goes to the clique of its first-eliminated variable.
// With ψ_C the product of its factors, Shafer–Shenoy propagation in the log
// domain computes
//
//	upward:   μ_{C→P}(x_S) = log Σ_{x_{C∖S}} exp(ψ_C + Σ_{children D} μ_{D→C})
//	log Z   = Σ_{roots R} log Σ_{x_R} exp(ψ_R + Σ_D μ_{D→R})
//	downward: μ_{P→C}(x_S) = log Σ_{x_{P∖S}} exp(β_P − μ_{C→P}),   β_C = ψ_C + all incoming μ
//
// and p(x_v) ∝ Σ_{C_v ∖ v} exp β_{C_v}. Every sum uses a max shift, so the
// result is exact to rounding whatever the magnitudes of the potentials.
// The largest clique table is known before any table is allocated; a run
// whose table would exceed Settings.MaxTableSize is refused with an error
// naming the induced width and the table size.
package jtree

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// tableBytes is the memory a clique table entry costs: ψ, the upward and
// downward messages (over the separator, at most the clique) and the
// belief, float64 each. The total of the clique tables is charged against
// infer.MemoryBudget before any table is made.
const tableBytes = 4 * 8

// DefaultMaxTableSize is the default budget: 2^25 entries (256 MiB per
// table), infer.MaxCliqueTable, which the compiler also checks.
const DefaultMaxTableSize = infer.MaxCliqueTable

// Settings configure Run. The zero value uses min-fill and the default budget.
type Settings struct {
	Heuristic    string  // graph.MinFill (default) or graph.MinWeight
	MaxTableSize float64 // largest clique table allowed, in entries; 0 means DefaultMaxTableSize
}

// Result holds the exact answers.
type Result struct {
	LogZ      float64     // log Σ_x Π_a f_a(x_a)
	Marginals [][]float64 // per variable id, p(x_v = k)
	Order     []int       // elimination order used
	Width     int         // induced width of the order (largest clique has Width+1 variables)
	TableSize float64     // entries of the largest clique table
	Status    infer.Status
	infer.Stats
}

type clique struct {
	vars     []int // v first, then its separator
	sep      []int
	parent   int // clique index, −1 for a root
	children []int
	psi      *table
	up, down *table // messages to and from the parent, over sep
	belief   *table
}

// Run computes log Z and all single-variable marginals of g exactly. Every
// variable must be discrete (Card ≥ 1) and every factor must carry a dense
// table matching its variables.
func Run(ctx context.Context, g *graph.Graph, s Settings) (*Result, error) {
	start := time.Now()
	if err := validate(g); err != nil {
		return nil, err
	}
	if s.Heuristic == "" {
		s.Heuristic = graph.MinFill
	}
	if s.MaxTableSize == 0 {
		s.MaxTableSize = DefaultMaxTableSize
	}
	err := g.CheckCliqueBudget(ctx, s.MaxTableSize) // before the ordering's work
	var bound *graph.CliqueBoundError
	if errors.As(err, &bound) {
		return nil, fmt.Errorf("jtree: %v; use an approximate method (bp)", err)
	}
	if err != nil {
		return nil, err
	}
	order, width, size, err := g.EliminationOrderBudget(ctx, s.Heuristic, s.MaxTableSize, float64(infer.MemoryBudget())/tableBytes)
	var over *graph.OverBudgetError
	if errors.As(err, &over) {
		return nil, fmt.Errorf("jtree: %v; use an approximate method (bp)", err)
	}
	if err != nil {
		return nil, err
	}
	card := cards(g)
	cl, of := buildCliques(g, order)
	if err := assignFactors(ctx, g, cl, of, card); err != nil {
		return nil, err
	}
	res := &Result{Order: order, Width: width, TableSize: size, Status: infer.Done}
	if res.LogZ, err = propagate(ctx, cl, card); err != nil {
		return nil, err
	}
	res.Marginals = marginals(g, cl, of, card)
	res.Stats = infer.Stats{Iterations: 1, Updates: len(cl), Runtime: time.Since(start)}
	return res, nil
}

func validate(g *graph.Graph) error {
	for i, v := range g.Vars {
		if !v.Domain.Discrete() || v.Card < 1 {
			return fmt.Errorf("jtree: variable %s is %s; the junction tree needs discrete variables", g.VarName(i), v.Domain)
		}
	}
	for i := range g.Factors() {
		f := g.Factor(i)
		n := 1
		for _, v := range f.Vars {
			if v < 0 || v >= len(g.Vars) {
				return fmt.Errorf("jtree: factor %d (%s) refers to variable %d of %d", i, g.FactorLabel(i), v, len(g.Vars))
			}
			n *= g.Vars[v].Card
		}
		if len(f.Table) != n {
			return fmt.Errorf("jtree: factor %d (%s) has a table of %d entries, want %d", i, g.FactorLabel(i), len(f.Table), n)
		}
		for _, x := range f.Table {
			if !(x >= 0) || math.IsInf(x, 1) {
				return fmt.Errorf("jtree: factor %d (%s) has table entry %v; entries must be finite and non-negative", i, g.FactorLabel(i), x)
			}
		}
	}
	return nil
}

func cards(g *graph.Graph) []int {
	c := make([]int, len(g.Vars))
	for i, v := range g.Vars {
		c[i] = v.Card
	}
	return c
}

// buildCliques replays the elimination and links each clique to the clique
// of its first-eliminated separator variable. of[v] is v's clique index.
func buildCliques(g *graph.Graph, order []int) ([]clique, []int) {
	nb := make([]map[int]bool, len(g.Vars))
	for v := range nb {
		nb[v] = map[int]bool{}
	}
	for _, f := range g.Factors() {
		for _, a := range f.Vars {
			for _, b := range f.Vars {
				if a != b {
					nb[a][b] = true
				}
			}
		}
	}
	pos := make([]int, len(g.Vars))
	for k, v := range order {
		pos[v] = k
	}
	cl := make([]clique, len(order))
	for k, v := range order {
		sep := sortedByPos(nb[v], pos)
		cl[k] = clique{vars: append([]int{v}, sep...), sep: sep, parent: -1}
		if len(sep) > 0 {
			cl[k].parent = pos[sep[0]]
		}
		for _, a := range sep {
			delete(nb[a], v)
			for _, b := range sep {
				if a != b {
					nb[a][b] = true
				}
			}
		}
	}
	for k := range cl {
		if p := cl[k].parent; p >= 0 {
			cl[p].children = append(cl[p].children, k)
		}
	}
	return cl, pos
}

func sortedByPos(set map[int]bool, pos []int) []int {
	out := make([]int, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	for i := 1; i < len(out); i++ { // insertion sort: separators are small
		for j := i; j > 0 && pos[out[j]] < pos[out[j-1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// assignFactors builds ψ_C. A factor over no variable is a constant; it is
// added to clique 0 (an error if the graph has no variable at all).
func assignFactors(ctx context.Context, g *graph.Graph, cl []clique, pos []int, card []int) error {
	for k := range cl {
		cl[k].psi = newTable(cl[k].vars, card)
	}
	for i := range g.Factors() {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		f := g.Factor(i)
		logf := make([]float64, len(f.Table))
		for j, x := range f.Table {
			logf[j] = math.Log(x)
		}
		if len(f.Vars) == 0 {
			if len(cl) == 0 {
				return fmt.Errorf("jtree: factor %d (%s) has no variables and the graph has none", i, g.FactorLabel(i))
			}
			for j := range cl[0].psi.log {
				cl[0].psi.log[j] += logf[0]
			}
			continue
		}
		first := f.Vars[0]
		for _, v := range f.Vars {
			if pos[v] < pos[first] {
				first = v
			}
		}
		cl[pos[first]].psi.addLog(f.Vars, logf, card)
	}
	return nil
}

// propagate runs the upward and downward passes and returns log Z.
func propagate(ctx context.Context, cl []clique, card []int) (float64, error) {
	logZ := 0.0
	for k := range cl { // elimination order: children before parents
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		b := collect(&cl[k], cl, card, false)
		if cl[k].parent < 0 {
			logZ += b.marginal(nil, card).log[0]
			continue
		}
		cl[k].up = b.marginal(cl[k].sep, card)
	}
	if math.IsInf(logZ, -1) || math.IsNaN(logZ) {
		return 0, fmt.Errorf("jtree: the model has zero total mass (log Z = %v)", logZ)
	}
	for k := len(cl) - 1; k >= 0; k-- { // parents before children
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		c := &cl[k]
		c.belief = collect(c, cl, card, true)
		for _, d := range c.children {
			t := &table{vars: c.belief.vars, cards: c.belief.cards, log: append([]float64(nil), c.belief.log...)}
			t.subTable(cl[d].up, card)
			cl[d].down = t.marginal(cl[d].sep, card)
		}
	}
	return logZ, nil
}

// collect returns ψ_C plus the messages from C's children and, if withDown,
// the message from its parent: the clique belief β_C (unnormalised, log).
func collect(c *clique, cl []clique, card []int, withDown bool) *table {
	b := &table{vars: c.psi.vars, cards: c.psi.cards, log: append([]float64(nil), c.psi.log...)}
	for _, d := range c.children {
		b.addTable(cl[d].up, card)
	}
	if withDown && c.down != nil {
		b.addTable(c.down, card)
	}
	return b
}

// marginals reads p(x_v) off the calibrated clique C_v.
func marginals(g *graph.Graph, cl []clique, pos []int, card []int) [][]float64 {
	out := make([][]float64, len(g.Vars))
	for v := range g.Vars {
		m := cl[pos[v]].belief.marginal([]int{v}, card).log
		z := math.Inf(-1)
		for _, l := range m {
			z = logAdd(z, l)
		}
		out[v] = make([]float64, len(m))
		for k, l := range m {
			out[v][k] = math.Exp(l - z)
		}
	}
	return out
}

// logAdd is log(e^a + e^b) without overflow.
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
