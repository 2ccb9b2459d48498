package run

import (
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/exact"
	"github.com/fg-infer/fg/infer/mcmc"
)

// goldPredictor turns posterior draws or quadrature nodes w into predictive
// quantities at one new input. The predictive latent is Gaussian given w:
//
//	f* | w ~ N(μ(w), v),  μ(w) = aᵀw,
//
// with a = x* and v = 0 for a linear block, and for a GP block a = K⁻¹k*,
// v = k** − k*ᵀK⁻¹k* (the GP conditional). Then
//
//	E f* = E μ(w),  Var f* = E μ(w)² − (E μ(w))² + v,  p(y* = +1) = E P(μ(w), v),
//
// where P(m, v) = ∫ p(+1 | f) N(f; m, v) df is the likelihood's predictive.
//
// On a factor-graph model μ(w) = aᵀw + c over the joint vector, and lik
// and obs apply to the sites' argument arg (predict_factorgraph.go), which
// may differ from the predicted quantity (f* against f* + b).
type goldPredictor struct {
	a   []float64
	c   float64
	v   float64
	lik ep.Likelihood
	obs factor.MeanObs // E[y | f] for count likelihoods, nil otherwise
	arg *goldPredictor // the likelihood's argument, nil: this one
	// point is p(+1 | f) by the site's PointProb rule: P(m, 0) without the
	// likelihood's quadrature (nil without the rule).
	point func(f float64) float64
}

// argument is the predictor the likelihood applies to.
func (g goldPredictor) argument() goldPredictor {
	if g.arg != nil {
		return *g.arg
	}
	return g
}

// meanY is E[y* | w] = MeanObs(μ(w), v).
func (g goldPredictor) meanY(w []float64) float64 {
	q := g.argument()
	return g.obs.MeanObs(q.mu(w), q.v)
}

func (g goldPredictor) mu(w []float64) float64 {
	s := g.c
	for i, ai := range g.a {
		s += ai * w[i]
	}
	return s
}

// prob is P(μ(w), v), with the step's Θ at v = 0 (½ on the boundary).
func (g goldPredictor) prob(w []float64) float64 {
	q := g.argument()
	return g.probAt(q.mu(w), q.v)
}

// addTo adds the values of goldFuncs' functions of this predictor at w to
// vals (μ, μ², then P and E[y] when defined, in that order), computing
// each mean once; it returns how many it added.
func (g goldPredictor) addTo(vals []float64, w []float64) int {
	m := g.mu(w)
	vals[0] += m
	vals[1] += m * m
	k := 2
	if g.lik == nil && g.obs == nil {
		return k
	}
	am, av := m, g.v
	if g.arg != nil {
		am, av = g.arg.mu(w), g.arg.v
	}
	if g.lik != nil {
		vals[k] += g.probAt(am, av)
		k++
	}
	if g.obs != nil {
		vals[k] += g.obs.MeanObs(am, av)
		k++
	}
	return k
}

// probAt is P(m, v) of the likelihood's argument with mean m and
// conditional variance v.
func (g goldPredictor) probAt(m, v float64) float64 {
	if v <= 0 {
		if st, ok := g.lik.(ep.Step); ok {
			switch {
			case m > 0:
				return 1 - st.Eps
			case m < 0:
				return st.Eps
			}
			return 0.5
		}
		if g.point != nil {
			return g.point(m)
		}
	}
	p, _ := g.lik.Prob(m, math.Max(v, 0))
	return p
}

// predictorsOf builds one predictor per new input of p: goldPredictors,
// or fgGoldPredictors on a factor-graph model's joint block.
func (j *job) predictorsOf(b *graph.Block, p *compile.PredictSpec) ([]goldPredictor, error) {
	if p.FG != nil {
		return j.fgGoldPredictors(b, p)
	}
	return goldPredictors(b, p)
}

