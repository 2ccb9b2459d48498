package factor

import (
	"fmt"
	"math"
	"strings"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// This file holds the interfaces of the kinds that appear in a typed
// factor graph (graph.Net): their edges, the validation of a factor's
// data and variable families, the log density on edge values (the gold
// standards' rule), and the message rules of infer/mp (EP and VMP), which
// each kind implements in its own file.
//
// A rule sees one factor with every edge resolved: a selection by a
// discrete variable (mu[z[i]], A[z[t−1]]) has been replaced by the branch
// of one state, and a discrete variable on the factor's x edge by the
// state's index (data). Infer/mp enumerates those states and combines the
// branches (a gated factor, Minka & Winn 2008); the kinds never see a
// selection. An affine edge Σ cₖ xₖ + c₀ over Gaussian variables reaches a
// rule as one Gaussian edge, the distribution of the expression, and the
// rule's Gaussian results are moments of the expression, which infer/mp
// maps to the member variables.

// NetKind is a kind that can be a factor of a graph.Net.
type NetKind interface {
	Kind
	// NetEdges lists the kind's edges: their names, in the order a
	// factor lists them, and the families a variable on the edge may have.
	NetEdges() []EdgeSpec
	// CheckNet validates a factor of the kind: the edges present, the
	// data values and observation in their domains, the families of the
	// variable edges (fam gives a variable's family). Errors are
	// *EdgeError values naming the edge and, for a vector, the element.
	CheckNet(f *graph.NetFactor, fam func(v int) graph.Family) error
	// LogDensityEdges is log f on edge values: vals[i] is the value of
	// f.Edges[i] (the state's branch for a selection, the expression's
	// value for an affine edge, the index of a discrete state), the
	// observation is f.Y. It is the rule of `infer exact` (quadrature,
	// enumeration) and `infer mcmc`.
	LogDensityEdges(f *graph.NetFactor, vals [][]float64) float64
}

// EdgeSpec describes one edge of a kind: its name, whether the factor
// must have it, and the families a variable on it may have (empty: data
// only). Alt names an edge that replaces this one (normal's prec and var).
type EdgeSpec struct {
	Name     string
	Required bool
	Families []graph.Family
	Alt      string
	Doc      string
	// EP and VMP say how the kind's message to a variable on the edge is
	// computed (the rows of NetMarkdown and `fg rules`).
	EP, VMP string
}

const (
	ruleConjugate = "exact: conjugate, closed form"
	ruleVMPClosed = "closed form"
)

// EdgeError is a domain or family error of one edge of a factor: Edge is
// its name ("" for the observation), Elem the element of a vector value
// (−1 for a scalar), Branch the selecting state for a selected edge (−1
// otherwise).
type EdgeError struct {
	Edge   string
	Elem   int
	Branch int
	Msg    string
}

func (e *EdgeError) Error() string { return e.Msg }

// EP is the expectation-propagation rule of a Net kind (divergences kl
// and alpha(u)): for cavities on the non-data edges, the log normaliser of
// the tilted distribution, log ∫ f^u Π exp(η_e·T(e)) — against the
// cavities as unnormalised densities exp(η·T), so that a flat or improper
// cavity (a prior's, before any other message reached its variable) is
// allowed where the tilted distribution is proper — and per non-data edge the
// tilted distribution's expected sufficient statistics in the edge's
// family (out[i].ESS; for a Gaussian edge (E a, E a²) of the expression),
// and, when the tilted marginal is exactly in the family (a conjugate
// edge), its natural parameters (out[i].Nat). Infer/mp projects (moment
// matching in the family, families.Space.Project) and divides by the
// cavity. An error means the factor cannot be updated from these
// cavities (improper, or a quadrature that failed).
type EP interface {
	EP(y []float64, in []In, u float64, out []Out) (logZ float64, err error)
}

// VMP is the variational message-passing rule (the alpha → 0 limit): for
// the beliefs of the non-data edges, E_q[log f] and per non-data edge the
// message in the edge's family in natural parameters, out[i].Nat: the
// coefficients of the edge's sufficient statistics in E_{q(others)}[log f]
// (Winn & Bishop 2005). For a Gaussian edge the message is in the
// expression's coordinates.
type VMP interface {
	VMP(y []float64, in []In, out []Out) (elogf float64, err error)
}

// In is one edge as a rule sees it: data (Data non-nil), or a
// distribution of family Fam in natural parameters Nat with its expected
// sufficient statistics ESS (EP: the cavity; VMP: the belief).
type In struct {
	Name string
	Data []float64
	Fam  graph.Family
	Nat  []float64
	ESS  []float64
}

// IsData reports whether the edge holds data.
func (e In) IsData() bool { return e.Data != nil }

// Out is a rule's result on one edge (see EP and VMP).
type Out struct {
	ESS []float64
	Nat []float64
}

// edgeIndex returns the index of the edge named name among in, or −1.
func edgeIndex(in []In, name string) int {
	for i := range in {
		if in[i].Name == name {
			return i
		}
	}
	return -1
}

// edgeValue returns the value of the factor's edge named name in vals.
func edgeValue(f *graph.NetFactor, vals [][]float64, name string) ([]float64, bool) {
	for i, e := range f.Edges {
		if e.Name == name {
			return vals[i], true
		}
	}
	return nil, false
}

// scalarEdge returns the scalar value of the edge named name.
func scalarEdge(f *graph.NetFactor, vals [][]float64, name string) float64 {
	v, ok := edgeValue(f, vals, name)
	if !ok || len(v) == 0 {
		return math.NaN()
	}
	return v[0]
}

// checkNetEdges checks the edges of f against the specs of kind k: every
// edge known, required ones (or their alternative) present, each variable
// of a variable, affine or selected edge of an allowed family; and calls
// data(name, branch, value) on every data value (a data edge, a data
// branch) for the kind's domain checks.
func checkNetEdges(k NetKind, f *graph.NetFactor, fam func(int) graph.Family, data func(name string, value []float64) error) error {
	specs := k.NetEdges()
	have := map[string]bool{}
	for _, e := range f.Edges {
		sp, ok := findSpec(specs, e.Name)
		if !ok {
			return &EdgeError{Edge: e.Name, Elem: -1, Branch: -1, Msg: fmt.Sprintf("%s has no argument %s; its arguments are %s", k.Name(), e.Name, specNames(specs))}
		}
		if have[e.Name] {
			return &EdgeError{Edge: e.Name, Elem: -1, Branch: -1, Msg: fmt.Sprintf("%s: argument %s given twice", k.Name(), e.Name)}
		}
		have[e.Name] = true
		if err := checkEdgeForm(k, sp, e, -1, fam, data); err != nil {
			return err
		}
	}
	for _, sp := range specs {
		if sp.Required && !have[sp.Name] && (sp.Alt == "" || !have[sp.Alt]) {
			return &EdgeError{Edge: sp.Name, Elem: -1, Branch: -1, Msg: fmt.Sprintf("%s needs the argument %s", k.Name(), sp.Name)}
		}
	}
	return nil
}

func checkEdgeForm(k NetKind, sp EdgeSpec, e graph.Edge, branch int, fam func(int) graph.Family, data func(string, []float64) error) error {
	if e.Selected {
		for b, br := range e.Branches {
			br.Name = e.Name
			if err := checkEdgeForm(k, sp, br, b, fam, data); err != nil {
				return err
			}
		}
		return nil
	}
	if e.IsData() {
		if err := data(e.Name, e.Value); err != nil {
			if ee, ok := err.(*EdgeError); ok {
				ee.Branch = branch
				return ee
			}
			return &EdgeError{Edge: e.Name, Elem: -1, Branch: branch, Msg: err.Error()}
		}
		return nil
	}
	for _, v := range e.Vars {
		got := fam(v)
		if !familyIn(got, sp.Families) {
			return &EdgeError{Edge: e.Name, Elem: -1, Branch: branch, Msg: fmt.Sprintf("%s: argument %s is a %s latent; %s takes %s (a %s latent fits %s)",
				k.Name(), e.Name, got, sp.Name, familiesText(sp.Families), got, strings.Join(KindsTaking(got), ", "))}
		}
	}
	if _, single := e.IsVar(); !single {
		for _, v := range e.Vars {
			if !familyIn(graph.Gaussian, sp.Families) || fam(v) != graph.Gaussian {
				return &EdgeError{Edge: e.Name, Elem: -1, Branch: branch, Msg: fmt.Sprintf("%s: argument %s is an expression of latents; only Gaussian latents combine affinely, and %s takes %s", k.Name(), e.Name, sp.Name, familiesText(sp.Families))}
			}
		}
	}
	return nil
}

func findSpec(specs []EdgeSpec, name string) (EdgeSpec, bool) {
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return EdgeSpec{}, false
}

func specNames(specs []EdgeSpec) string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

func familyIn(f graph.Family, fs []graph.Family) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}

