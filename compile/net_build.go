package compile

import (
	"fmt"
	"strings"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// buildNet makes the model's graph.Net once its statements have compiled:
// a variable per element of every latent — Discrete for cat and bool
// latents, the family of its prior for real ones, one Dirichlet variable
// per row of a dirichlet latent — in declaration order, then the factors
// in statement order with their edges mapped onto those variables. Every
// edge must meet a family its parameter has a rule for (a Beta latent is
// no Gaussian mean); a real latent without a prior is an error.
func (c *compiler) buildNet() {
	g := c.m.Graph
	net := &graph.Net{Fset: c.fset}
	varOf := make([]int, len(g.Vars)) // graph variable → Net variable, −1 when it has none
	for i := range varOf {
		varOf[i] = -1
	}
	for li := range g.Latents {
		l := &g.Latents[li]
		missing := -1
		for e := 0; e < l.Size(); e++ {
			id := l.First + e
			v := graph.NetVar{Name: g.VarName(id), Latent: li, Elem: e, Pos: l.Pos}
			switch {
			case l.Domain.Discrete():
				v.Family, v.Dim = graph.Discrete, l.Card
			default:
				if first, ok := c.net.row[id]; ok {
					if first != id {
						varOf[id] = varOf[first]
						continue
					}
					K := c.lastDim(l)
					v.Family, v.Dim, v.Elem, v.Name = graph.Dirichlet, K, e/K, rowName(l, e/K)
					break
				}
				p, ok := c.net.prior[id]
				if !ok {
					if missing < 0 {
						missing = id
					}
					continue
				}
				v.Family = p.fam
			}
			varOf[id] = net.AddVar(v)
		}
		switch {
		case missing < 0 || c.net.failed[li]:
			// a failed prior statement explains a missing prior
		case !c.net.tried[li]:
			c.errAt(l.Pos, l.Pos, "real latent `%s` has no prior; add one, e.g. latent %s: real ~ normal(0, 1) (or beta, gamma, inv_gamma, dirichlet)",
				l.Name, l.Name)
		default:
			c.errAt(l.Pos, l.Pos, "`%s` has no prior; the priors on elements of `%s` must cover all of it", g.VarName(missing), l.Name)
		}
	}
	fam := func(v int) graph.Family { return net.Vars[v].Family }
	shared := map[*graph.Edge][]graph.Edge{} // a shared slice of branches, mapped once
	bad := map[ast.Pos]bool{}                // statements with an error: one message each
	for _, d := range c.net.factors {
		if bad[d.f.Pos] {
			continue
		}
		f := d.f
		f.Edges = make([]graph.Edge, len(d.f.Edges))
		for j, e := range d.f.Edges {
			f.Edges[j] = mapEdge(e, varOf, shared)
		}
		if !mapped(f.Edges) {
			continue // on a latent whose prior failed: that error explains it
		}
		if err := d.kind.CheckNet(&f, fam); err != nil {
			c.familyError(net, d, &f, err)
			bad[d.f.Pos] = true
			continue
		}
		if !c.checkObservedCategory(net, f) {
			bad[d.f.Pos] = true
			continue
		}
		net.AddFactor(f)
	}
	if len(c.errs) == 0 {
		c.m.Net = net
	}
}

// mapEdge maps an edge's graph variables to Net variables; a slice of
// branches shared by several factors (shareBranches) is mapped once and
// stays shared.
func mapEdge(e graph.Edge, varOf []int, shared map[*graph.Edge][]graph.Edge) graph.Edge {
	out := e
	if len(e.Vars) > 0 {
		out.Vars = make([]int, len(e.Vars))
		for k, v := range e.Vars {
			out.Vars[k] = varOf[v]
		}
	}
	if e.Selected {
		out.Sel = varOf[e.Sel]
		if bs, ok := shared[&e.Branches[0]]; ok {
			out.Branches = bs
			return out
		}
		out.Branches = make([]graph.Edge, len(e.Branches))
		for k, b := range e.Branches {
			out.Branches[k] = mapEdge(b, varOf, shared)
		}
		shared[&e.Branches[0]] = out.Branches
	}
	return out
}

// mapped reports whether every variable of edges has a Net variable.
func mapped(edges []graph.Edge) bool {
	for _, e := range edges {
		for _, v := range e.VarsOf() {
			if v < 0 {
				return false
			}
		}
	}
	return true
}

// familyError records the error of a factor whose edge meets a family its
// kind has no rule for (CheckNet on the Net's families; the data were
// checked when the statement compiled), at the argument's expression,
// naming the latent, its family and where that family fits.
func (c *compiler) familyError(net *graph.Net, d netDecl, f *graph.NetFactor, err error) {
	msg := err.Error()
	j := -1
	if ee, ok := err.(*factor.EdgeError); ok {
		for i, e := range f.Edges {
			if e.Name == ee.Edge {
				j = i
			}
		}
	}
	if j >= 0 {
		spec, _ := edgeSpec(d.kind, f.Edges[j].Name)
		if v, ok := offending(net, f.Edges[j], spec); ok {
			nv := net.Vars[v]
			name := nv.Name
			if hasFamily(spec.Families, graph.Dirichlet) {
				name = c.m.Graph.Latents[nv.Latent].Name // the edge took a row: name the latent
			}
			msg = fmt.Sprintf("`%s` is %s, which the `%s` of %s does not take (it takes %s); %s latent fits %s",
				name, describeVar(nv), spec.Name, d.kind.Name(), famList(spec), article(nv.Family.String()), fitsFamily(nv.Family))
		}
	}
	at := d.f.Pos
	end := at
	if j >= 0 && d.at[j] != nil {
		at, end = d.at[j].Pos(), d.at[j].End()
	}
	c.errAt(at, end, "%s: %s", d.f.Label, msg)
}

// offending finds a variable of edge e whose family the edge's spec does
// not take (an affine expression takes Gaussian variables only).
func offending(net *graph.Net, e graph.Edge, spec factor.EdgeSpec) (int, bool) {
	if e.Selected {
		for _, b := range e.Branches {
			if v, ok := offending(net, b, spec); ok {
				return v, true
			}
		}
		return 0, false
	}
	_, single := e.IsVar()
	for _, v := range e.Vars {
		fam := net.Vars[v].Family
		if !hasFamily(spec.Families, fam) || !single && fam != graph.Gaussian {
			return v, true
		}
	}
	return 0, false
}

// checkObservedCategory checks an observed category against the number
// of components of the Dirichlet row it is drawn from.
func (c *compiler) checkObservedCategory(net *graph.Net, f graph.NetFactor) bool {
	if _, cat := f.Kind.(factor.Categorical); !f.Observed || !cat {
		return true
	}
	e, _ := f.Edge("p")
	if e.Selected {
		e = e.Branches[0]
	}
	v, ok := e.IsVar()
	if !ok {
		return true
	}
	y, K := f.Y[0], net.Vars[v].Dim
	if y >= float64(K) {
		c.errAt(f.Pos, f.Pos, "%s: the observation %s is not a category 0..%d of `%s`", f.Label, fmtNum(y), K-1, net.Vars[v].Name)
		return false
	}
	return true
}

// describeVar says what a Net variable is: "a beta latent", "a discrete
// latent with 3 states".
func describeVar(v graph.NetVar) string {
	if v.Family == graph.Discrete {
		return fmt.Sprintf("a discrete latent with %d states", v.Dim)
	}
	return article(v.Family.String()) + " latent"
}

// article prefixes a or an to a family's name.
func article(name string) string {
	if strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// famList renders what an edge takes: "a beta latent or a number".
func famList(s factor.EdgeSpec) string {
	out := ""
	for i, f := range s.Families {
		if i > 0 {
			out += " or "
		}
		out += article(f.String()) + " latent"
	}
	if hasFamily(s.Families, graph.Gaussian) {
		out += " or an affine expression of them"
	}
	return out + " or a number"
}
