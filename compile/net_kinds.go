package compile

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
)

// netDist is how one distribution lowers into a Net factor: the domain of
// the latent it is a prior on (priors) and the family it gives it, its
// parameters as edges, and the check of an observation (likelihoods).
type netDist struct {
	domain  graph.Domain // priors: the latent's domain
	fam     graph.Family // priors: the family of the variable
	params  []netParam
	example string // a likelihood written with a latent parameter
	// checkY returns "" when y is a value of the distribution given its
	// edges (binomial reads n), else what a value must be.
	checkY func(y float64, edges []graph.Edge) string
}

// netParam is one parameter of a netDist, lowered to the edge Edge.
type netParam struct {
	name string // the builtin's parameter
	edge string // the edge's name in the Net
	// vector marks a parameter that is one vector of K entries per
	// element (dirichlet's alpha, categorical's p); others are one
	// number per element.
	vector bool
	// data checks a numeric value of the parameter: "" or what it must be.
	data func(x float64) string
	// fams are the families a latent may have on this edge (none: the
	// parameter must be data); affine admits an affine expression of
	// Gaussian latents (a regression mean dot(X[i], w) + b).
	fams   []graph.Family
	affine bool
}

// The parameter checks of data values.
func positive(x float64) string {
	if x > 0 && !math.IsInf(x, 0) {
		return ""
	}
	return "a finite number > 0"
}

func anyReal(x float64) string {
	if !math.IsInf(x, 0) && !math.IsNaN(x) {
		return ""
	}
	return "a finite number"
}

func probability(x float64) string {
	if x >= 0 && x <= 1 {
		return ""
	}
	return "a probability in [0, 1]"
}

func count(x float64) string {
	if x >= 0 && x == math.Trunc(x) && x <= maxNetCount {
		return ""
	}
	return "a count (0, 1, 2, …)"
}

// maxNetCount bounds counts so that they and their log-factorials stay
// exact in float64.
const maxNetCount = 1 << 52

var (
	meanParam = netParam{name: "mean", edge: "mean", data: anyReal, fams: []graph.Family{graph.Gaussian}, affine: true}
	varParam  = netParam{name: "var", edge: "var", data: positive, fams: []graph.Family{graph.InvGamma}}
	// precParam is the precision edge of normal(mean, 1 / tau) or
	// normal(mean, precision = tau).
	precParam = netParam{name: "var", edge: "prec", data: positive, fams: []graph.Family{graph.Gamma}}
)

// netPriors are the priors and conditionals of a Net model.
var netPriors = map[string]netDist{
	"normal": {domain: graph.Real, fam: graph.Gaussian, params: []netParam{meanParam, varParam}},
	"beta": {domain: graph.Real, fam: graph.Beta, params: []netParam{
		{name: "a", edge: "a", data: positive}, {name: "b", edge: "b", data: positive}}},
	"gamma": {domain: graph.Real, fam: graph.Gamma, params: []netParam{
		{name: "shape", edge: "shape", data: positive},
		{name: "rate", edge: "rate", data: positive, fams: []graph.Family{graph.Gamma}}}},
	"inv_gamma": {domain: graph.Real, fam: graph.InvGamma, params: []netParam{
		{name: "shape", edge: "shape", data: positive}, {name: "scale", edge: "scale", data: positive}}},
	"dirichlet": {domain: graph.Real, fam: graph.Dirichlet, params: []netParam{
		{name: "alpha", edge: "alpha", vector: true, data: positive}}},
	"categorical": {domain: graph.Cat, fam: graph.Discrete, params: []netParam{
		{name: "p", edge: "p", vector: true, data: probability, fams: []graph.Family{graph.Dirichlet}}}},
}