func familiesText(fs []graph.Family) string {
	if len(fs) == 0 {
		return "data only"
	}
	var out []string
	for _, f := range fs {
		out = append(out, "a "+f.String()+" latent")
	}
	return "data or " + strings.Join(out, " or ")
}

// positive checks that every element of v is finite and > 0.
func positive(kind, name string, v []float64) error {
	for i, x := range v {
		if !(x > 0) || math.IsInf(x, 1) {
			return elemError(kind, name, i, len(v), x, "must be a finite number > 0")
		}
	}
	return nil
}

// scalarData checks that a data edge holds one number.
func scalarData(kind, name string, v []float64) error {
	if len(v) != 1 {
		return &EdgeError{Edge: name, Elem: -1, Branch: -1, Msg: fmt.Sprintf("%s: `%s` must be a number, got %d values", kind, name, len(v))}
	}
	return nil
}

func elemError(kind, name string, i, n int, x float64, want string) error {
	if n == 1 {
		return &EdgeError{Edge: name, Elem: -1, Branch: -1, Msg: fmt.Sprintf("%s: `%s` %s, got %g", kind, name, want, x)}
	}
	return &EdgeError{Edge: name, Elem: i, Branch: -1, Msg: fmt.Sprintf("%s: `%s[%d]` %s, got %g", kind, name, i, want, x)}
}

