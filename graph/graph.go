// Package graph is fg's factor-graph intermediate representation: latent
// variables (each a named array of scalar elements with a domain), factors
// over those elements with their kind, tables and parameters, and structural
// queries; and FactorGraph, the real latents of a compiled model held once
// (linear-Gaussian factors, affine likelihood sites, dense Gaussian blocks,
// gates), with its structure analyses. It knows nothing of inference
// algorithms (the engines' limits are their callers' to pass in).
package graph

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fg-infer/fg/lang/ast"
)

// Domain is the set of values a variable takes.
type Domain int

const (
	Real Domain = iota // the real line
	Spin               // {-1, +1}; state 0 is -1, state 1 is +1
	Bool               // {false, true}; state 0 is false
	Cat                // {0, ..., Card-1}
	Int                // integers (data only)
)

var domainNames = [...]string{"real", "spin", "bool", "cat", "int"}

func (d Domain) String() string {
	if d < 0 || int(d) >= len(domainNames) {
		return fmt.Sprintf("Domain(%d)", int(d))
	}
	return domainNames[d]
}

// Discrete reports whether the domain has finitely many states.
func (d Domain) Discrete() bool { return d == Spin || d == Bool || d == Cat }

// Latent is a declared latent variable: an array of Shape whose elements are
// the graph's scalar variables First, First+1, ... in row-major order.
type Latent struct {
	Name   string
	Domain Domain
	Card   int   // number of states for discrete domains, 0 for Real
	Shape  []int // nil for a scalar
	First  int   // ID of element 0 in Graph.Vars; -1 for a Compact latent
	Pos    ast.Pos
	// Compact marks a latent whose elements are not graph variables
	// (AddCompactLatent): no factor touches them one by one, so the graph
	// keeps only the latent's name and size.
	Compact bool
}

// Size is the number of scalar elements.
func (l *Latent) Size() int {
	n := 1
	for _, s := range l.Shape {
		n *= s
	}
	return n
}

// Var is one scalar variable: element Index (row-major) of latent Latent.
type Var struct {
	Latent int // index into Graph.Latents
	Index  int
	Domain Domain
	Card   int
}

// Factor is one factor node. Vars lists the scalar variables it touches in
// argument order. A discrete factor carries Table, a dense non-negative table
// over the joint states of Vars in libDAI order (the first variable changes
// fastest). Kind is the factor's kind, a value of one of package factor's
// kind types (factor.Ising{}, factor.Table{}, factor.Categorical{}, and
// for the continuous factors compile.Model.Factors makes, factor.Probit{},
// factor.NormalPrior{}, ...): its type is the kind — readers ask it what
// it is by a type switch or assertion (SameKind), never by its name, which
// is for printing (Kind.Name()) — and the fields of a kind type that holds
// parameters (factor.Ising's J) need not be set: the factors of a compact
// run share one kind value, and a factor's numbers are in Table and
// Scalar. Label is a readable name such as "step(y[4])" used in reports.
//
// (A compiled model's Graph holds its discrete factors only: its
// continuous factors — priors, conditionals, sites — are
// FactorGraph's, and compile.Model.Factors gives them as Factor
// values made on demand, with their other named numbers — a site's
// observation and its likelihood's parameters — through ParamList.) A potential
// of one scalar parameter (ising's J, field's h) keeps it in Scalar, named
// ScalarName; identical potentials share one Table,
// and the compiler may leave Label empty (FactorLabel makes it on demand):
// a 10⁶-factor grid then costs about the Factor itself per factor.
// A log-linear potential (AddLogLinear) also carries its statistic Stat:
// its table is exp(Scalar·Stat) entrywise, made when the factor is read
// (FactorForms leaves it out).
type Factor struct {
	Kind       Kind
	Vars       []int
	Table      []float64
	Label      string
	Pos        ast.Pos
	ScalarName string
	Scalar     float64
	Stat       []float64
}

