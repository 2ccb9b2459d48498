package compile

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// fgState collects, while the statements compile, what makes a model a
// factor graph over several latents and what buildFactorGraph
// needs: element conditionals, sites on affine forms with a constant or
// over several latents, and the forms of old-path sites whose projection
// is not a single element.
type fgState struct {
	at   ast.Pos // the first construct that makes the model a factor graph
	what string  // that construct, for messages
	// conds are the compiled conditionals x[target] ~ normal(mean, v)
	// over graph variable ids, as columns (a chain's take no memory per
	// step): Vars[0] is the target (coefficient 1), then the mean's
	// variables with their coefficients, Const the mean's constant, Var
	// v, Factor the factor's number and Tag its statement's position in
	// condPos.
	conds graph.Affines
	// condLabels are the conditionals' labels, in their order.
	condLabels labelCol
	condPos    []ast.Pos
	sites      []fgSite
	// idx are the sites on single elements (selections: y[t] ~ normal(x[t],
	// r)) of statements compiled once the model is known to be a factor
	// graph, over graph variables, as columns: Y, Factor and Tag, an index
	// into idxSites (the statement's Site: kind, likelihood, parameters,
	// position). idxOf counts them per latent.
	idx       graph.Affines
	idxLabels labelCol // the labels of idx, in its order
	idxSites  []*graph.Site
	idxShare  siteSharer
	idxOf     map[int]int
	// proj holds, per latent and site index, the form of an old-path site
	// (one latent, no constant) that is not a single element: a block model
	// expands it into the dense Proj, a factor graph keeps it sparse.
	proj map[int]map[int]lin
	// tried and done count the conditional statements per latent that
	// started and that compiled; a latent with a failed one gets no
	// "no prior" error (its statement's error explains it).
	tried, done map[int]int
	// real is the number of elements of the first counted real latents
	// (realElements).
	real, counted int
	// vecFactors counts the factors charged as a vector plate's
	// (chargeElements).
	vecFactors int
	// overBudget records that a statement was refused for the memory
	// budget (chargeElements): the later ones are abandoned silently.
	overBudget bool
}

// addIdx records that a statement adds n single-element sites on latent lat
// to idx.
func (f *fgState) addIdx(lat, n int) {
	if f.idxOf == nil {
		f.idxOf = map[int]int{}
	}
	f.idxOf[lat] += n
}

// fgSite is a likelihood site on an affine form over graph variables.
type fgSite struct {
	site graph.Site
	aff  lin
}

// useFG marks the model as a factor graph over several latents because of
// the construct at n, which what describes (the first one is kept for
// messages; what runs once).
func (c *compiler) useFG(n ast.Node, what func() string) {
	if !c.fg.at.IsValid() {
		c.fg.at, c.fg.what = n.Pos(), what()
	}
}

