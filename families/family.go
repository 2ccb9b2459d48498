// Package families holds the exponential families of fg's messages and
// beliefs, each in its own file: the scalar Gaussian (gaussian.go), Gamma,
// inverse Gamma, Beta, Dirichlet and discrete distributions, with the
// Student-t family in tfam and a jitter helper in gauss; and the EP site
// update every EP engine of fg calls (site.go: the Gaussian site from
// tilted derivatives, its multi-edge form, the clamp and the damping).
//
// Every family is written in natural parameters η with sufficient
// statistics T(x) and base measure dx (counting measure for the discrete
// family), so a density is exp(η·T(x) − A(η)) and
//
//	product of densities   η₁ + η₂      (Mul)
//	quotient               η₁ − η₂      (Div)
//	power                  u·η          (Pow)
//	damped step            (1−d)·η₀ + d·η₁ (Damp)
//	E[T(x)]                ∇A(η)        (ESS, "expected sufficient statistics")
//	entropy                A(η) − η·∇A(η)
//
// The flat message is η = 0 in every family here. The KL projection of a
// distribution p onto a family (the moment matching of EP; Minka 2005)
// is the member with E[T] = E_p[T] (Project): closed form for the
// Gaussian and the discrete family, a Newton solve on the digamma function
// for the Gamma, inverse Gamma, Beta and Dirichlet families (Minka 2000,
// "Estimating a Dirichlet distribution"; Minka 2002, "Estimating a Gamma
// distribution").
//
// Each family has a value type with exported parameters and a validating
// constructor (NewGamma, ...), and a Space: the family as operations on
// natural-parameter slices, which the message-passing engine (infer/mp)
// keeps per message.
package families

import (
	"errors"
	"fmt"
	"math"
)

// Space is one exponential family as operations on natural-parameter
// slices of length Len.
type Space interface {
	// Len is the number of natural parameters.
	Len() int
	// Proper reports whether η is a normalisable member.
	Proper(eta []float64) bool
	// LogNormalizer is A(η) = log ∫ exp(η·T(x)) dx (+Inf when improper).
	LogNormalizer(eta []float64) float64
	// ESS writes E[T(x)] = ∇A(η) to out.
	ESS(eta, out []float64)
	// Project writes to out the member whose E[T] equals ess (the KL
	// projection); an error when no member has them.
	Project(ess, out []float64) error
	// Moments writes the mean and variance of each component of x.
	Moments(eta, mean, variance []float64)
	// String formats the member with its usual parameters: "Beta(10, 6)".
	String(eta []float64) string
	// Params returns the usual parameters (shape and rate, a and b, ...).
	Params(eta []float64) []float64
}

// ErrImproper is returned for a natural-parameter vector that is not a
// normalisable member of its family.
var ErrImproper = errors.New("improper distribution")

// Entropy is the differential (or discrete) entropy A(η) − η·E[T] of the
// member η of s.
func Entropy(s Space, eta []float64) float64 {
	ess := make([]float64, len(eta))
	s.ESS(eta, ess)
	h := s.LogNormalizer(eta)
	for i := range eta {
		if eta[i] != 0 {
			h -= eta[i] * ess[i]
		}
	}
	return h
}

// Mul writes η₁ + η₂ (the product of the densities) to out.
func Mul(out, a, b []float64) {
	for i := range out {
		out[i] = a[i] + b[i]
	}
}

// Div writes η₁ − η₂ (the quotient of the densities) to out.
func Div(out, a, b []float64) {
	for i := range out {
		out[i] = a[i] - b[i]
	}
}

// Pow writes u·η (the density to the power u) to out.
func Pow(out, a []float64, u float64) {
	for i := range out {
		out[i] = u * a[i]
	}
}

// Damp writes (1 − d)·old + d·new to out: a damped step of size d in
// natural parameters, element by element by Damped (site.go).
func Damp(out, old, new []float64, d float64) {
	for i := range out {
		out[i] = Damped(old[i], new[i], d)
	}
}

func fmtParams(name string, p []float64) string {
	s := name + "("
	for i, x := range p {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.6g", x)
	}
	return s + ")"
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