// goldPredictors builds one predictor per new input of p.
func goldPredictors(b *graph.Block, p *compile.PredictSpec) ([]goldPredictor, error) {
	lik := predictLik(p)
	obs, _ := p.Lik.(factor.MeanObs)
	t, _ := p.Xnew.Dims()
	out := make([]goldPredictor, t)
	if !hasKernel(b) {
		point := pointProb(p, lik)
		for i := range out {
			out[i] = goldPredictor{a: p.Xnew.RawRowView(i), lik: lik, obs: obs, point: point}
		}
		return out, nil
	}
	var ch mat.Cholesky
	if !ch.Factorize(b.Prior.Cov) {
		return nil, fmt.Errorf("predict %s: the prior covariance is not positive definite", p.Name)
	}
	ks, kss := kernelInputs(&b.Prior, p.Xnew)
	for i := range out {
		var a mat.VecDense
		kstar := mat.NewVecDense(b.N, ks.RawRowView(i))
		if err := ch.SolveVecTo(&a, kstar); err != nil {
			return nil, fmt.Errorf("predict %s: %w", p.Name, err)
		}
		out[i] = goldPredictor{a: a.RawVector().Data, v: kss[i] - mat.Dot(kstar, &a), lik: lik, obs: obs}
	}
	return out, nil
}

// pointProb is p(+1 | f) of a classifier whose site has a PointProb rule,
// the predictive given one posterior draw of a linear block (a display
// grid evaluates it per draw and grid point); nil without the rule.
func pointProb(p *compile.PredictSpec, lik ep.Likelihood) func(float64) float64 {
	pp, ok := p.Lik.(factor.PointProb)
	if lik == nil || !ok {
		return nil
	}
	return pp.ProbAt
}

// goldFuncs lists, per predictor, μ, μ² and (with a likelihood) P.
func goldFuncs(ps []goldPredictor) []func([]float64) float64 {
	var fs []func([]float64) float64
	for _, g := range ps {
		g := g
		fs = append(fs, g.mu, func(w []float64) float64 { m := g.mu(w); return m * m })
		if g.lik != nil {
			fs = append(fs, g.prob)
		}
		if g.obs != nil {
			fs = append(fs, g.meanY)
		}
	}
	return fs
}

// finiteGuard marks the functions of an expectation that took a non-finite
// value somewhere (an overflowing predictive, e.g. the expected count
// E[exp(x*·w)] at a far input): such a function counts as 0 in the
// integral or average, so that the quadrature and the other functions go
// on, and apply reports its expectation as NaN — one missing element
// (null in JSON, — in tables, a warning from warnNonFinite), not a failed
// result without its posterior.
type finiteGuard struct{ bad []atomic.Bool }

// guardFinite wraps fs (which may be called concurrently) with a guard.
func guardFinite(fs []func([]float64) float64) ([]func([]float64) float64, *finiteGuard) {
	g := &finiteGuard{bad: make([]atomic.Bool, len(fs))}
	out := make([]func([]float64) float64, len(fs))
	for i, f := range fs {
		out[i] = func(w []float64) float64 {
			v := f(w)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				g.bad[i].Store(true)
				return 0
			}
			return v
		}
	}
	return out, g
}

// apply sets the expectations of the marked functions to NaN.
func (g *finiteGuard) apply(vals []float64) {
	for i := range vals {
		if g.bad[i].Load() {
			vals[i] = math.NaN()
		}
	}
}

// assemble turns the expectations of goldFuncs into a Prediction.
func assemble(name string, ps []goldPredictor, vals []float64) infer.Prediction {
	pr := infer.Prediction{Name: name, Shape: []int{len(ps)}}
	k := 0
	for _, g := range ps {
		m, m2 := vals[k], vals[k+1]
		k += 2
		pr.Mean = append(pr.Mean, m)
		pr.Var = append(pr.Var, math.Max(m2-m*m, 0)+g.v)
		if g.lik != nil {
			pr.Prob = append(pr.Prob, vals[k])
			k++
		}
		if g.obs != nil {
			pr.MeanY = append(pr.MeanY, vals[k])
			k++
		}
	}
	return pr
}

