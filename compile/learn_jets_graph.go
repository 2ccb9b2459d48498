package compile

import (
	"math"
	"slices"

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
// A conditional's mean a·x[t − 1] + d is evaluated as an affine form
// whose coefficients and constant are jets (jetAffine), aligned to the
// variables of the compiled form; an mvnormal conditional's scalar
// conditionals combine those forms with the numbers β of its covariance
// (mvJetMeans). A number no learned param reaches is a constant; one
// without an exact derivative (a mean that is not + − of forms and
// products with numbers, an expression without jets) a NaN constant.
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
func (f *LearnFunc) GraphTangents(x []float64, fg *FactorGraph) (t *GraphTangents, err error) {
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
		var v tangents
		var mean []jetLin
		var forms func(k int) lin // the compiled means, whose variables' order the factor keeps
		var mvVars []float64      // an mvnormal conditional's variances (its covariance is not learned)
		if !s.mvn {
			v = c.argTangents(a, 1, 0)
			c.fellBack(v)
		} else if ml, ok := c.jetAffine(a.expr(0)); ok && (len(ml) == 1 || len(ml) == len(s.ids)) {
			mv, _ := a.val(0)
			forms, mvVars = c.mvConditional(a, c.condMean(a, mv, len(s.ids)), s.ids)
			mean = c.mvJetMeans(a, ml, s.ids)
		} else {
			c.fellAt(a.expr(0), "the mean `%s` has no derivative in the learned params (forward-mode AD covers + − of latents and their products with numbers)", c.text(a.expr(0)))
		}
		if s.mean && !s.mvn {
			var ok bool
			if mean, ok = c.jetAffine(a.expr(0)); ok {
				mv, _ := a.val(0)
				forms = c.condMean(a, mv, len(s.ids))
			} else {
				c.fellAt(a.expr(0), "the mean `%s` has no derivative in the learned params (forward-mode AD covers + − of latents and their products with numbers)", c.text(a.expr(0)))
			}
		}
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
			if forms != nil && len(mean) > 0 {
				// The factor N(0; x − m, v) of the mean m = Σ a_j x_j + d:
				// coefficients 1, −a_j (in m's order), constant 0 − d.
				m, jl := c.condForm(a, forms, k, id), mean[min(k, len(mean)-1)]
				if end == gOff[g]+len(m.ids)+2 {
					for j, vid := range m.ids {
						out.Affs[gOff[g]+1+j] = jl.at(vid).Neg()
					}
					out.Affs[end-1] = jl.c.Neg()
					continue
				}
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
		if pk, ok := p.k.(factor.PriorKind); ok && !pk.Independent() {
			for i, d := range fg.Dense {
				if d.Latent == p.lat {
					out.Blocks[i] = &pt
				}
			}
			continue
		}
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
	c.locals, out.falls = nil, c.jet.falls
	return out, nil
}

// mvJetMeans are the means of the scalar conditionals of mvnormal call a
// over the elements ids (mvConditional) with jets: m_i + Σ_{j<i} β_ij (x_j
// − m_j), ml the mean's forms with jets (one broadcasts); β, from the
// covariance, which no learned param reaches, is a number.
func (c *compiler) mvJetMeans(a *args, ml []jetLin, ids []int) []jetLin {
	out := make([]jetLin, len(ids))
	m := func(i int) jetLin { return ml[min(i, len(ml)-1)] }
	c.mvRows(a, len(ids), func(i int, beta []float64, _ float64) {
		l := m(i)
		l = jetLin{ids: slices.Clone(l.ids), coefs: slices.Clone(l.coefs), c: l.c}
		for j, b := range beta {
			mj := m(j).scale(ad.Const(-b))
			l.ids = append(append(l.ids, ids[j]), mj.ids...)
			l.coefs = append(append(l.coefs, ad.Const(b)), mj.coefs...)
			l.c = l.c.Add(mj.c)
		}
		out[i] = l
	})
	return out
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
			b, ok := c.lookup(id.Name)
			found = ok && b.kind == bLatent
		}
		return !found
	})
	return found
}

