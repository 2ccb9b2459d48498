package graph

import "slices"

// The structure analyses of a FactorGraph: passes over its factors that
// decide which engine serves it (compile's checks of an infer line and
// infer/run's choice of a solver). The engines' limits (infer.Banded)
// are the callers' to pass in.

// A GaussianObservation is a likelihood that is a Gaussian factor of its
// projection, y ~ normal(aᵀx + c, r) (factor.Normal): a graph whose sites
// are all Gaussian observations is linear-Gaussian.
type GaussianObservation interface {
	SiteKind
	GaussianObservation()
}

// gaussianObservation reports whether s's likelihood is a Gaussian
// observation.
func gaussianObservation(s *Site) bool {
	_, ok := s.Lik.(GaussianObservation)
	return ok
}

// LinearGaussian reports whether every site of g is a Gaussian
// observation: the posterior is then Gaussian and exact.
func (g *FactorGraph) LinearGaussian() bool {
	for s := range g.SharedSites() {
		if !gaussianObservation(s) {
			return false
		}
	}
	return true
}

// ConditionallyGaussian reports whether every site and every branch of g's
// gates is a Gaussian observation: given the discrete latents the
// posterior is then Gaussian, and exact enumerates them.
func (g *FactorGraph) ConditionallyGaussian() bool {
	if !g.LinearGaussian() {
		return false
	}
	for _, gt := range g.Gates {
		for _, b := range gt.Branches {
			if !gaussianObservation(b.Shared) {
				return false
			}
		}
	}
	return true
}

// Configurations is the number of joint configurations of g's discrete
// variables (as a float: it may overflow an int).
func (g *FactorGraph) Configurations() float64 {
	n := 1.0
	for _, d := range g.Discrete {
		n *= float64(len(d.Prior))
	}
	return n
}

// Forest reports whether the bipartite graph of g's factors and
// variables is a forest (no cycle), by union–find over the variables: a
// factor closes a cycle when two of its variables are already connected.
// Dense blocks count as factors over their variables. ep then runs
// forward–backward passes on it.
func (g *FactorGraph) Forest() bool {
	parent := make([]int, g.NumVars)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	join := func(vars []int) bool {
		for k := 1; k < len(vars); k++ {
			v := vars[k]
			a, b := find(vars[0]), find(v)
			if a == b {
				return false
			}
			parent[b] = a
		}
		return true
	}
	for _, vars := range g.gaussians.FactorVars() {
		if !join(vars) {
			return false
		}
	}
	for _, vars := range g.sites.FactorVars() {
		if !join(vars) {
			return false
		}
	}
	for _, d := range g.Dense {
		if !join(d.Vars()) {
			return false
		}
	}
	return true
}

// Banded reports whether g is linear-Gaussian with no dense block or gate
// and its joint precision is banded in the variables' order (SitesBanded),
// so that infer/fgraph solves it on the band (its Graph.Banded makes the
// same test on the same factors).
func (g *FactorGraph) Banded(within func(n, k int) bool) bool {
	return g.LinearGaussian() && g.SitesBanded(within)
}

// SitesBanded reports whether g has no dense block or gate and the
// precision of its factors and sites (the joint EP approximation's, a site
// on aᵀx_F + c coupling the variables of F as a Gaussian factor does) is
// banded: within(NumVars, k) holds for its half-bandwidth k (infer.Banded,
// the engines' limit), the largest max F − min F over the factors and
// sites — a factor on x_F couples the variables of F. infer/fgraph then
// runs ep under family = full on the band at any size (its siteBandwidth
// makes the same test), and mcmc samples g as a chain by particle Gibbs
// (infer/mcmc.RunChain) at any length.
func (g *FactorGraph) SitesBanded(within func(n, k int) bool) bool {
	if len(g.Dense) > 0 || len(g.Gates) > 0 {
		return false
	}
	k := 0
	span := func(vars []int) {
		if len(vars) > 0 {
			k = max(k, slices.Max(vars)-slices.Min(vars))
		}
	}
	for _, vars := range g.gaussians.FactorVars() {
		span(vars)
	}
	for _, vars := range g.sites.FactorVars() {
		span(vars)
	}
	return within(g.NumVars, k)
}