// conditional compiles `LHS ~ normal(mean, var)` where LHS is a latent or
// elements of one and mean may depend on latents: one linear-Gaussian
// factor x_t ~ N(aᵀx + b, v) per element of LHS (mean and var broadcast
// from scalars). The mean must be affine in the latents; the variance is
// data or params, > 0 for every element.
func (c *compiler) conditional(lhsAt ast.Node, lhs val, call *ast.CallExpr, pos ast.Pos) {
	s := lhs.sym
	if s.lat < 0 || s.exprs || s.ids == nil {
		c.fail(lhsAt, "the left side of ~ must be a latent or elements of one (x, x[t], x[0:3]), not the expression `%s`", c.text(lhsAt))
	}
	l := &c.m.Graph.Latents[s.lat]
	if l.Domain != graph.Real {
		c.fail(lhsAt, "`%s` is an element of the %s latent `%s`: priors and conditionals on elements are for real latents; a discrete latent takes a prior over the whole latent (`%s ~ ...`)",
			c.text(lhsAt), l.Domain, l.Name, l.Name)
	}
	c.fg.tried[s.lat]++
	b := c.distribution(call)
	k, _ := factor.Lookup(b.Name, factor.Prior)
	_, mvn := k.(factor.MVNormal)
	if _, normal := k.(factor.NormalPrior); !normal && !mvn {
		if !b.Prior {
			c.fail(call.Fun, "`%s` is a likelihood and cannot be the prior of `%s`; a conditional on latent elements is normal(mean, var) or mvnormal(mean, cov)", b.Name, c.text(lhsAt))
		}
		c.fail(call.Fun, "a prior or conditional on latent elements (or with latent parameters) is normal(mean, var) or mvnormal(mean, cov); %s is a prior over a whole latent with numeric parameters", b.Name)
	}
	n := len(s.ids)
	if n > 0 {
		c.useFG(call, func() string { return fmt.Sprintf("conditional `%s ~ %s`", c.text(lhsAt), c.text(call)) })
		c.chargeElements(lhsAt, n)
	}
	a := c.bind(call, b)
	// A learned param in the mean (its coefficients and constant) or in a
	// normal's variance is re-evaluated: the statement is a condSlot, which
	// LearnFunc.At evaluates again at every value and sets in place in the
	// factors' means and variances, and learning differentiates the
	// evidence in them. mvnormal's covariance, which sets its scalar
	// conditionals' coefficients and variances together, stays a place
	// learning cannot change.
	mark := c.lf.mark()
	mv, _ := a.val(0)
	inMean := c.lf.usedSince(mark)
	c.lf.allowIn(mark, a.expr(0))
	mean := c.condMean(a, mv, n)
	var vars []float64
	inVar := false
	if mvn {
		mean, vars = c.mvConditional(a, mean, s.ids)
	} else {
		mark := c.lf.mark()
		vv, _ := a.val(1)
		inVar = c.lf.usedSince(mark)
		c.lf.allowIn(mark, a.expr(1))
		vars = c.condVar(a, vv, s.ids)
	}
	var slot *condSlot
	if (inMean || inVar) && n > 0 {
		slot = &condSlot{call: call, b: b, mvn: mvn, mean: inMean || mvn, ids: s.ids}
		plain := !slot.mean && len(vars) == 1 && !c.readsLocal(a.expr(1))
		if !plain {
			slot.locals = c.snapshotLocals()
		}
		slot = c.lf.addCond(slot, plain)
	}
	if n == 0 {
		c.fg.done[s.lat]++
		return
	}
	// The labels kind(x[i]): made on demand from il, or as one string.
	il := c.condIndexLabels(b.Name, s.ids)
	label := func(int) string { return "" } // il makes them
	if !il.ok {
		label = labelRun(n, b.Name, func(buf []byte, k int) []byte { return c.m.Graph.AppendVarName(buf, s.ids[k]) })
	}
	if np := len(c.fg.condPos); np == 0 || c.fg.condPos[np-1] != pos {
		c.fg.condPos = append(c.fg.condPos, pos)
	}
	tag := len(c.fg.condPos) - 1
	var cvars []int
	var ccoefs []float64
	for k, id := range s.ids {
		m := c.condForm(a, mean, k, id)
		// mvnormal's factors are its scalar conditionals (mvConditional).
		c.countFactor(call)
		f := c.addOffGraph()
		if il.ok {
			c.fg.condLabels.AddIndexed(il.prefix, il.first+k, il.suffix)
		} else {
			c.fg.condLabels.Add(label(k))
		}
		cv, cc := condAffine(id, m, cvars, ccoefs)
		cvars, ccoefs = cv, cc
		c.fg.conds.Add(graph.Affine{Vars: cv, Coefs: cc, Const: m.c, Var: vars[min(k, len(vars)-1)], Factor: f, Tag: tag})
		if slot != nil {
			slot.factors = append(slot.factors, f)
		}
	}
	c.fg.done[s.lat]++
}

// condForm is the mean of element k (graph variable id) of a
// conditional, checked finite.
func (c *compiler) condForm(a *args, mean func(k int) lin, k, id int) lin {
	m := mean(k)
	if !m.finite() {
		c.fail(a.at(0), "the mean of %s has an infinite or NaN coefficient or constant (a division by zero?)", c.m.Graph.VarName(id))
	}
	return m
}

// condAffine is the form x_id − mean as the conditional's factor stores it
// before the graph is built: its target id with coefficient 1, then the
// mean's variables and coefficients (fgBuilder.conditional negates them),
// appended to vars[:0] and coefs[:0].
func condAffine(id int, m lin, vars []int, coefs []float64) ([]int, []float64) {
	vars, coefs = append(vars[:0], id), append(coefs[:0], 1)
	return append(vars, m.ids...), append(coefs, m.coefs...)
}

// maxMVConditional bounds the elements of one mvnormal conditional.
const maxMVConditional = 2000

