// Package stdlib is fg's builtin library: one registry of every name the
// language knows (distributions, potentials, losses, kernels, data loaders and
// generators, math functions, result accessors, divergences, schedules and
// approximation schemes) with their parameters, defaults, accepted domains and
// a one-line doc (the factor kinds are registered by package factor, whose
// types also carry the message rules); and the data
// loaders and graph generators behind csv(), geodesic_dome(), grid(),
// random_normal() and rows().
//
// The compiler consults the registry for every call it sees, binds arguments
// with Bind, and reports unknown names with a "did you mean" suggestion from
// Suggest. docs/language.md is written from this table.
package stdlib

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fg-infer/fg/graph"
)

// Kind classifies a builtin name.
type Kind int

const (
	// Distribution is used on the right of `~`: a prior on a latent or a
	// likelihood of an observation.
	Distribution Kind = iota
	// Potential is used after `factor`: ising, field, table, exp.
	Potential
	// Loss is a scalar loss function usable inside `factor exp(...)`.
	Loss
	// Kernel is a covariance function for gp()/tp() priors.
	Kernel
	// Data is a data loader or generator evaluated at compile time.
	Data
	// Math is an elementwise or reducing math function.
	Math
	// Predict builds a `predict` quantity.
	Predict
	// Accessor reads a result inside `expect`.
	Accessor
	// DivergenceName is a value of an infer line's `divergence` option.
	DivergenceName
	// ScheduleName is a value of an infer line's `schedule` option.
	ScheduleName
	// ApproxName is a value of an infer line's `approx` option.
	ApproxName
	// Plate generates the index sets of a for-plate.
	Plate
	// Method is an inference method of an infer line.
	Method
)

var kindNames = [...]string{"distribution", "potential", "loss", "kernel", "data",
	"math", "predict", "accessor", "divergence", "schedule", "approx", "plate", "method"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// ArgType is the kind of value a parameter accepts.
type ArgType int

const (
	NumberT    ArgType = iota // a scalar
	NumericT                  // a scalar, vector or matrix (elementwise)
	VectorT                   // a vector of numbers
	MatrixT                   // a matrix (rows are points)
	StringT                   // a string literal or string param
	BoolT                     // true / false
	KernelT                   // a kernel expression
	GraphT                    // a graph value (geodesic_dome(), grid(), libdai())
	LatentT                   // a latent variable element or expression of latents
	StringList                // a list of strings
	Any                       // anything
)

var argTypeNames = [...]string{"number", "numeric", "vector", "matrix", "string", "bool",
	"kernel", "graph", "latent", "list of strings", "any"}

func (t ArgType) String() string {
	if t < 0 || int(t) >= len(argTypeNames) {
		return fmt.Sprintf("ArgType(%d)", int(t))
	}
	return argTypeNames[t]
}

// Param is one parameter of a builtin. Default is the fg expression used when
// the argument is omitted; it is empty for required parameters.
type Param struct {
	Name     string
	Type     ArgType
	Required bool
	Default  string
	Doc      string
	// Forms are other ways to give the parameter by name (VarianceForms:
	// `sd =`, `precision =`); positional arguments are in the canonical form.
	Forms []Form
}

// Builtin is one entry of the registry.
type Builtin struct {
	Name   string
	Kind   Kind
	Params []Param
	// Variadic: the last parameter may repeat (table(x..., T) is handled by
	// the compiler: all but the last argument are variables).
	Variadic bool
	// Domains are the variable domains the builtin applies to: for a
	// distribution the domain of the left side of `~` (or of the latent it
	// is a prior of); for a potential the domain of its variable arguments.
	Domains []graph.Domain
	// Observed is true for likelihoods whose left side must be data.
	Observed bool
	// Prior is true for distributions usable as a latent's prior.
	Prior bool
	Doc   string
}

// Signature renders name(p1, p2 = default, ...).
func (b *Builtin) Signature() string {
	parts := make([]string, len(b.Params))
	for i, p := range b.Params {
		parts[i] = p.Name
		if len(p.Forms) > 0 {
			parts[i] = p.formNames()
		}
		if !p.Required {
			parts[i] += " = " + p.Default
		}
		if b.Variadic && i == len(b.Params)-1 {
			parts[i] += "..."
		}
	}
	return b.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Param returns the parameter called name (its own name, not a form's).
func (b *Builtin) Param(name string) (Param, bool) {
	for _, p := range b.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

var (
	byKindName = map[Kind]map[string]*Builtin{}
	registry   []*Builtin // table's entries, then the registered ones, in order
)

func init() {
	for i := range table {
		add(&table[i])
	}
}

func add(b *Builtin) {
	m := byKindName[b.Kind]
	if m == nil {
		m = map[string]*Builtin{}
		byKindName[b.Kind] = m
	}
	if _, dup := m[b.Name]; dup {
		panic("stdlib: duplicate builtin " + b.Kind.String() + " " + b.Name)
	}
	m[b.Name] = b
	registry = append(registry, b)
}

// Register adds a builtin defined outside this package: package factor
// registers the factor kinds (distributions, potentials, losses) from its
// one file per kind, at init. It panics on a duplicate name of one kind.
func Register(b Builtin) {
	add(&b)
}

// All returns every builtin in registry order.
func All() []*Builtin {
	return append([]*Builtin(nil), registry...)
}

// Lookup returns the builtin name of kind k.
func Lookup(k Kind, name string) (*Builtin, bool) {
	b, ok := byKindName[k][name]
	return b, ok
}

// LookupAny returns every builtin called name, whatever its kind (a name
// such as `normal` is both a distribution and a likelihood; `t` is a
// divergence; `exp` is math and a potential).
func LookupAny(name string) []*Builtin {
	var out []*Builtin
	for _, b := range registry {
		if b.Name == name {
			out = append(out, b)
		}
	}
	return out
}

// Names returns the sorted names of kind k.
func Names(k Kind) []string {
	var out []string
	for n := range byKindName[k] {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Find returns the builtin name of kind k, or an error "unknown KIND `name`"
// with a did-you-mean suggestion among that kind's names.
func Find(k Kind, name string) (*Builtin, error) {
	if b, ok := Lookup(k, name); ok {
		return b, nil
	}
	msg := fmt.Sprintf("unknown %s `%s`", k, name)
	if s := Suggest(name, Names(k)); s != "" {
		msg += fmt.Sprintf("; did you mean `%s`?", s)
	} else {
		msg += "; known: " + strings.Join(Names(k), ", ")
	}
	return nil, fmt.Errorf("%s", msg)
}
