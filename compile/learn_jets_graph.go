package compile

import (
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
	"github.com/fg-infer/fg/stdlib/ad"
)

// GraphTangents are the derivatives at learned values x of the numbers of
// a factor graph learned on its messages (a forest), with their values,
// in the layouts infer/run's forest learning reads them:
//
//   - Vars: each linear-Gaussian factor's variance, then each normal
//     site's variance;
//   - Affs: each linear-Gaussian factor's coefficients and constant, then
//     each normal site's;
//   - Liks: each other site's learned likelihood parameter (step's eps),
//     0 for a site without one.
//
// A conditional's mean a·x[t − 1] + d is the affine form eval builds,
// whose coefficients and constant carry their tangents (lin.d), in the
// order of the compiled form's variables; an mvnormal conditional's scalar
// conditionals combine those forms with the numbers β of its covariance
// (mvConditional). A number no learned param reaches is a constant; one
// without an exact derivative (a mean computed through an operation
// without one, @ of learned numbers) a NaN constant.
type GraphTangents struct {
	Vars, Affs, Liks []ad.Jet
	// Blocks are the derivatives of the dense blocks' priors (gp,
	// mvnormal), in FactorGraph.Dense's order, as Tangents gives them: nil
	// for a block no learned param reaches.
	Blocks []*PriorTangent
	falls  []jetFall
}

