package run

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/fgraph"
)

// fgRows are the predictive quantities of a factor-graph predict as
// projections of the joint vector x: per new input t,
//
//	q_t = X[t,:]·x[vars] + c[t] + ε_t,   ε_t ~ N(0, v[t]) independent of x.
//
// For a gp latent f ~ N(0, K) the new value is f*_t | f ~ N(aᵀf, k** − k*ᵀa)
// with a = K⁻¹k* (f* is independent of every other variable given f, since
// the gp prior is its only factor), so s·f*_t + r is the projection
// [s·aᵀ, r's coefficients] plus r's constant and variance s²(k** − k*ᵀa).
// For another latent the new value is the projection Xnew[t]·x, ε = 0.
// The posterior predictive is then N(E[X x] + c, Var[X x] + v): the
// joint posterior covariance carries cov(f, b) into f* + b.
type fgRows struct {
	vars []int
	X    *mat.Dense
	c, v []float64
}

// fgBase returns the rows of the new values g* of p's latent (s = 1, r = 0).
func fgBase(fg *compile.FactorGraph, p *compile.PredictSpec) (*fgRows, error) {
	t, _ := p.Xnew.Dims()
	vars := p.FG.Vars
	r := &fgRows{vars: vars, c: make([]float64, t), v: make([]float64, t)}
	if p.FG.Dense < 0 {
		r.X = p.Xnew
		return r, nil
	}
	d := fg.Dense[p.FG.Dense]
	var ch mat.Cholesky
	if !ch.Factorize(d.Prior.Cov) {
		return nil, fmt.Errorf("predict %s: the gp covariance of `%s` is not positive definite", p.Name, d.Name)
	}
	ks, kss := kernelInputs(&d.Prior, p.Xnew)
	var A mat.Dense
	if err := ch.SolveTo(&A, ks.T()); err != nil {
		return nil, fmt.Errorf("predict %s: %w", p.Name, err)
	}
	r.X = mat.DenseCopyOf(A.T())
	for i := range r.v {
		a := r.X.RawRowView(i)
		r.v[i] = kss[i] - mat.Dot(mat.NewVecDense(len(a), a), mat.NewVecDense(len(a), ks.RawRowView(i)))
		if d.Prior.Mean != nil {
			r.c[i] = -mat.Dot(mat.NewVecDense(len(a), a), mat.NewVecDense(len(a), d.Prior.Mean))
		}
	}
	return r, nil
}

// affineOf returns the rows of s·g* + rest.
func (b *fgRows) affineOf(s float64, rest graph.Form) *fgRows {
	t, k := b.X.Dims()
	out := &fgRows{vars: append(append([]int(nil), b.vars...), rest.Vars...),
		X: mat.NewDense(t, k+len(rest.Vars), nil), c: make([]float64, t), v: make([]float64, t)}
	for i := 0; i < t; i++ {
		row := out.X.RawRowView(i)
		for e, x := range b.X.RawRowView(i) {
			row[e] = s * x
		}
		copy(row[k:], rest.Coefs)
		out.c[i] = s*b.c[i] + rest.Const
		out.v[i] = s * s * b.v[i]
	}
	return out
}

// fgPredictRows returns the rows of p's reported quantity and of its
// sites' argument (nil without a likelihood).
func fgPredictRows(fg *compile.FactorGraph, p *compile.PredictSpec) (out, arg *fgRows, err error) {
	base, err := fgBase(fg, p)
	if err != nil {
		return nil, nil, err
	}
	out = base.affineOf(p.FG.Scale, p.FG.Rest)
	if p.Lik != nil {
		arg = base.affineOf(p.FG.SiteScale, p.FG.SiteRest)
	}
	return out, arg, nil
}

// project is the posterior predictive N(mean, vr) of the rows under res.
func (b *fgRows) project(res *fgraph.Result) (mean, vr []float64, err error) {
	mean, vr, err = res.Project(b.vars, b.X)
	if err != nil {
		return nil, nil, err
	}
	for i := range mean {
		mean[i] += b.c[i]
		vr[i] += b.v[i]
	}
	return mean, vr, nil
}

// fgPredictions evaluates the predict statements of a factor-graph model
// on an infer/fgraph result run with Settings.Cov.
func (j *job) fgPredictions(res *fgraph.Result) ([]infer.Prediction, error) {
	var preds []infer.Prediction
	for _, p := range j.m.Predicts {
		if p.FG == nil {
			continue
		}
		out, arg, err := fgPredictRows(j.m.FactorGraph, p)
		if err != nil {
			return nil, err
		}
		mean, vr, err := out.project(res)
		if err != nil {
			return nil, fmt.Errorf("predict %s: %w", p.Name, err)
		}
		pr := infer.Prediction{Name: p.Name, Shape: []int{len(mean)}, Mean: mean, Var: vr}
		if arg != nil {
			am, av, err := arg.project(res)
			if err != nil {
				return nil, fmt.Errorf("predict %s: %w", p.Name, err)
			}
			if err := observe(&pr, p, am, av); err != nil {
				return nil, err
			}
		}
		preds = append(preds, pr)
	}
	return preds, nil
}

// fgGoldPredictors are the gold standards' predictors of p over the joint
// vector of b (jointBlock): each row as a dense projection of all the
// variables, with its constant and conditional variance.
func (j *job) fgGoldPredictors(b *graph.Block, p *compile.PredictSpec) ([]goldPredictor, error) {
	out, arg, err := fgPredictRows(j.m.FactorGraph, p)
	if err != nil {
		return nil, err
	}
	dense := func(r *fgRows, i int) goldPredictor {
		a := make([]float64, b.N)
		for e, v := range r.vars {
			a[v] += r.X.At(i, e)
		}
		return goldPredictor{a: a, c: r.c[i], v: r.v[i]}
	}
	lik := predictLik(p)
	obs, _ := p.Lik.(factor.MeanObs)
	ps := make([]goldPredictor, len(out.c))
	for i := range ps {
		ps[i] = dense(out, i)
		if arg != nil {
			q := dense(arg, i)
			ps[i].lik, ps[i].obs, ps[i].arg = lik, obs, &q
		}
	}
	return ps, nil
}