// The factor budget bounds the number of factors of one graph as memory,
// not as a ceiling on useful models: MaxFactors is FactorBudget spent at
// FactorBytes a factor, an upper bound of the compact form of a factor of
// a few variables (the Factor, its variables, a table shared with
// identical potentials, or a small table of its own). That is 8 388 608
// factors, enough for a 1000×1000 Ising grid (3·10⁶ factors, or 2·10⁶ in
// libDAI form) and 2.7 times more. The compiler (plates) and the libDAI
// reader refuse a model past it before allocating.
const (
	FactorBudget = 2 << 30 // bytes
	FactorBytes  = 256
	MaxFactors   = FactorBudget / FactorBytes
)

// Graph is a factor graph. Build it with AddLatent, AddFactor and
// AddCompact; read its factors with NumFactors, Factor and Factors
// (factors.go holds their storage).
type Graph struct {
	// Fset resolves the positions of the latents and factors (nil: they
	// are unknown, a graph built by hand).
	Fset    *ast.FileSet
	Latents []Latent
	Vars    []Var
	factors factorStore
	adj     [][]int // variable -> factors, built lazily
}

// AddLatent declares a latent array and its scalar elements and returns its index.
func (g *Graph) AddLatent(name string, d Domain, card int, shape []int, pos ast.Pos) int {
	li := len(g.Latents)
	l := Latent{Name: name, Domain: d, Card: card, Shape: append([]int(nil), shape...), First: len(g.Vars), Pos: pos}
	g.Latents = append(g.Latents, l)
	g.Vars = slices.Grow(g.Vars, l.Size())
	for i := 0; i < l.Size(); i++ {
		g.Vars = append(g.Vars, Var{Latent: li, Index: i, Domain: d, Card: card})
	}
	g.adj = nil
	return li
}

// AddCompactLatent declares a real vector latent of n elements that are
// not graph variables: it has no IDs (First is -1) and no factor may name
// its elements. It is the form of weights that only an engine reading the
// whole latent at once touches (the compiler's streamed libsvm weights),
// so that a latent of 2²⁶ elements costs the graph nothing per element.
func (g *Graph) AddCompactLatent(name string, n int, pos ast.Pos) int {
	g.Latents = append(g.Latents, Latent{Name: name, Domain: Real, Shape: []int{n}, First: -1, Pos: pos, Compact: true})
	return len(g.Latents) - 1
}

// FactorLabel is factor i's readable name: its Label, or, when the
// compiler left Label empty (the compact form of large models: a label per
// factor would cost more than the factor), KIND(VAR, ...) made on demand —
// the text the compiler would have stored, e.g. ising(x[0], x[1]).
func (g *Graph) FactorLabel(i int) string {
	f := g.Factor(i)
	if f.Label != "" {
		return f.Label
	}
	var b strings.Builder
	b.WriteString(f.Kind.Name())
	b.WriteByte('(')
	for k, v := range f.Vars {
		if k > 0 {
			b.WriteString(", ")
		}
		if v >= 0 && v < len(g.Vars) {
			b.WriteString(g.VarName(v))
		} else {
			b.WriteByte('?')
		}
	}
	b.WriteByte(')')
	return b.String()
}

// VarName renders variable id as NAME or NAME[i, j].
func (g *Graph) VarName(id int) string {
	v := g.Vars[id]
	if l := &g.Latents[v.Latent]; len(l.Shape) == 0 {
		return l.Name
	}
	return string(g.AppendVarName(nil, id))
}

// AppendVarName appends VarName(id) to b, so that the names of many
// variables can share one buffer.
func (g *Graph) AppendVarName(b []byte, id int) []byte {
	v := g.Vars[id]
	l := &g.Latents[v.Latent]
	b = append(b, l.Name...)
	if len(l.Shape) == 0 {
		return b
	}
	b = append(b, '[')
	stride := 1
	for _, n := range l.Shape[1:] {
		stride *= n
	}
	rem := v.Index
	for k, n := range l.Shape {
		if k > 0 {
			b = append(b, ", "...)
			stride /= n
		}
		b = strconv.AppendInt(b, int64(rem/stride), 10)
		rem %= stride
	}
	return append(b, ']')
}

// FactorsOf returns the factors touching variable v.
func (g *Graph) FactorsOf(v int) []int {
	if g.adj == nil {
		g.adj = make([][]int, len(g.Vars))
		for fi, f := range g.FactorForms() {
			for _, u := range f.Vars {
				g.adj[u] = append(g.adj[u], fi)
			}
		}
	}
	return g.adj[v]
}
