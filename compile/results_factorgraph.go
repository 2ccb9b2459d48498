package compile

import (
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/lang/ast"
)

// fgPredict compiles `predict NAME = predictive(EXPR, Xnew)` on a
// factor-graph model. EXPR is a real latent (predictive(f, Xnew)) or, for
// a latent with a gp prior, s·f + r with r a vector-broadcast affine
// expression of other latents (predictive(f + b, Xnew): the predictive of
// f* + b at new inputs). The sites on the latent give the likelihood of
// p(y* = +1) when they share it and their argument has the form
// s'·f[i] + r' with s' and r' common (y[i] ~ probit(f[i] + b)), so the
// class probability integrates over the latent bias too.
func (c *compiler) fgPredict(s *ast.PredictStmt, a *args, lv val) {
	fg := c.m.FactorGraph
	if len(fg.Gates) > 0 {
		gt := fg.Gates[0]
		c.fail(s, "predict is not supported on a model with gated likelihoods (%s at %s: a mixture or a discrete selector); its methods report the latents' marginals only", gt.Label, c.fset.Position(gt.Pos))
	}
	lat, scale, rest := c.fgPredictTarget(a, lv)
	first, size := fg.First[lat], c.m.Graph.Latents[lat].Size()
	spec := &PredictSpec{Name: s.Name.Name, Block: -1, Pos: s.Pos(),
		FG: &FGPredict{Vars: make([]int, size), Dense: -1, Scale: scale, Rest: rest}}
	for e := range spec.FG.Vars {
		spec.FG.Vars[e] = first + e
	}
	for i, d := range fg.Dense {
		if d.Latent == lat && d.Prior.Kind.Process() {
			spec.FG.Dense = i
		}
	}
	name := c.m.Graph.Latents[lat].Name
	if spec.FG.Dense < 0 && (scale != 1 || len(rest.Vars) > 0 || rest.Const != 0) {
		c.fail(a.at(0), "predictive: `%s` has no gp prior, so Xnew's rows are projections of it; pass the latent itself, predictive(%s, Xnew)", name, name)
	}
	xv, _ := a.val(1)
	if xv.k == kSparse {
		c.fail(a.at(1), "predictive: libsvm inputs cannot be combined with a factor-graph model yet; this model is a factor graph because of the %s at %s", c.fg.what, c.fset.Position(c.fg.at))
	}
	if xv.k != kNum || len(xv.shape) == 0 || len(xv.shape) > 2 {
		c.fail(a.at(1), "predictive: Xnew must be a matrix, got %s", xv.describe())
	}
	rows, cols := xv.shape[0], 1
	if len(xv.shape) == 2 {
		cols = xv.shape[1]
	}
	want := size
	if spec.FG.Dense >= 0 {
		_, want = fg.Dense[spec.FG.Dense].Prior.X.Dims()
	}
	if cols != want {
		c.fail(a.at(1), "predictive: Xnew has %d columns, `%s` needs %d", cols, name, want)
	}
	for _, p := range c.m.Predicts {
		if p.Name == s.Name.Name {
			c.fail(s.Name, "predict `%s` declared twice", s.Name.Name)
		}
	}
	for _, in := range c.m.Infers {
		full := in.Method == infer.MethodEP && in.Family != infer.FamilyFactorized
		if (full || in.Method == infer.MethodExact) && fg.NumVars > infer.MaxJoint {
			c.fail(s, "predict on a factor-graph model reads the joint posterior covariance, which %s keeps for at most %d latent elements; this model has %d: use ep with family = factorized (the infer line at %s)",
				map[bool]string{true: "ep under family = full", false: string(infer.MethodExact)}[full], infer.MaxJoint, fg.NumVars, c.fset.Position(in.Pos))
		}
	}
	spec.Xnew = mat.NewDense(rows, cols, append([]float64(nil), xv.num...))
	spec.Lik, spec.FG.SiteScale, spec.FG.SiteRest = fgSiteArgument(fg, first, first+size, spec.FG.Dense >= 0)
	c.m.Predicts = append(c.m.Predicts, spec)
}