// GraphTangents returns the derivatives at learned values x (LearnFunc
// order) of the numbers of fg, the factor graph of the model (at any
// values: only its layout and the numbers no learned param reaches are
// read), by forward-mode AD as Tangents, from the statements setGraph
// evaluates again: the conditionals' variances, the priors' means and
// variances, the dense blocks' priors and the sites' likelihood
// parameters.
func (f *LearnFunc) GraphTangents(x []float64, fg *graph.FactorGraph) (t *GraphTangents, err error) {
	c := f.differentiating(false)
	defer c.catchAbort(&err)
	if err := f.setValues(c, x); err != nil {
		return nil, err
	}
	out := &GraphTangents{}
	nan := ad.Const(math.NaN())
	gOff := make([]int, 0, fg.NumGaussians()+1) // each factor's first entry in Affs
	for _, g := range fg.Gaussians() {
		gOff = append(gOff, len(out.Affs))
		out.Vars = append(out.Vars, ad.Const(g.Var))
		for _, a := range g.Aff.Coefs {
			out.Affs = append(out.Affs, ad.Const(a))
		}
		out.Affs = append(out.Affs, ad.Const(g.Aff.Const))
	}
	gOff = append(gOff, len(out.Affs))    // the end of the last factor's
	sitePos := make([]int, fg.NumSites()) // index into Vars (normal sites) or Liks
	for i, s := range fg.Sites() {
		if n, ok := s.Shared.Lik.(factor.Normal); ok {
			sitePos[i] = len(out.Vars)
			out.Vars = append(out.Vars, ad.Const(n.Var))
			for _, a := range s.Aff.Coefs {
				out.Affs = append(out.Affs, ad.Const(a))
			}
			out.Affs = append(out.Affs, ad.Const(s.Aff.Const))
			continue
		}
		var v float64
		if g, ok := s.Shared.Lik.(factor.ParamGrad); ok {
			_, v, _, _ = g.LearnParam()
		}
		sitePos[i] = len(out.Liks)
		out.Liks = append(out.Liks, ad.Const(v))
	}
	gaussian := func(f int) int {
		lo, hi := fg.GaussiansOf(f)
		if hi != lo+1 {
			return -1
		}
		return lo
	}
	rec := f.st.rec
	for _, s := range rec.conds {
		c.locals = s.locals
		a := c.bind(s.call, s.b)
		var v tangents
		var forms func(k int) lin // the means with their tangents, in the compiled variables' order
		var mvVars []float64      // an mvnormal conditional's variances (its covariance is not learned)
		if !s.mvn {
			v = c.argTangents(a, 1, 0)
			c.fellBack(v)
		}
		if s.mean || s.mvn {
			mv, _ := a.val(0)
			forms = c.condMean(a, mv, len(s.ids))
			if s.mvn {
				forms, mvVars = c.mvConditional(a, forms, s.ids)
			}
		}
		fell := false
		for k, id := range s.ids {
			g := gaussian(s.factors[k])
			if g < 0 {
				continue
			}
			switch {
			case mvVars != nil:
				out.Vars[g] = ad.Const(mvVars[k])
			case s.mvn || v.lack != nil || len(v.j) == 0:
				out.Vars[g] = nan
			default:
				out.Vars[g] = v.j[min(k, len(v.j)-1)]
			}
			if !s.mvn && !s.mean {
				continue
			}
			end := gOff[g+1]
			m := c.condForm(a, forms, k, id)
			if m.d != nil && m.d.lack != nil {
				if !fell {
					c.fellAt(a.expr(0), "the mean `%s` has no derivative in the learned params (forward-mode AD covers + − of latents and their products with numbers)", c.text(a.expr(0)))
					fell = true
				}
			} else if end == gOff[g]+len(m.ids)+2 {
				// The factor N(0; x − m, v) of the mean m = Σ a_j x_j + d:
				// coefficients 1, −a_j (in m's order), constant 0 − d.
				for j := range m.ids {
					out.Affs[gOff[g]+1+j] = m.coefJet(j).Neg()
				}
				out.Affs[end-1] = m.constJet().Neg()
				continue
			}
			for i := gOff[g]; i < end; i++ {
				out.Affs[i] = nan
			}
		}
	}
	out.Blocks = make([]*PriorTangent, len(fg.Dense))
	for _, p := range rec.priors {
		a := c.bind(p.call, p.b)
		pt := c.priorTangent(a, p.lat, p.k)
		if pk, ok := p.k.(graph.PriorKind); ok && !pk.Independent() {
			for i, d := range fg.Dense {
				if d.Latent == p.lat {
					out.Blocks[i] = &pt
				}
			}
			continue
		}
		lo, hi := fg.GaussiansOf(p.factor)
		for e := range hi - lo {
			g := lo + e
			out.Vars[g] = jetAt(pt.Var, e)
			// The factor N(0; x − m, v): coefficient 1, constant 0 − m.
			out.Affs[gOff[g]+1] = jetAt(pt.Mean, e).Neg()
		}
	}
	for i := range rec.sites {
		s := &rec.sites[i]
		c.locals = s.locals
		a := c.bind(s.call, s.b)
		jets := map[string]ad.Jet{} // the slot's one likelihood's parameters (siteAgain)
		param := func(name string) ad.Jet {
			if j, ok := jets[name]; ok {
				return j
			}
			j := nan
			for pi, p := range s.b.Params {
				if p.Name != name {
					continue
				}
				if v := c.argTangents(a, pi, paramDefault(p)); v.lack == nil && len(v.j) == 1 {
					j = v.j[0]
				} else {
					c.fellBack(v)
				}
			}
			jets[name] = j
			return j
		}
		for _, fac := range s.factors {
			k, ok := fg.SiteOf(fac)
			if !ok {
				continue
			}
			g, ok := fg.SharedSite(k).Lik.(factor.ParamGrad)
			if !ok {
				continue
			}
			name, _, _, _ := g.LearnParam()
			j := param(name)
			if _, ok := g.(factor.Normal); ok {
				out.Vars[sitePos[k]] = j
			} else {
				out.Liks[sitePos[k]] = j
			}
		}
	}
	c.locals, out.falls = nil, c.jet.falls
	return out, nil
}

// jetAt is js[i], or a NaN constant past its end.
func jetAt(js []ad.Jet, i int) ad.Jet {
	if i < len(js) {
		return js[i]
	}
	return ad.Const(math.NaN())
}

// readsLatent reports whether e names a latent where it is evaluated (a
// selector replaced by a state, z[t] in a branch of mu[z[t]], is a number).
func (c *compiler) readsLatent(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && c.gate.subst != nil {
			if _, sub := c.gate.subst[x]; sub {
				return false
			}
		}
		if id, ok := n.(*ast.Ident); ok && !found {
			b := c.resolved(id)
			found = b != nil && b.kind == bLatent
		}
		return !found
	})
	return found
}