// jetLin is an affine form of graph variables whose coefficients and
// constant are jets in the learned params (a conditional's mean a·x + d
// with a, d learned); its ids may repeat (the terms are summed).
type jetLin struct {
	ids   []int
	coefs []ad.Jet
	c     ad.Jet
}

// scale is s·l.
func (l jetLin) scale(s ad.Jet) jetLin {
	out := jetLin{ids: l.ids, coefs: make([]ad.Jet, len(l.coefs)), c: l.c.Mul(s)}
	for i, a := range l.coefs {
		out.coefs[i] = a.Mul(s)
	}
	return out
}

// jetAffine evaluates e, an affine expression of latents whose
// coefficients may read learned params, as one jetLin per element (a
// scalar is one), as affine2 does on numbers: + and − of forms, * and /
// by numbers; false when it is not such an expression.
func (c *compiler) jetAffine(e ast.Expr) ([]jetLin, bool) {
	if !c.readsLatent(e) {
		v := c.tangentsOf(e, c.eval(e))
		if v.lack != nil {
			return nil, false
		}
		out := make([]jetLin, len(v.j))
		for i, j := range v.j {
			out[i] = jetLin{c: j}
		}
		return out, true
	}
	if !c.readsJet(e) {
		f := affOf(c.eval(e))
		if f == nil {
			return nil, false
		}
		v := c.eval(e)
		out := make([]jetLin, v.size())
		for i := range out {
			l := f(i)
			out[i] = jetLin{ids: l.ids, coefs: ad.Consts(l.coefs), c: ad.Const(l.c)}
		}
		return out, true
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return c.jetAffine(e.X)
	case *ast.UnaryExpr:
		if x, ok := c.jetAffine(e.X); ok && e.Op == ast.OpNeg {
			return jetLinMap(x, x, func(a, _ jetLin) (jetLin, bool) { return a.scale(ad.Const(-1)), true })
		}
	case *ast.BinaryExpr:
		x, okx := c.jetAffine(e.X)
		y, oky := c.jetAffine(e.Y)
		if !okx || !oky {
			return nil, false
		}
		return jetLinMap(x, y, func(a, b jetLin) (jetLin, bool) {
			switch {
			case e.Op == ast.OpAdd || e.Op == ast.OpSub:
				if e.Op == ast.OpSub {
					b = b.scale(ad.Const(-1))
				}
				return jetLin{ids: append(slices.Clone(a.ids), b.ids...), coefs: append(slices.Clone(a.coefs), b.coefs...), c: a.c.Add(b.c)}, true
			case e.Op == ast.OpMul && len(a.ids) == 0:
				return b.scale(a.c), true
			case e.Op == ast.OpMul && len(b.ids) == 0:
				return a.scale(b.c), true
			case e.Op == ast.OpDiv && len(b.ids) == 0:
				return a.scale(b.c.Recip()), true
			}
			return jetLin{}, false
		})
	}
	return nil, false
}

// jetLinMap applies f elementwise with scalar broadcasting.
func jetLinMap(x, y []jetLin, f func(a, b jetLin) (jetLin, bool)) ([]jetLin, bool) {
	if len(x) != len(y) && len(x) != 1 && len(y) != 1 {
		return nil, false
	}
	out := make([]jetLin, max(len(x), len(y)))
	for i := range out {
		var ok bool
		if out[i], ok = f(x[min(i, len(x)-1)], y[min(i, len(y)-1)]); !ok {
			return nil, false
		}
	}
	return out, true
}

// at is the jet of l's coefficient of variable id (its terms summed).
func (l jetLin) at(id int) ad.Jet {
	s := ad.Const(0)
	n := 0
	for i, v := range l.ids {
		if v == id {
			if n == 0 {
				s = l.coefs[i]
			} else {
				s = s.Add(l.coefs[i])
			}
			n++
		}
	}
	return s
}