// fgPredictTarget finds the latent l, scale s and rest r of predictive's
// first argument s·l + r (element k of the expression is s·l[k] + r for
// every k, r over other latents), or fails at it.
func (c *compiler) fgPredictTarget(a *args, lv val) (int, float64, graph.Form) {
	g, fg := c.m.Graph, c.m.FactorGraph
	var forms func(int) lin
	if lv.k == kSym {
		forms = lv.sym.forms()
	}
	if forms == nil {
		c.fail(a.at(0), "predictive needs a real latent, or for a gp latent f an affine expression such as f + b, e.g. predictive(f, Xtest)")
	}
	n := lv.size()
	f0 := forms(0)
	for _, id := range f0.ids {
		v := g.Vars[id]
		l := &g.Latents[v.Latent]
		if v.Index != 0 || l.Size() != n || fg.First[v.Latent] < 0 {
			continue
		}
		if s, r, ok := c.splitForms(forms, n, v.Latent); ok {
			return v.Latent, s, r
		}
	}
	c.fail(a.at(0), "predictive needs a whole real latent f, or s*f + r with r the same for every element (f + b), e.g. predictive(f, Xtest)")
	return 0, 0, graph.Form{}
}

// splitForms writes every form k as s·x[l][k] + r with common s and r, r
// free of latent l.
func (c *compiler) splitForms(forms func(int) lin, n, l int) (float64, graph.Form, bool) {
	g := c.m.Graph
	var s float64
	var rest graph.Form
	for k := 0; k < n; k++ {
		f := forms(k)
		var r graph.Form
		coef := 0.0
		for j, id := range f.ids {
			v := g.Vars[id]
			switch {
			case v.Latent == l && v.Index == k:
				coef = f.coefs[j]
			case v.Latent == l:
				return 0, graph.Form{}, false
			default:
				r.Vars = append(r.Vars, c.m.FactorGraph.First[v.Latent]+v.Index)
				r.Coefs = append(r.Coefs, f.coefs[j])
			}
		}
		r.Const = f.c
		r = sortedAffine(r)
		if k == 0 {
			s, rest = coef, r
		} else if coef != s || !sameAffine(r, rest) {
			return 0, graph.Form{}, false
		}
	}
	return s, rest, s != 0
}

// fgSiteArgument returns the likelihood and the common argument
// s·g + r of the sites on variables [lo, hi): every site touching them
// has the same likelihood and the form s·x_i + r (gp: one variable with a
// common coefficient s) or p(x) + r (otherwise: s = 1, the projection p is
// Xnew's row), with r common and free of [lo, hi). Otherwise (no sites,
// or sites that differ) the likelihood is nil: no class probability.
func fgSiteArgument(fg *graph.FactorGraph, lo, hi int, gp bool) (graph.SiteKind, float64, graph.Form) {
	var lik graph.SiteKind
	var s float64
	var rest graph.Form
	for _, st := range fg.Sites() {
		var r graph.Form
		in, coef := 0, 1.0
		for k, v := range st.Aff.Vars {
			if v >= lo && v < hi {
				in++
				coef = st.Aff.Coefs[k]
			} else {
				r.Vars = append(r.Vars, v)
				r.Coefs = append(r.Coefs, st.Aff.Coefs[k])
			}
		}
		if in == 0 {
			continue
		}
		if !gp {
			coef = 1
		}
		r.Const = st.Aff.Const
		r = sortedAffine(r)
		switch {
		case gp && in != 1:
			return nil, 0, graph.Form{}
		case lik == nil:
			lik, s, rest = st.Shared.Lik, coef, r
		case !sameParams(st.Shared.Lik, lik) || coef != s || !sameAffine(r, rest):
			return nil, 0, graph.Form{}
		}
	}
	return lik, s, rest
}

// sortedAffine orders a's terms by variable.
func sortedAffine(a graph.Form) graph.Form {
	idx := make([]int, len(a.Vars))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return a.Vars[i] - a.Vars[j] })
	out := graph.Form{Const: a.Const}
	if len(idx) == 0 {
		return out
	}
	out.Vars, out.Coefs = make([]int, len(idx)), make([]float64, len(idx))
	for k, i := range idx {
		out.Vars[k], out.Coefs[k] = a.Vars[i], a.Coefs[i]
	}
	return out
}

func sameAffine(a, b graph.Form) bool {
	return a.Const == b.Const && slices.Equal(a.Vars, b.Vars) && slices.Equal(a.Coefs, b.Coefs)
}