// netLikelihoods are the likelihoods of a Net model.
var netLikelihoods = map[string]netDist{
	"normal": {params: []netParam{meanParam, varParam}, example: "y[i] ~ normal(mu, 1 / tau)",
		checkY: func(y float64, _ []graph.Edge) string { return anyReal(y) }},
	"bernoulli": {params: []netParam{{name: "p", edge: "p", data: probability, fams: []graph.Family{graph.Beta}}},
		example: "y[i] ~ bernoulli(p) with p ~ beta(1, 1)",
		checkY: func(y float64, _ []graph.Edge) string {
			if y == 0 || y == 1 {
				return ""
			}
			return "a bool value (0/1, false/true)"
		}},
	"binomial": {params: []netParam{{name: "n", edge: "n", data: count},
		{name: "p", edge: "p", data: probability, fams: []graph.Family{graph.Beta}}},
		example: "y[i] ~ binomial(10, p) with p ~ beta(1, 1)",
		checkY: func(y float64, edges []graph.Edge) string {
			n := edges[0].Value[0]
			if count(y) == "" && y <= n {
				return ""
			}
			return fmt.Sprintf("a count 0..%s (n = %s)", fmtNum(n), fmtNum(n))
		}},
	"poisson": {params: []netParam{{name: "rate", edge: "rate", data: positive, fams: []graph.Family{graph.Gamma}}},
		example: "y[i] ~ poisson(rate) with rate ~ gamma(1, 1)",
		checkY:  func(y float64, _ []graph.Edge) string { return count(y) }},
	"categorical": {params: []netParam{{name: "p", edge: "p", vector: true, data: probability, fams: []graph.Family{graph.Dirichlet}}},
		example: "y[i] ~ categorical(w) with w ~ dirichlet([1, 1, 1])",
		checkY: func(y float64, edges []graph.Edge) string {
			K := len(edges[0].Value)
			if K == 0 {
				return "" // a latent p: checked against its row in buildNet
			}
			if y >= 0 && y < float64(K) && y == math.Trunc(y) {
				return ""
			}
			return fmt.Sprintf("a category 0..%d", K-1)
		}},
}

// netLikelihoodNames lists the likelihoods of a Net model, sorted.
func netLikelihoodNames() []string {
	var out []string
	for n := range netLikelihoods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// netPriorList says which priors a latent like l can take in a Net model
// (what names the distribution that was refused, or "").
func netPriorList(what string, l *graph.Latent) string {
	var out []string
	for n, d := range netPriors {
		if d.domain == l.Domain {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	msg := fmt.Sprintf("priors for %s latents are %s", l.Domain, strings.Join(out, ", "))
	if len(out) == 0 {
		msg = fmt.Sprintf("%s latents take no prior in a model with beta, gamma, inv_gamma or dirichlet latents (use cat(K) with categorical, or real)", l.Domain)
	}
	if what == "" {
		return msg
	}
	return fmt.Sprintf("`%s` cannot be the prior of `%s` in a model with beta, gamma, inv_gamma or dirichlet latents, likelihoods with latent parameters or discrete chains: %s", what, l.Name, msg)
}

// fitsFamily lists where a latent of family f may appear in a Net model:
// the distribution parameters whose edge accepts it, for the error of an
// edge that meets a family no rule connects.
func fitsFamily(f graph.Family) string {
	var out []string
	for _, tab := range []map[string]netDist{netPriors, netLikelihoods} {
		for _, n := range sortedKeys(tab) {
			for _, p := range tab[n].params {
				for _, g := range p.fams {
					if g != f {
						continue
					}
					out = append(out, fmt.Sprintf("%s(%s)", n, p.name))
				}
			}
		}
	}
	if f == precParam.fams[0] {
		out = append(out, "normal(mean, 1 / ·) as its precision")
	}
	if f == graph.Gaussian {
		out = append(out, "affine expressions in a mean (dot(X[i], w) + b)")
	}
	out = dedup(out)
	if len(out) == 0 {
		return "no distribution takes it as a parameter"
	}
	return strings.Join(out, ", ")
}

// netKind is the factor kind of distribution name as a prior or
// conditional (observed false) or as a likelihood.
func (c *compiler) netKind(name string, observed bool) graph.Kind {
	role := factor.Prior
	if observed {
		role = factor.Likelihood
	}
	k, ok := factor.Lookup(name, role)
	if !ok {
		panic("compile: no factor kind " + name + " (" + role.String() + ")")
	}
	return k
}