// checkCount checks an observed count: an integer in 0..hi.
func checkCount(kind string, y, hi float64) error {
	if !(y >= 0) || y != math.Floor(y) || y > hi {
		if hi < maxCount {
			return &EdgeError{Elem: -1, Branch: -1, Msg: fmt.Sprintf("%s: count %g, want 0, 1, …, %g", kind, y, hi)}
		}
		return &EdgeError{Elem: -1, Branch: -1, Msg: fmt.Sprintf("%s: count %g, want 0, 1, 2, …", kind, y)}
	}
	return nil
}

// observation checks that an observed factor has a scalar y and a prior
// one none.
func observation(kind string, f *graph.NetFactor) error {
	if f.Observed && len(f.Y) != 1 {
		return &EdgeError{Elem: -1, Branch: -1, Msg: fmt.Sprintf("%s: one observation per factor, got %d", kind, len(f.Y))}
	}
	return nil
}

// expFormer is a kind whose factor, with every edge but one data, is
// exp(c + ζ·T(x)) in the natural parameters of that edge's family
// (conjugate): expForm returns the edge's index (−1 when every edge is
// data; c is then log f), ζ and c.
type expFormer interface {
	expForm(y []float64, in []In) (edge int, zeta []float64, c float64, err error)
}

// conjugateEP is the EP rule of an expFormer: the tilted distribution of
// the latent edge is the cavity times exp(u ζ·T) — in the family, so the
// update is exact — and log Z = A(η + uζ) + u c.
func conjugateEP(k expFormer, y []float64, in []In, u float64, out []Out) (float64, error) {
	e, zeta, c, err := k.expForm(y, in)
	if err != nil || e < 0 {
		return u * c, err
	}
	sp := families.For(in[e].Fam, len(in[e].Nat))
	nat := make([]float64, len(zeta))
	for i := range nat {
		nat[i] = in[e].Nat[i] + u*zeta[i]
	}
	if !sp.Proper(nat) {
		return 0, fmt.Errorf("%s: improper tilted distribution: %w", in[e].Name, families.ErrImproper)
	}
	out[e].Nat = nat
	out[e].ESS = make([]float64, len(nat))
	sp.ESS(nat, out[e].ESS)
	return sp.LogNormalizer(nat) + u*c, nil
}

// conjugateVMP is the VMP rule of an expFormer: the message is ζ and
// E[log f] = c + ζ·E[T].
func conjugateVMP(k expFormer, y []float64, in []In, out []Out) (float64, error) {
	e, zeta, c, err := k.expForm(y, in)
	if err != nil || e < 0 {
		return c, err
	}
	out[e].Nat = zeta
	if in[e].ESS == nil { // an improper belief: the message needs no expectation of its own edge
		return math.NaN(), nil
	}
	return c + dot(zeta, in[e].ESS), nil
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		if a[i] != 0 {
			s += a[i] * b[i]
		}
	}
	return s
}

// latentEdge returns the index of the only non-data edge among in (−1
// when every edge is data), or an error when there are several.
func latentEdge(in []In) (int, error) {
	e := -1
	for i := range in {
		if !in[i].IsData() {
			if e >= 0 {
				return -1, fmt.Errorf("edges %s and %s are both latent; this rule takes one", in[e].Name, in[i].Name)
			}
			e = i
		}
	}
	return e, nil
}

// dataOf returns the data value of the edge named name (nil when latent
// or absent).
func dataOf(in []In, name string) []float64 {
	if i := edgeIndex(in, name); i >= 0 {
		return in[i].Data
	}
	return nil
}

// KindsTaking lists the kinds and edges that take a latent of family f,
// as "bernoulli(p)", for the error that refuses a latent on an edge of
// another family.
func KindsTaking(f graph.Family) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range kinds {
		nk, ok := k.(NetKind)
		if !ok {
			continue
		}
		for _, e := range nk.NetEdges() {
			if s := k.Name() + "(" + e.Name + ")"; familyIn(f, e.Families) && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
