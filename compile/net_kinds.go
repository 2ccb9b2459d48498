package compile

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/stdlib"
)

// A Net model's distributions are package factor's Net kinds
// (factor.NetKind): a kind's edges (NetEdges) name its arguments and the
// families a latent may have on each, and its CheckNet validates a
// factor's data and families. The compiler binds a call's arguments to
// the edges of the same name, with one rewrite: the variance of normal is
// the precision edge `prec` when written `1 / tau` with tau a latent (or
// `precision = tau`).

// netParam is one argument of a Net kind's call, lowered to an edge.
type netParam struct {
	name string // the builtin's parameter bound to it
	edge string // the edge
	// vector marks an argument that is one vector of K entries per
	// element (dirichlet's alpha, categorical's p); others are one number
	// or latent per element.
	vector bool
	// latent reports whether a latent may be on the edge (its spec has
	// families), affine whether an affine expression of Gaussian latents
	// may (its spec takes Gaussian variables).
	latent, affine bool
	// prec is the precision form of normal's variance (the edge prec),
	// nil for other parameters.
	prec *netParam
}

// The edges of normal's variance in its two forms.
const (
	varEdge  = "var"
	precEdge = "prec"
)

// netPriorKind returns the Net kind of a prior or conditional called
// name, with the family it gives its variable (its x edge).
func netPriorKind(name string) (factor.NetKind, graph.Family, bool) {
	k, ok := factor.Lookup(name, factor.Prior)
	if !ok {
		return nil, 0, false
	}
	nk, ok := k.(factor.NetKind)
	if !ok {
		return nil, 0, false
	}
	x, ok := edgeSpec(nk, "x")
	if !ok || len(x.Families) == 0 {
		return nil, 0, false
	}
	return nk, x.Families[0], true
}

// netLikelihoodKind returns the Net kind of a likelihood called name: a
// likelihood kind, or a prior kind whose x edge may be absent (then the
// factor observes its value: categorical).
func netLikelihoodKind(name string) (factor.NetKind, bool) {
	if k, ok := factor.Lookup(name, factor.Likelihood); ok {
		nk, ok := k.(factor.NetKind)
		return nk, ok
	}
	if k, ok := factor.Lookup(name, factor.Prior); ok {
		if nk, ok := k.(factor.NetKind); ok {
			if x, has := edgeSpec(nk, "x"); has && !x.Required {
				return nk, true
			}
		}
	}
	return nil, false
}

// familyDomain is the domain of the latents a family's variables come
// from.
func familyDomain(f graph.Family) graph.Domain {
	if f == graph.Discrete {
		return graph.Cat
	}
	return graph.Real
}

// netEdgeSpecs caches each kind's edges (NetEdges builds them anew at
// every call; a plate asks once per factor).
var netEdgeSpecs sync.Map // factor.Key → []factor.EdgeSpec

// edgeSpecs returns kind k's edges.
func edgeSpecs(k factor.NetKind) []factor.EdgeSpec {
	key := factor.KeyOf(k)
	if s, ok := netEdgeSpecs.Load(key); ok {
		return s.([]factor.EdgeSpec)
	}
	s := k.NetEdges()
	netEdgeSpecs.Store(key, s)
	return s
}

// edgeSpec returns kind k's edge called name.
func edgeSpec(k factor.NetKind, name string) (factor.EdgeSpec, bool) {
	for _, s := range edgeSpecs(k) {
		if s.Name == name {
			return s, true
		}
	}
	return factor.EdgeSpec{}, false
}

// netParams lists the arguments of kind k's call (builtin b) in edge
// order, without the x edge of a prior and with normal's variance once
// (its prec alternative is chosen per call: netArgs).
func netParams(k factor.NetKind, b *stdlib.Builtin) []netParam {
	var out []netParam
	for _, s := range edgeSpecs(k) {
		if s.Name == "x" || s.Name == precEdge {
			continue
		}
		p := specParam(s.Name, s)
		if bp, ok := b.Param(s.Name); ok && bp.Type == stdlib.VectorT {
			p.vector = true
		}
		if prec, ok := edgeSpec(k, precEdge); ok && s.Name == varEdge {
			pp := specParam(s.Name, prec)
			p.prec = &pp
		}
		out = append(out, p)
	}
	return out
}

// specParam is the argument name bound to the edge of spec s.
func specParam(name string, s factor.EdgeSpec) netParam {
	return netParam{name: name, edge: s.Name, latent: len(s.Families) > 0, affine: hasFamily(s.Families, graph.Gaussian)}
}

// netNames lists the names of the Net kinds that are priors on domain d
// (likelihoods false) or likelihoods, sorted.
func netNames(likelihoods bool, d graph.Domain) []string {
	var out []string
	for _, k := range factor.All() {
		if likelihoods {
			if _, ok := netLikelihoodKind(k.Name()); ok {
				out = append(out, k.Name())
			}
			continue
		}
		if _, fam, ok := netPriorKind(k.Name()); ok && k.Role() == factor.Prior && familyDomain(fam) == d {
			out = append(out, k.Name())
		}
	}
	sort.Strings(out)
	return dedup(out)
}

// netPriorList says which priors a latent like l can take in a Net model
// (what names the distribution that was refused, or "").
func netPriorList(what string, l *graph.Latent) string {
	names := netNames(false, l.Domain)
	msg := fmt.Sprintf("priors for %s latents are %s", l.Domain, strings.Join(names, ", "))
	if len(names) == 0 {
		msg = fmt.Sprintf("%s latents take no prior in %s (use cat(K) with categorical, or real)", l.Domain, netModel)
	}
	if what == "" {
		return msg
	}
	return fmt.Sprintf("`%s` cannot be the prior of `%s` in %s: %s", what, l.Name, netModel, msg)
}

// fitsFamily lists where a latent of family f may appear in a Net model
// (the Net kinds' arguments whose edge accepts it), for the error of an
// edge that meets a family no rule connects.
func fitsFamily(f graph.Family) string {
	var out []string
	for _, k := range factor.All() {
		nk, ok := k.(factor.NetKind)
		if !ok {
			continue
		}
		for _, s := range nk.NetEdges() {
			if s.Name == "x" || !hasFamily(s.Families, f) {
				continue
			}
			if s.Name == precEdge {
				out = append(out, "normal(mean, 1 / ·) as its precision")
			} else {
				out = append(out, fmt.Sprintf("%s(%s)", k.Name(), s.Name))
			}
		}
	}
	if f == graph.Gaussian {
		out = append(out, "affine expressions in a mean (dot(X[i], w) + b)")
	}
	if f == graph.Discrete {
		out = append(out, "an index that selects parameters (mu[z[i]], A[z[t - 1]])")
	}
	return strings.Join(dedup(out), ", ")
}

func hasFamily(fs []graph.Family, f graph.Family) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}
