package compile

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// mixComp is one compiled component of a mixture: a site on the latent
// projection (lik, with its projection sites) or a constant density of y
// (logC per element).
type mixComp struct {
	lik   factor.Site
	sites []graph.Site // nil for a constant component or one on forms
	lat   int          // the latent of sites
	forms []lin        // a projection over several latents or with a constant (a factor-graph site)
	logC  []float64
}

// latent reports whether the component depends on a latent.
func (m *mixComp) latent() bool { return m.sites != nil || m.forms != nil }

// sameProjection reports whether two latent components project alike.
func sameProjection(a, b *mixComp) bool {
	if a.forms != nil || b.forms != nil {
		if a.forms == nil || b.forms == nil {
			return false
		}
		for i := range a.forms {
			if !reflect.DeepEqual(a.forms[i], b.forms[i]) {
				return false
			}
		}
		return true
	}
	return a.lat == b.lat && sameSites(a.sites, b.sites)
}

// mixture compiles y ~ mixture(weights, C1(...), C2(...), ...) into one
// factor.Mixture site per element of y. The components are likelihood
// calls; those whose projection depends on a latent must all share one
// projection of one real latent; the others (e.g. the clutter term
// normal(0, 10)) are densities of y evaluated here.
func (c *compiler) mixture(s *ast.TildeStmt, y val, call *ast.CallExpr, name string) {
	if len(call.Named) > 0 {
		c.fail(call.Named[0].Name, "%s takes positional arguments: %s(weights, component, component, ...)", name, name)
	}
	if len(call.Args) < 3 {
		c.fail(call, "%s needs its weights and at least two components, e.g. %s([0.5, 0.5], normal(x, 1), normal(0, 10))", name, name)
	}
	comps := call.Args[1:]
	if len(comps) > factor.MaxComponents {
		c.fail(call, "%s has %d components; the limit is %d", name, len(comps), factor.MaxComponents)
	}
	w := c.mixWeights(call.Args[0], len(comps))
	n := y.size()
	mc := make([]mixComp, len(comps))
	first := -1
	for k, e := range comps {
		mc[k] = c.mixComponent(s, y, e)
		if !mc[k].latent() {
			continue
		}
		if first < 0 {
			first = k
			continue
		}
		if !sameProjection(&mc[k], &mc[first]) {
			what := "one projection of one latent"
			if mc[k].forms != nil || mc[first].forms != nil {
				what = "one affine argument"
			}
			c.fail(e, "the components of a mixture must share %s: `%s` differs from `%s`",
				what, c.text(e), c.text(comps[first]))
		}
	}
	if first < 0 {
		c.fail(call, "no component of this %s depends on a latent; at least one must (e.g. normal(x, 1))", name)
	}
	liks := make([]factor.Site, len(mc))
	for k := range mc {
		if mc[k].latent() {
			liks[k] = mc[k].lik
		}
	}
	forms, lat := mc[first].forms, mc[first].lat
	if forms != nil {
		c.useFG(comps[first], func() string { return fmt.Sprintf("%s component `%s`", name, c.text(comps[first])) })
	}
	for i := 0; i < n; i++ {
		m := factor.Mixture{W: w, Comps: liks, LogC: make([]float64, len(mc))}
		for k := range mc {
			if !mc[k].latent() {
				m.LogC[k] = mc[k].logC[i]
			}
		}
		site := graph.Site{Index: -1}
		if forms == nil {
			site = mc[first].sites[min(i, len(mc[first].sites)-1)]
		}
		site.Lik, site.Y, site.Pos = m, y.num[i], s.Pos()
		site.Label = fmt.Sprintf("%s(%s)", name, c.elemName(s.LHS, y, i))
		c.countFactor(s)
		site.Factor = c.addOffGraph()
		if forms != nil {
			c.fg.sites = append(c.fg.sites, fgSite{site: site, aff: forms[min(i, len(forms)-1)]})
			continue
		}
		c.sites[lat] = append(c.sites[lat], site)
	}
}

// mixWeights evaluates a mixture's weights: a vector of k numbers, each
// non-negative, summing to one within factor.WeightTol.
func (c *compiler) mixWeights(e ast.Expr, k int) []float64 {
	v := c.eval(e)
	if v.k != kNum || len(v.shape) != 1 {
		c.fail(e, "mixture weights must be a vector of %d numbers, got %s", k, v.describe())
	}
	if len(v.num) != k {
		c.fail(e, "the mixture has %d components but %d weights", k, len(v.num))
	}
	if err := factor.CheckWeights(v.num); err != nil {
		c.fail(e, "%v", err)
	}
	return append([]float64(nil), v.num...)
}

