package compile

import (
	"fmt"

	"github.com/fg-infer/fg/graph"
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
	net := &graph.Net{}
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
			c.errs.Add(l.Pos, l.Pos, "real latent `%s` has no prior; add one, e.g. latent %s: real ~ normal(0, 1) (or beta, gamma, inv_gamma, dirichlet)",
				l.Name, l.Name)
		default:
			c.errs.Add(l.Pos, l.Pos, "`%s` has no prior; the priors on elements of `%s` must cover all of it", g.VarName(missing), l.Name)
		}
	}
	if len(c.errs) > 0 {
		return
	}
	for _, d := range c.net.factors {
		f := d.f
		f.Edges = make([]graph.Edge, len(d.f.Edges))
		ok := true
		for j, e := range d.f.Edges {
			f.Edges[j] = mapEdge(e, varOf)
			if !c.checkEdge(net, d, j, f.Edges[j]) {
				ok = false
				break
			}
		}
		if ok && c.checkObservedCategory(net, d, f) {
			net.AddFactor(f)
		}
	}
	c.m.Net = net
}

// mapEdge maps an edge's graph variables to Net variables.
func mapEdge(e graph.Edge, varOf []int) graph.Edge {
	out := e
	if len(e.Vars) > 0 {
		out.Vars = make([]int, len(e.Vars))
		for k, v := range e.Vars {
			out.Vars[k] = varOf[v]
		}
	}
	if e.Selected {
		out.Sel = varOf[e.Sel]
		out.Branches = make([]graph.Edge, len(e.Branches))
		for k, b := range e.Branches {
			out.Branches[k] = mapEdge(b, varOf)
		}
	}
	return out
}

// checkEdge reports whether edge j of factor d meets families its
// parameter has a rule for, recording the error when it does not.
func (c *compiler) checkEdge(net *graph.Net, d netDecl, j int, e graph.Edge) bool {
	p := d.specs[j]
	if e.Selected {
		sel := net.Vars[e.Sel]
		if sel.Family != graph.Discrete || sel.Dim != len(e.Branches) {
			c.netEdgeError(d, j, fmt.Sprintf("`%s` selects %d branches but is %s", sel.Name, len(e.Branches), describeVar(sel)))
			return false
		}
		for _, b := range e.Branches {
			if !c.checkEdge(net, d, j, b) {
				return false
			}
		}
		return true
	}
	if _, isVar := e.IsVar(); !isVar && len(e.Vars) > 0 && !p.affine {
		c.netEdgeError(d, j, fmt.Sprintf("the `%s` of %s is one latent, not an expression of several", p.name, d.dist))
		return false
	}
	for _, v := range e.Vars {
		fam := net.Vars[v].Family
		if len(e.Vars) > 1 || e.Coefs[0] != 1 || e.Const != 0 {
			if fam != graph.Gaussian {
				c.netEdgeError(d, j, fmt.Sprintf("`%s` is %s; an affine expression is over Gaussian latents (normal priors); a %s latent fits %s",
					net.Vars[v].Name, describeVar(net.Vars[v]), fam, fitsFamily(fam)))
				return false
			}
			continue
		}
		if !hasFamily(p.fams, fam) {
			c.netEdgeError(d, j, fmt.Sprintf("`%s` is %s, which the `%s` of %s does not take (it takes %s); a %s latent fits %s",
				net.Vars[v].Name, describeVar(net.Vars[v]), p.name, d.dist, famList(p), fam, fitsFamily(fam)))
			return false
		}
	}
	return true
}

// checkObservedCategory checks an observed category against the number
// of components of a Dirichlet row it is drawn from.
func (c *compiler) checkObservedCategory(net *graph.Net, d netDecl, f graph.NetFactor) bool {
	if !f.Observed || d.dist != "categorical" {
		return true
	}
	e := f.Edges[0]
	if e.Selected {
		e = e.Branches[0]
	}
	v, ok := e.IsVar()
	if !ok {
		return true
	}
	y, K := f.Y[0], net.Vars[v].Dim
	if y < 0 || y >= float64(K) || y != float64(int(y)) {
		c.errs.Add(f.Pos, f.Pos, "%s: the observation %s is not a category 0..%d of `%s`", f.Label, fmtNum(y), K-1, net.Vars[v].Name)
		return false
	}
	return true
}

// netEdgeError records an error of factor d's edge j at its expression.
func (c *compiler) netEdgeError(d netDecl, j int, msg string) {
	at := d.at[j]
	if at == nil {
		c.errs.Add(d.f.Pos, d.f.Pos, "%s: %s", d.f.Label, msg)
		return
	}
	c.errs.Add(at.Pos(), at.End(), "%s: %s", d.f.Label, msg)
}

// describeVar says what a Net variable is: "a beta latent", "a discrete
// latent with 3 states".
func describeVar(v graph.NetVar) string {
	if v.Family == graph.Discrete {
		return fmt.Sprintf("a discrete latent with %d states", v.Dim)
	}
	return "a " + v.Family.String() + " latent"
}

func hasFamily(fs []graph.Family, f graph.Family) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}

// famList renders what an edge takes: "a beta latent or a number".
func famList(p netParam) string {
	s := ""
	for i, f := range p.fams {
		if i > 0 {
			s += " or "
		}
		s += "a " + f.String() + " latent"
	}
	if p.affine {
		s += " or an affine expression of them"
	}
	return s + " or a number"
}
