package compile

import (
	"math"

	"github.com/fg-infer/fg/factor"
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
// A number no learned param reaches is a constant; one without an exact
// derivative (a conditional's mean over latents, whose affine form
// compile merges; an mvnormal conditional; an expression without jets) a
// NaN constant.
type GraphTangents struct {
	Vars, Affs, Liks []ad.Jet
}

// GraphTangents returns the derivatives at learned values x (LearnFunc
// order) of the numbers of fg, the factor graph of the model (at any
// values: only its layout and the numbers no learned param reaches are
// read), by forward-mode AD as Tangents, from the statements setGraph
// evaluates again: the conditionals' variances, the priors' means and
// variances and the sites' likelihood parameters.
func (f *LearnFunc) GraphTangents(x []float64, fg *FactorGraph) (t *GraphTangents, err error) {
	c := f.compiler(false)
	c.jet = &jetState{env: map[string]jetVal{}}
	defer c.catchAbort(&err)
	if err := f.setValues(c, x); err != nil {
		return nil, err
	}
	out := &GraphTangents{}
	nan := ad.Const(math.NaN())
	gOff := make([]int, 0, fg.NumGaussians())
	for _, g := range fg.Gaussians() {
		gOff = append(gOff, len(out.Affs))
		out.Vars = append(out.Vars, ad.Const(g.Var))
		for _, a := range g.Aff.Coefs {
			out.Affs = append(out.Affs, ad.Const(a))
		}
		out.Affs = append(out.Affs, ad.Const(g.Aff.Const))
	}
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
		lo, hi := fg.gaussiansOf(f)
		if hi != lo+1 {
			return -1
		}
		return lo
	}
	rec := f.st.rec
	for _, s := range rec.conds {
		c.locals = s.locals
		a := c.bind(s.call, s.b)
		var v, mean jetVal
		if !s.mvn {
			v = c.jetArg(a, 1, 0)
		}
		if s.mean && !s.mvn && !c.readsLatent(a.expr(0)) {
			mean = c.jetArg(a, 0, 0) // numbers only: a mean over latents has no jets
		}
		for k := range s.ids {
			g := gaussian(s.factors[k])
			if g < 0 {
				continue
			}
			switch {
			case s.mvn || v.why != "" || len(v.j) == 0:
				out.Vars[g] = nan
			default:
				out.Vars[g] = v.j[min(k, len(v.j)-1)]
			}
			if !s.mvn && !s.mean {
				continue
			}
			end := len(out.Affs)
			if g+1 < len(gOff) {
				end = gOff[g+1]
			}
			if !s.mvn && len(mean.j) > 0 && mean.why == "" && end == gOff[g]+2 {
				// A mean of numbers: the factor N(0; x − m, v) has
				// coefficient 1 and constant 0 − m.
				out.Affs[gOff[g]+1] = mean.j[min(k, len(mean.j)-1)].Neg()
				continue
			}
			for i := gOff[g]; i < end; i++ {
				out.Affs[i] = nan
			}
		}
	}
	for _, p := range rec.priors {
		a := c.bind(p.call, p.b)
		pt := c.priorTangent(a, p.lat, p.k)
		lo, hi := fg.gaussiansOf(p.factor)
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
				if v := c.jetArg(a, pi, paramDefault(p)); v.why == "" && len(v.j) == 1 {
					j = v.j[0]
				}
			}
			jets[name] = j
			return j
		}
		for _, fac := range s.factors {
			k, ok := fg.siteOf(fac)
			if !ok {
				continue
			}
			g, ok := fg.tags[fg.sites.Tag(k)].shared.Lik.(factor.ParamGrad)
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
	c.locals = nil
	return out, nil
}

// jetAt is js[i], or a NaN constant past its end.
func jetAt(js []ad.Jet, i int) ad.Jet {
	if i < len(js) {
		return js[i]
	}
	return ad.Const(math.NaN())
}

// readsLatent reports whether e names a latent where it is evaluated.
func (c *compiler) readsLatent(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && !found {
			b, ok := c.lookup(id.Name)
			found = ok && b.kind == bLatent
		}
		return !found
	})
	return found
}
