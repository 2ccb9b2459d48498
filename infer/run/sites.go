package run

import (
	"fmt"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/ffep"
)

// siteLogLik returns log p(y | f) of a site and its first two derivatives
// in f, by the likelihood's LogDensity rule (package factor: every
// likelihood kind has one, TestKindsDocumented).
func siteLogLik(s graph.Site, f float64) (v, g, h float64) {
	return s.Lik.(factor.LogDensity).LogLik(s.Y, f)
}

// siteValue returns f ↦ log p(y | f) of a site (siteLogLik's value alone)
// with its label and parameters read once: the gold standards evaluate it
// millions of times.
func siteValue(s graph.Site) func(f float64) float64 {
	if lv, ok := s.Lik.(factor.LogValue); ok {
		return lv.LogValueAt(s.Y)
	}
	return func(f float64) float64 {
		v, _, _ := siteLogLik(s, f)
		return v
	}
}

// numericLikelihood wraps a site for infer/ep with the infer line's scheme.
func (j *job) numericLikelihood(s graph.Site) (ep.Likelihood, error) {
	scheme, err := ffep.SchemeOf(j.spec.Approx)
	if err != nil {
		return nil, err
	}
	return numericLik(s.Lik, scheme)
}

// numericLik is the infer/ep likelihood of a site's LogDensity rule
// integrated by scheme.
func numericLik(lik graph.SiteKind, scheme ffep.Scheme) (ep.Likelihood, error) {
	d, ok := lik.(factor.LogDensity)
	if !ok {
		return nil, fmt.Errorf("no one-dimensional rule for %s sites", lik.Name())
	}
	cp, isClass := lik.(factor.ClassProb)
	binary := isClass && classifier(cp)
	return ep.Numeric{Kind: lik.Name(), Scheme: scheme, LogLik: d.LogLik, Binary: binary, Check: siteRules(lik).CheckY}, nil
}

// siteRules is a site's likelihood as package factor's kind, for the
// rules the IR's graph.SiteKind does not name (CheckY, the rule table):
// compile makes every likelihood of a factor kind (nil stays nil).
func siteRules(lik graph.SiteKind) factor.Site {
	if lik == nil {
		return nil
	}
	return lik.(factor.Site)
}

// classifier reports whether a ClassProb rule gives class probabilities.
func classifier(c factor.ClassProb) bool {
	_, ok := c.Prob(0, 1)
	return ok
}

// sitePotential is a site as a potential of the whole block vector w, for
// fully factorised EP: log f(w) = log p(y | aᵀw), with gradient g·a and
// diagonal Hessian h·a².
type sitePotential struct {
	s graph.Site
	n int
}

func (p sitePotential) LogF(w []float64) float64 {
	v, _, _ := siteLogLik(p.s, project(p.s, w))
	return v
}

func (p sitePotential) Derivs(w, grad, hdiag []float64) float64 {
	v, g, h := siteLogLik(p.s, project(p.s, w))
	for i := range grad {
		grad[i], hdiag[i] = 0, 0
	}
	if p.s.Proj == nil {
		grad[p.s.Index], hdiag[p.s.Index] = g, h
		return v
	}
	for i, a := range p.s.Proj {
		k := i
		if p.s.Vars != nil {
			k = p.s.Vars[i]
		}
		grad[k], hdiag[k] = g*a, h*a*a
	}
	return v
}