// exactPredictions evaluates the block's predict statements: in closed
// form on a closed-form Gaussian posterior, else by quadrature.
func (j *job) exactPredictions(b *graph.Block, res *exact.Result) ([]infer.Prediction, error) {
	var out []infer.Prediction
	for _, p := range j.predictsOf(b) {
		if res.ClosedForm() && !p.Display {
			ps, err := j.predictorsOf(b, p)
			if err != nil {
				return nil, err
			}
			out = append(out, gaussianPrediction(p.Name, ps, res.Mean, res.Cov))
			continue
		}
		if p.Display {
			if pr, err := exactDisplay(b, p, res); err == nil {
				out = append(out, pr)
				continue
			} // an "is" result has no draws: integrate as for any predict
		}
		ps, err := j.predictorsOf(b, p)
		if err != nil {
			return nil, err
		}
		fs, g := guardFinite(goldFuncs(ps))
		vals, _, err := res.Expect(j.ctx, fs)
		if err != nil {
			return nil, fmt.Errorf("predict %s: %w", p.Name, err)
		}
		g.apply(vals)
		out = append(out, assemble(p.Name, ps, vals))
	}
	return out, nil
}

// gaussianPrediction is the prediction of ps under the Gaussian posterior
// w ~ N(mean, cov) of a closed-form ("gaussian") exact result, in closed
// form: μ(w) = aᵀw + c is N(aᵀmean + c, aᵀ cov a), so
//
//	E f* = aᵀmean + c,   Var f* = aᵀ cov a + v,
//	p(y* = +1) = P(m_arg, s_arg + v_arg),   E y* = MeanObs(m_arg, s_arg + v_arg),
//
// where (m_arg, s_arg) are the mean and variance of the likelihood's
// argument's μ(w): the likelihood's predictive integrates p(y | f) over f
// ~ N(μ(w), v) and then over w, one Gaussian convolution.
func gaussianPrediction(name string, ps []goldPredictor, mean []float64, cov *mat.SymDense) infer.Prediction {
	moments := func(g goldPredictor) (m, s float64) {
		m = g.mu(mean)
		for i, ai := range g.a {
			if ai == 0 {
				continue
			}
			for k, ak := range g.a {
				s += ai * ak * cov.At(i, k)
			}
		}
		return m, math.Max(s, 0)
	}
	vals := make([]float64, 0, 4*len(ps))
	for _, g := range ps {
		m, s := moments(g)
		vals = append(vals, m, m*m+s)
		if g.lik == nil && g.obs == nil {
			continue
		}
		q := g.argument()
		am, as := m, s
		if g.arg != nil {
			am, as = moments(q)
		}
		if g.lik != nil {
			vals = append(vals, g.probAt(am, as+q.v))
		}
		if g.obs != nil {
			vals = append(vals, g.obs.MeanObs(am, as+q.v))
		}
	}
	return assemble(name, ps, vals)
}

// mcmcPredictions evaluates the block's predict statements over the draws.
func (j *job) mcmcPredictions(b *graph.Block, res *mcmc.Result) ([]infer.Prediction, error) {
	var out []infer.Prediction
	for _, p := range j.predictsOf(b) {
		if p.Display && len(res.Draws) > 0 {
			pr, err := mcmcDisplay(b, p, res)
			if err != nil {
				return nil, fmt.Errorf("predict %s: %w", p.Name, err)
			}
			out = append(out, pr)
			continue
		}
		ps, err := j.predictorsOf(b, p)
		if err != nil {
			return nil, err
		}
		fs, g := guardFinite(goldFuncs(ps))
		vals := make([]float64, len(fs))
		for i, f := range fs {
			s, err := res.Expect(f)
			if err != nil {
				return nil, fmt.Errorf("predict %s: %w", p.Name, err)
			}
			vals[i] = s.Mean
		}
		g.apply(vals)
		out = append(out, assemble(p.Name, ps, vals))
	}
	return out, nil
}
