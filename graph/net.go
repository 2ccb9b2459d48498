package graph

import (
	"fmt"
	"reflect"

	"github.com/fg-infer/fg/lang/ast"
)

// Net is the typed factor graph: the model IR that the families, message
// rules and engines share. Every variable has an exponential family (the
// family of its messages and of its belief), every factor a typed kind and
// named edges, and a factor's parameters may be variables (a Gamma
// precision, a Beta probability, Dirichlet weights). It is the form in which
// models with non-Gaussian latents (Beta, Gamma, inverse Gamma, Dirichlet)
// and discrete chains are compiled; the Graph of graph.go (whose factors
// carry the same Kind but their numbers as tables and parameter maps) and
// the Gaussian-block forms of package compile are the older forms that the
// engines of Gaussian models still read (docs/architecture.md says which
// engine reads which).
//
// A Net is built by the compiler with AddVar and AddFactor and read by the
// engines; it holds no inference state. Variables and factors are numbered
// in the order they are added.
type Net struct {
	Fset    *ast.FileSet // resolves the positions of the variables and factors
	Vars    []NetVar
	Factors []NetFactor
	adj     [][]int // variable → factors touching it, built lazily
}

// Family is the exponential family of a variable in a Net: the family of
// the messages that reach it and of its approximate posterior.
type Family int

const (
	Gaussian  Family = iota // a real scalar: N(m, v)
	Gamma                   // a positive real: Gamma(shape, rate)
	InvGamma                // a positive real: InvGamma(shape, scale)
	Beta                    // a probability in (0, 1): Beta(a, b)
	Dirichlet               // a point of the (K−1)-simplex: Dirichlet(α₁..α_K)
	Discrete                // one of K states (cat(K), bool, spin)
	// StudentT is a real vector under a Student-t prior St(ν, m, Σ), the
	// family of t-exponential EP (families/tfam). Only the prior of a
	// Gaussian block has it (graph.PriorKind); no Net variable does.
	StudentT
)

var familyNames = [...]string{"gaussian", "gamma", "inv_gamma", "beta", "dirichlet", "discrete", "student_t"}

func (f Family) String() string {
	if f < 0 || int(f) >= len(familyNames) {
		return fmt.Sprintf("Family(%d)", int(f))
	}
	return familyNames[f]
}

// NetVar is one variable of a Net: element Elem (row-major, over the
// leading dimensions for a Dirichlet row) of graph latent Latent.
type NetVar struct {
	Name   string // as the tables print it: "p", "w[2]", "A[1]", "z[3]"
	Family Family
	// Dim is the number of states of a Discrete variable and the number
	// of components K of a Dirichlet one; 1 otherwise.
	Dim    int
	Latent int // index into Graph.Latents
	Elem   int // element index within the latent (the row for a Dirichlet)
	Pos    ast.Pos
}

// Kind is a factor kind as the IR sees it, the kind of a Net's factors
// and of a Graph's: package factor's kinds implement it (graph cannot
// name them, since factor imports graph), and the engines ask a kind for
// its rules by type assertion (factor's rule interfaces), never by
// comparing names; Name is the builtin's name, for printing.
type Kind interface {
	Name() string
}

// SameKind reports whether a and b are the same kind: values of one type.
// A kind type may hold its factor's parameters (factor.Ising's J,
// factor.Table's entries) and need not be comparable with ==; a graph
// stores the kind without them and the numbers beside it, so the type is
// the kind.
func SameKind(a, b Kind) bool { return reflect.TypeOf(a) == reflect.TypeOf(b) }

// Edge is one argument of a factor. Exactly one of these forms:
//
//   - a variable: Vars = [v], Coefs = [1], Const = 0;
//   - an affine expression Σ Coefs[k]·x[Vars[k]] + Const over Gaussian
//     variables (a regression mean dot(X[i], w) + b);
//   - data: Vars empty and Value holding the number or vector (a known
//     probability vector, an observed count);
//   - a selection by a discrete variable: Sel ≥ 0 is that variable and
//     Branches[k] is the edge's form when Sel is in state k (mu[z[i]],
//     A[z[t−1]]); a branch is itself a variable, affine or data edge.
//
// Selected is false for the first three forms (Sel is then meaningless).
type Edge struct {
	Name     string // the kind's name of this argument: "p", "rate", "mean", "prec", "var", "w", "x"
	Vars     []int
	Coefs    []float64
	Const    float64
	Value    []float64
	Selected bool
	Sel      int
	Branches []Edge
}

// VarEdge is the edge named name on variable v.
func VarEdge(name string, v int) Edge {
	return Edge{Name: name, Vars: []int{v}, Coefs: []float64{1}}
}

// DataEdge is the edge named name holding the data value x.
func DataEdge(name string, x ...float64) Edge {
	return Edge{Name: name, Value: x}
}

// IsVar reports whether e is a single variable with coefficient 1 and no
// constant, and returns it.
func (e Edge) IsVar() (int, bool) {
	if e.Selected || len(e.Vars) != 1 || e.Coefs[0] != 1 || e.Const != 0 {
		return -1, false
	}
	return e.Vars[0], true
}

// IsData reports whether e holds data (no variable, not selected).
func (e Edge) IsData() bool { return !e.Selected && len(e.Vars) == 0 }

// NetFactor is one factor of a Net: its kind, its edges in the kind's
// argument order, and the observation when the factor is a likelihood of
// data (Observed; Y holds the number, or the vector for a vector-valued
// observation such as a count vector). The variable a prior or a
// conditional is on is its edge named "x" (the first edge).
type NetFactor struct {
	Kind     Kind
	Edges    []Edge
	Observed bool
	Y        []float64
	Label    string // "bernoulli(y[3])", "gamma(tau)"
	Pos      ast.Pos
}

// Edge returns the factor's edge named name.
func (f *NetFactor) Edge(name string) (Edge, bool) {
	for _, e := range f.Edges {
		if e.Name == name {
			return e, true
		}
	}
	return Edge{}, false
}

// AddVar adds a variable and returns its index.
func (n *Net) AddVar(v NetVar) int {
	if v.Dim == 0 {
		v.Dim = 1
	}
	n.Vars = append(n.Vars, v)
	n.adj = nil
	return len(n.Vars) - 1
}

// AddFactor adds a factor and returns its index.
func (n *Net) AddFactor(f NetFactor) int {
	n.Factors = append(n.Factors, f)
	n.adj = nil
	return len(n.Factors) - 1
}

// VarsOf lists the variables an edge touches: its own, its selector's and
// its branches', in that order, without repeats.
func (e Edge) VarsOf() []int {
	var out []int
	seen := map[int]bool{}
	add := func(v int) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, v := range e.Vars {
		add(v)
	}
	if e.Selected {
		add(e.Sel)
		for _, b := range e.Branches {
			for _, v := range b.VarsOf() {
				add(v)
			}
		}
	}
	return out
}

// FactorsOf returns the factors that touch variable v, in factor order.
func (n *Net) FactorsOf(v int) []int {
	if n.adj == nil {
		n.adj = make([][]int, len(n.Vars))
		for fi := range n.Factors {
			seen := map[int]bool{}
			for _, e := range n.Factors[fi].Edges {
				for _, u := range e.VarsOf() {
					if !seen[u] {
						seen[u] = true
						n.adj[u] = append(n.adj[u], fi)
					}
				}
			}
		}
	}
	return n.adj[v]
}