// mvConditional turns LHS ~ mvnormal(m, Σ) over the d elements ids into d
// scalar conditionals with the same joint density: with the Cholesky factor
// Σ = C Cᵀ and e = x − m = C z, z ~ N(0, I),
//
//	x_i | x_{<i} ~ N(m_i + Σ_{j<i} β_ij (x_j − m_j), C_ii²),  C_{<i}ᵀ β_i = C[i, <i],
//
// (β_i by back substitution against the leading block of C), an affine mean
// in the latents as any conditional. A chain of vector states
// x[t] ~ mvnormal(A @ x[t-1] + B @ u[t], Q) is then a linear-Gaussian factor
// graph that ep, exact and mcmc solve as scalar chains. It returns the
// means and the variances C_ii².
func (c *compiler) mvConditional(a *args, mean func(k int) lin, ids []int) (func(k int) lin, []float64) {
	d := len(ids)
	vars := make([]float64, d)
	means := make([]lin, d)
	c.mvRows(a, d, func(i int, beta []float64, v float64) {
		vars[i] = v
		// m_i + Σ_{j<i} β_ij (x_j − m_j), merged once (weighted).
		means[i] = weighted(2*i+1, nil, func(k int) lin {
			switch {
			case k == 2*i:
				return mean(i)
			case k%2 == 0:
				return varLin(ids[k/2]).scale(beta[k/2])
			}
			return mean(k / 2).scale(-beta[k/2])
		})
	})
	return func(k int) lin { return means[k] }, vars
}

// mvRows calls row(i, β_i, C_ii²) for each of the d scalar conditionals
// of mvnormal call a (mvConditional), in order; β_i (i entries) is valid
// during the call only.
func (c *compiler) mvRows(a *args, d int, row func(i int, beta []float64, v float64)) {
	if d > maxMVConditional {
		c.fail(a.call, "mvnormal as a conditional on %d elements; the limit is %d (its scalar conditionals have d²/2 coefficients): use it on the rows of a state, x[t] ~ mvnormal(A @ x[t-1], Q)", d, maxMVConditional)
	}
	cov := c.covArg(a, 1, d)
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		c.fail(a.at(1), "mvnormal: cov is not positive definite")
	}
	var C mat.TriDense
	ch.LTo(&C)
	beta := make([]float64, d)
	for i := 0; i < d; i++ {
		for k := i - 1; k >= 0; k-- { // C_{<i}ᵀ β = C[i, <i], upper triangular
			s := C.At(i, k)
			for m := k + 1; m < i; m++ {
				s -= C.At(m, k) * beta[m]
			}
			beta[k] = s / C.At(k, k)
		}
		row(i, beta[:i], C.At(i, i)*C.At(i, i))
	}
}

// condMean is the mean of a conditional as affine forms, per element of
// the left side (a scalar broadcasts).
func (c *compiler) condMean(a *args, mv val, n int) func(k int) lin {
	if mv.k != kNum && mv.k != kSym && mv.k != kBool {
		c.fail(a.at(0), "normal: `mean` must be a number, a vector or an affine expression of latents, got %s", mv.describe())
	}
	if mv.size() != 1 && mv.size() != n {
		c.fail(a.at(0), "normal: `mean` must be a scalar or have %d elements like the left side, got %s", n, mv.describe())
	}
	if mv.k == kNum {
		c.finite(a.at(0), "normal mean", mv)
	}
	if mv.k == kSym && mv.sym.lat >= 0 {
		if l := &c.m.Graph.Latents[mv.sym.lat]; l.Domain != graph.Real {
			c.fail(a.at(0), "the mean `%s` depends on the %s latent `%s`; a conditional's mean is an affine expression of real latents", c.text(a.at(0)), l.Domain, l.Name)
		}
	}
	f := affOf(mv)
	if f == nil {
		c.fail(a.at(0), "the mean `%s` is not affine in the latents: a conditional's mean is an affine expression such as a * x[t-1] + b; a nonlinear relation needs `factor exp(...)`", c.text(a.at(0)))
	}
	return f
}

// condVar is the variance of a conditional per element of the left side
// (ids), data or params, each > 0.
func (c *compiler) condVar(a *args, vv val, ids []int) []float64 {
	if vv.k == kSym {
		c.fail(a.at(1), "normal: `var` of a conditional must be data or params, not a latent expression")
	}
	if vv.k != kNum || (vv.size() != 1 && vv.size() != len(ids)) {
		c.fail(a.at(1), "normal: `var` must be a number or a vector of %d, got %s", len(ids), vv.describe())
	}
	c.finite(a.at(1), "normal var", vv)
	c.notePositive(a.expr(1))
	for k, x := range vv.num {
		if !(x > 0) {
			c.fail(a.at(1), "the variance of %s is %s; it must be > 0", c.m.Graph.VarName(ids[k]), fmtNum(x))
		}
	}
	return vv.num
}
