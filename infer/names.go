package infer

import (
	"fmt"
	"slices"
	"strings"
)

// This file is the one place where the names an infer line is written
// with are spelled: methods, divergences, schedules, moment schemes and
// approximating families, and the two rule-table columns that are not
// methods (predict, learn). Every other file compares the typed values
// below; names_test.go fails when a Go file outside this one compares a
// string with one of these names.

// Method is the inference method of an infer line.
type Method string

// The methods of an infer line.
const (
	MethodEP    Method = "ep"    // expectation propagation (BP on discrete models)
	MethodBP    Method = "bp"    // belief propagation
	MethodExact Method = "exact" // junction tree / quadrature gold standard
	MethodMCMC  Method = "mcmc"  // elliptical slice sampling / Gibbs gold standard
)

// The columns of the rule table (package factor) that are not methods: a
// kind's predictive rule and its evidence-maximisation rule.
const (
	ColumnPredict Method = "predict"
	ColumnLearn   Method = "learn"
)

// Methods lists the methods in the order the documentation gives them.
var Methods = []Method{MethodEP, MethodBP, MethodExact, MethodMCMC}

// ParseMethod returns the method called name.
func ParseMethod(name string) (Method, error) {
	if m := Method(name); slices.Contains(Methods, m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown method `%s`; methods are %s", name, joinNames(Methods))
}

// HasDivergence reports whether the method takes a divergence (ep, bp).
func (m Method) HasDivergence() bool { return m == MethodEP || m == MethodBP }

// Gold reports whether the method is a gold standard (exact, mcmc).
func (m Method) Gold() bool { return m == MethodExact || m == MethodMCMC }

// DivFamily is a divergence without its parameter: the column of the rule
// table a divergence selects. DivNone is the divergence of a method
// without one (exact, mcmc) and of the predict and learn columns.
type DivFamily int

// The divergence families.
const (
	DivNone      DivFamily = iota // no divergence
	DivKL                         // kl
	DivAlpha                      // alpha(a)
	DivRelaxedKL                  // relaxed_kl(c = C)
	DivT                          // t(nu = NU)
	// DivVMP is alpha(0), the exclusive-KL limit of power EP: variational
	// message passing, a rule-table column of its own (typed factor
	// graphs only).
	DivVMP
)

var divNames = [...]string{"", "kl", "alpha", "relaxed_kl", "t", "alpha(0)"}

func (f DivFamily) String() string {
	if f < 0 || int(f) >= len(divNames) {
		return fmt.Sprintf("DivFamily(%d)", int(f))
	}
	return divNames[f]
}

// FamilyOf returns the family of a divergence (DivNone for nil).
func FamilyOf(d Divergence) DivFamily {
	switch d := d.(type) {
	case KL:
		return DivKL
	case Alpha:
		if d.VMP() {
			return DivVMP
		}
		return DivAlpha
	case RelaxedKL:
		return DivRelaxedKL
	case T:
		return DivT
	}
	return DivNone
}

// NewDivergence returns the divergence of family f with parameter p
// (ignored for kl), checked by CheckDivergence.
func NewDivergence(f DivFamily, p float64) (Divergence, error) {
	var d Divergence
	switch f {
	case DivKL:
		d = KL{}
	case DivAlpha, DivVMP:
		d = Alpha{A: p}
	case DivRelaxedKL:
		d = RelaxedKL{C: p}
	case DivT:
		d = T{Nu: p}
	default:
		return nil, fmt.Errorf("unknown divergence %v", f)
	}
	return d, CheckDivergence(d)
}

// ParseDivFamily returns the divergence family called name.
func ParseDivFamily(name string) (DivFamily, error) {
	if k := slices.Index(divNames[1:DivVMP], name); k >= 0 {
		return DivFamily(k + 1), nil
	}
	return DivNone, fmt.Errorf("unknown divergence `%s`; divergences are %s", name, strings.Join(divNames[1:DivVMP], ", "))
}

func (KL) String() string          { return divNames[DivKL] }
func (d RelaxedKL) String() string { return fmt.Sprintf("%s(c = %g)", divNames[DivRelaxedKL], d.C) }
func (d Alpha) String() string     { return fmt.Sprintf("%s(%g)", divNames[DivAlpha], d.A) }
func (d T) String() string         { return fmt.Sprintf("%s(nu = %g)", divNames[DivT], d.Nu) }

var scheduleNames = [...]string{"sequential", "parallel", "random", "residual"}

func (s Schedule) String() string {
	if s < 0 || int(s) >= len(scheduleNames) {
		return fmt.Sprintf("Schedule(%d)", int(s))
	}
	return scheduleNames[s]
}

// ParseSchedule returns the schedule called name.
func ParseSchedule(name string) (Schedule, error) {
	if k := slices.Index(scheduleNames[:], name); k >= 0 {
		return Schedule(k), nil
	}
	return 0, fmt.Errorf("unknown schedule `%s`", name)
}

var schemeNames = [...]string{"gh", "laplace", "quick_laplace", "gq", "vq", "exact"}

func (k SchemeKind) String() string {
	if k < 0 || int(k) >= len(schemeNames) {
		return fmt.Sprintf("SchemeKind(%d)", int(k))
	}
	return schemeNames[k]
}

// ParseScheme returns the scheme called name ("exact", "gh", "laplace",
// "quick_laplace", "gq", "vq") with n Gauss–Hermite nodes for gh (ignored
// otherwise), checked by Check.
func ParseScheme(name string, n int) (Scheme, error) {
	if k := slices.Index(schemeNames[:], name); k >= 0 {
		sc := Scheme{Kind: SchemeKind(k)}
		if sc.Kind == SchemeGH {
			sc.N = n
		}
		return sc, sc.Check()
	}
	return Scheme{}, fmt.Errorf("unknown approx `%s`; schemes are %s", name, strings.Join(schemeNames[:], ", "))
}

var familyNames = [...]string{"full", "factorized"}

func (f Family) String() string {
	if f < 0 || int(f) >= len(familyNames) {
		return fmt.Sprintf("Family(%d)", int(f))
	}
	return familyNames[f]
}

// ParseFamily returns the family called name.
func ParseFamily(name string) (Family, error) {
	if k := slices.Index(familyNames[:], name); k >= 0 {
		return Family(k), nil
	}
	return 0, fmt.Errorf("family is %s, got `%s`", strings.Join(familyNames[:], " or "), name)
}

// ExactIntegrator is the integrator of infer exact on a continuous block
// that is not linear-Gaussian (infer/exact; the method option): ExactQuad,
// adaptive cubature (dimension ≤ MaxQuadDim, the default), and ExactIS,
// importance sampling (any dimension, asked for by name). Linear-Gaussian
// blocks have a closed form.
type ExactIntegrator string

// The integrators of infer exact.
const (
	ExactQuad ExactIntegrator = "quad"
	ExactIS   ExactIntegrator = "is"
)

// ExactMethods are the names of the integrators.
var ExactMethods = []string{string(ExactQuad), string(ExactIS)}

// CheckExactMethod checks an exact method name.
func CheckExactMethod(name string) error {
	if slices.Contains(ExactMethods, name) {
		return nil
	}
	return fmt.Errorf("unknown exact method `%s`; methods are %s", name, strings.Join(ExactMethods, ", "))
}