// mixComponent compiles one component: a likelihood call whose kind has
// closed-form tilted moments and a log-density.
func (c *compiler) mixComponent(s *ast.TildeStmt, y val, e ast.Expr) mixComp {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		c.fail(e, "a mixture component must be a likelihood call such as normal(x, 1), got `%s`", c.text(e))
	}
	b := c.distribution(call)
	k, err := factor.Find(b.Name, factor.Likelihood)
	if err != nil {
		c.fail(call.Fun, "`%s` is not a likelihood; a mixture component is one of %s", b.Name,
			strings.Join(mixableNames(), ", "))
	}
	lk, ok := k.(factor.LikelihoodKind)
	_, tilted := k.(factor.Tilted)
	_, dens := k.(factor.LogDensity)
	if !ok || !tilted || !dens {
		c.fail(call.Fun, "`%s` cannot be a mixture component; a component is one of %s", b.Name,
			strings.Join(mixableNames(), ", "))
	}
	a := c.bind(call, b)
	pi := paramIndex(b, lk.Projection())
	proj, _ := a.val(pi)
	lik := c.newSite(a, lk, pi)
	for i, x := range y.num {
		if lik.CheckY(x) != nil {
			c.fail(s.LHS, "%s", c.badElement(c.render(s.LHS), y, i, lik.Support()))
		}
	}
	n := y.size()
	switch proj.k {
	case kSym:
		if proj.sym.lat >= 0 {
			if l := &c.m.Graph.Latents[proj.sym.lat]; l.Domain != graph.Real {
				c.fail(a.at(pi), "%s needs a real latent projection; `%s` is %s", b.Name, l.Name, l.Domain)
			}
		}
		if proj.size() != n && proj.size() != 1 { // a scalar broadcasts, as in a likelihood
			c.fail(s, "%s has %d elements but %s has %d", c.text(s.LHS), n, c.text(a.at(pi)), proj.size())
		}
		if forms, block := c.siteForms(a.at(pi), proj); !block {
			return mixComp{lik: lik, forms: forms, lat: -1}
		}
		return mixComp{lik: lik, sites: c.affine(a.at(pi), proj), lat: proj.sym.lat}
	case kNum:
		if proj.size() != 1 && proj.size() != n {
			c.fail(a.at(pi), "%s has %d elements but %s has %d", c.text(s.LHS), n, c.text(a.at(pi)), proj.size())
		}
		d := lik.(factor.LogDensity)
		out := mixComp{lik: lik, logC: make([]float64, n)}
		for i := range out.logC {
			out.logC[i], _, _ = d.LogLik(y.num[i], proj.num[min(i, proj.size()-1)])
		}
		return out
	}
	c.fail(a.at(pi), "the %s argument of %s must be a real latent projection or data, got %s", ordinal(pi), b.Name, proj.describe())
	return mixComp{}
}

// sameSites reports whether two components project the latent alike.
func sameSites(a, b []graph.Site) bool {
	for i := range a {
		if a[i].Index != b[i].Index || len(a[i].Proj) != len(b[i].Proj) {
			return false
		}
		for j := range a[i].Proj {
			if a[i].Proj[j] != b[i].Proj[j] {
				return false
			}
		}
	}
	return true
}

// mixableNames lists the likelihoods that can be mixture components.
func mixableNames() []string {
	var out []string
	for _, name := range factor.Names(factor.Likelihood) {
		k, _ := factor.Lookup(name, factor.Likelihood)
		_, lk := k.(factor.LikelihoodKind)
		_, tilted := k.(factor.Tilted)
		_, dens := k.(factor.LogDensity)
		if lk && tilted && dens {
			out = append(out, name)
		}
	}
	return out
}

// checkMixtures refuses power EP and relaxed EP (which integrate the
// mixture's log-density by Gauss–Hermite quadrature) on mixtures with a
// discontinuous component (step), where that quadrature does not converge.
func (c *compiler) checkMixtures(s *ast.InferStmt, spec *InferSpec) {
	if spec.Method != infer.MethodEP {
		return
	}
	if _, kl := spec.Settings.Divergence.(infer.KL); kl {
		return
	}
	var sites []graph.Site
	for _, b := range c.m.Blocks() {
		sites = append(sites, b.Sites...)
	}
	if g := c.m.FactorGraph; g != nil {
		for a := range g.SharedSites() { // the likelihood, kind and position
			sites = append(sites, *a)
		}
	}
	for _, site := range sites {
		if m, ok := site.Lik.(factor.Mixture); ok && m.HasJump() {
			c.fail(s, "divergence %v integrates a mixture's log-density numerically, which a step component makes inaccurate (the %s at %s); use divergence kl",
				spec.Settings.Divergence, site.Lik.Name(), c.fset.Position(site.Pos))
		}
	}
}
