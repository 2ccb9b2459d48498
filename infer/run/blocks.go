package run

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/exact"
	"github.com/fg-infer/fg/infer/ffep"
	"github.com/fg-infer/fg/infer/mcmc"
	"github.com/fg-infer/fg/infer/tep"
)

// epBlock runs the EP engine that fits the block and the infer line:
// t-exponential EP for divergence t(nu), fully factorised EP with a
// numerical scheme when the block has mini-batch factors or asks for
// family = factorized, and Gaussian-block EP otherwise.
func (j *job) epBlock(b *graph.Block) (*blockOut, error) {
	if len(b.Streams) > 0 {
		return j.streamBlock(b)
	}
	if t, ok := j.st.Divergence.(infer.T); ok {
		if t.Nu > tep.GaussianNu {
			j.warnOnce("%v: nu above %g is numerically Gaussian; ran Gaussian EP (kl), the nu → ∞ limit", t, tep.GaussianNu)
			j.st.Divergence = infer.KL{}
			return j.gaussBlock(b)
		}
		return j.tepBlock(b)
	}
	if a, ok := j.st.Divergence.(infer.Alpha); ok && a.A < ep.MinAlpha {
		j.warnOnce("%v: power EP below alpha = %g is numerically its alpha → 0 limit; ran alpha(%g)", a, ep.MinAlpha, ep.MinAlpha)
	}
	if len(b.Batches) > 0 || j.spec.Family == infer.FamilyFactorized {
		return j.ffBlock(b)
	}
	if b.Prior.FITC != nil {
		return j.fitcBlock(b)
	}
	if j.spec.Shards > 0 {
		return j.shardBlock(b)
	}
	return j.gaussBlock(b)
}

// gaussBlock runs infer/ep with the block's prior and sites.
func (j *job) gaussBlock(b *graph.Block) (*blockOut, error) {
	sites, err := j.epSites(b)
	if err != nil {
		return nil, err
	}
	p := &ep.Problem{Mean: b.Prior.Mean, Cov: b.Prior.Cov, Sites: sites}
	if _, named := j.spec.Options["schedule"]; !named {
		// The default is the cheaper schedule at every size measured
		// (docs/performance.md): say which one ran.
		j.res.Options = withOption(j.res.Options, "schedule", j.st.Schedule.String())
	}
	res, err := ep.Run(j.ctx, p, ep.Settings{Settings: j.st, NonNegativeSites: j.spec.NonNegativeSites})
	if res == nil {
		return nil, err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, logZ: res.LogZ,
		hasLogZ: res.HasLogZ, trace: res.Trace}
	if res.Status == infer.Converged && res.Message != "" {
		// A converged run whose log Z could not be computed says why.
		j.res.Warn(j.pos(), "%s: %s", b.Name, res.Message)
	}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var}
	o.relax = j.relaxations(b.Sites, res.B)
	preds, err := j.epPredictions(b, res)
	if err != nil {
		return nil, err
	}
	o.predictions = preds
	return o, nil
}

// epLikelihood is the infer/ep likelihood of a site under the infer line's
// moment scheme: the closed forms for approx = exact, quadrature for a
// numerical approx written on the line. Without an approx option the
// scheme is chosen per site — its closed form when it has one, the default
// numerical scheme otherwise — so that one site without closed-form
// moments (logistic) does not change how the others are computed.
func (j *job) epLikelihood(s graph.Site) (ep.Likelihood, error) {
	_, written := j.spec.Options["approx"]
	if !j.spec.Approx.Numerical() || !written {
		if lik, ok := s.Lik.(ep.Likelihood); ok {
			return lik, nil
		}
	}
	if !j.spec.Approx.Numerical() {
		return nil, fmt.Errorf("%s has no closed-form moments; choose approx = gh(n = 32), laplace, quick_laplace, gq or vq", s.Lik.Name())
	}
	return j.numericLikelihood(s)
}

// relaxations lists the sites whose relaxation weight is non-zero.
func (j *job) relaxations(sites []graph.Site, b []float64) []infer.Relaxation {
	var out []infer.Relaxation
	for i, v := range b {
		if v != 0 && i < len(sites) {
			out = append(out, infer.Relaxation{Factor: sites[i].Label, Pos: j.m.Fset.Position(sites[i].Pos).String(), B: v})
		}
	}
	return out
}

// tepBlock runs infer/tep: EP for the t-exponential family.
func (j *job) tepBlock(b *graph.Block) (*blockOut, error) {
	t := j.st.Divergence.(infer.T)
	p := &tep.Problem{Nu: t.Nu, Mean: b.Prior.Mean, Scale: b.Prior.Cov}
	for _, s := range b.Sites {
		ts, err := tepSite(s)
		if err != nil {
			return nil, err
		}
		p.Sites = append(p.Sites, ts)
	}
	res, err := tep.Run(j.ctx, p, j.st, &tep.Options{ADF: j.spec.Passes == 1})
	if res == nil {
		return nil, err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, logZ: res.LogZ,
		hasLogZ: res.HasLogZ, trace: res.Trace}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var()}
	preds, err := j.tepPredictions(b, res)
	if err != nil {
		return nil, err
	}
	o.predictions = preds
	return o, nil
}

// tepSite is the infer/tep site of s: its likelihood, whose t-EP rule
// (factor.Escort) infer/tep calls, and its projection.
func tepSite(s graph.Site) (tep.Site, error) {
	lik, ok := s.Lik.(factor.Escort)
	if !ok {
		return tep.Site{}, fmt.Errorf("divergence t has no escort rule for %s sites", s.Lik.Name())
	}
	return tep.Site{Lik: lik, Y: s.Y, Proj: s.Proj, Index: s.Index}, nil
}

// ffBlock runs fully factorised EP (infer/ffep) over the block's mini-batch
// factors and its sites, each turned into a potential of the whole vector.
func (j *job) ffBlock(b *graph.Block) (*blockOut, error) {
	pv, err := diagonal(b.Prior.Cov)
	if err != nil {
		return nil, fmt.Errorf("fully factorised EP (mini-batch factors or family = factorized) %w", err)
	}
	p := &ffep.Problem{PriorMean: b.Prior.Mean, PriorVar: pv}
	for _, f := range b.Batches {
		p.Factors = append(p.Factors, f.F)
	}
	for _, s := range b.Sites {
		p.Factors = append(p.Factors, sitePotential{s: s, n: b.N})
	}
	scheme, err := ffep.SchemeOf(j.spec.Approx)
	if err != nil {
		return nil, err
	}
	passes := j.spec.Passes
	if passes == 0 {
		passes = j.st.MaxIter
	}
	res, err := ffep.RunFF(j.ctx, p, &ffep.Settings{Scheme: scheme, Passes: passes, Damping: j.st.Damping, FixedDamping: j.st.FixedDamping,
		Tol: j.st.Tol, Schedule: j.st.Schedule, Seed: j.st.Seed, Progress: j.st.Progress})
	if res == nil {
		return nil, err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, trace: res.Trace}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var}
	if res.NonLogConcave > 0 {
		j.warnOnce("approx = %v: log f was locally convex (not log-concave) at %d of %d site expansions; with such factors the posterior can be multimodal and a %v fixed point can sit at a local mode: compare approx = vq or gq, or infer exact",
			scheme, res.NonLogConcave, res.Updates+res.Skipped, scheme)
	}
	if res.ModeRestarts > 0 {
		j.warnOnce("approx = %v: the first fixed point was in the basin of a lower posterior mode; EP was restarted from the highest mode a multi-start Newton search found", scheme)
	}
	return o, nil
}

// diagonal returns the diagonal of a diagonal covariance, or an error
// when the prior couples coordinates.
func diagonal(c *mat.SymDense) ([]float64, error) {
	n := c.SymmetricDim()
	d := make([]float64, n)
	for i := 0; i < n; i++ {
		d[i] = c.At(i, i)
		for k := i + 1; k < n; k++ {
			if c.At(i, k) != 0 {
				return nil, fmt.Errorf("needs an independent prior such as normal(0, 25); this prior couples coordinates %d and %d", i, k)
			}
		}
	}
	return d, nil
}

// goldProblem is the block's prior and its total log-likelihood
// log Π_i p(y_i | a_iᵀw) + Σ_k log f_k(w), for the gold standards.
func goldProblem(b *graph.Block) (mean []float64, cov *mat.SymDense, loglik func(w []float64) float64, err error) {
	if b.Prior.Kind.Family() != graph.Gaussian {
		return nil, nil, nil, fmt.Errorf("exact and mcmc need a Gaussian prior; %s priors are not supported by them", b.Prior.Kind.Name())
	}
	value := make([]func(float64) float64, len(b.Sites))
	for i, site := range b.Sites {
		value[i] = siteValue(site)
	}
	loglik = func(w []float64) float64 {
		s := 0.0
		for i, site := range b.Sites {
			s += value[i](project(site, w))
		}
		for _, f := range b.Batches {
			s += f.F.LogF(w)
		}
		return s
	}
	return b.Prior.Mean, b.Prior.Cov, loglik, nil
}

// exactBlock runs the gold standard of a block: the closed form when every
// site is a Gaussian observation of a projection (any dimension, no jitter),
// else quadrature (dimension ≤ 3).
func (j *job) exactBlock(b *graph.Block) (*blockOut, error) {
	mean, cov, ll, err := goldProblem(b)
	if err != nil {
		return nil, err
	}
	var res *exact.Result
	if lin, ok := linearProblem(b); ok && j.spec.ExactMethod == "" {
		res, err = exact.RunLinear(j.ctx, lin, exact.Settings{Seed: j.st.Seed})
	} else {
		res, err = exact.Run(j.ctx, exact.Problem{Mean: mean, Cov: cov, LogLik: ll},
			exact.Settings{Method: j.exactMethod(), Tol: j.exactTol(b), Seed: j.st.Seed, Progress: j.evalProgress()})
	}
	if res == nil {
		return nil, err
	}
	o := &blockOut{status: res.Status, message: res.Message, logZ: res.LogZ, hasLogZ: res.Status == infer.Done}
	o.stats.Updates = res.Evaluations
	j.goldWarnings(b, res.Jitter)
	if tol := j.exactTol(b); res.Method == string(infer.ExactQuad) && res.ErrEstimate > tol {
		j.warnOnce("%s: quadrature error estimate %.3g is above tol %g (in posterior standard deviations)", b.Name, res.ErrEstimate, tol)
	}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var, MeanSE: res.MeanErr, VarSE: res.VarErr}
	if res.Method != "" {
		j.res.Options = withOption(j.res.Options, "method", res.Method)
	}
	if err == nil && res.Status == infer.Done {
		o.predictions, err = j.exactPredictions(b, res)
	}
	return o, err
}

// linearProblem is the block as a linear-Gaussian problem when its every
// site is a normal observation y ~ N(aᵀw + c, var) and it has no exp(...)
// potential.
func linearProblem(b *graph.Block) (exact.Linear, bool) {
	n := len(b.Sites)
	if len(b.Batches) > 0 || len(b.Streams) > 0 || n == 0 || b.Prior.Cov == nil || int64(n)*int64(b.N+n)*8*3 > infer.MemoryBudget() {
		return exact.Linear{}, false // the design and S = A Σ0 Aᵀ + R, with their working copies, must fit
	}
	p := exact.Linear{Mean: b.Prior.Mean, Cov: b.Prior.Cov, A: mat.NewDense(n, b.N, nil),
		Offset: make([]float64, n), Y: make([]float64, n), R: make([]float64, n)}
	for i, s := range b.Sites {
		l, ok := s.Lik.(factor.Normal)
		if !ok {
			return exact.Linear{}, false
		}
		p.Y[i], p.R[i], p.Offset[i] = s.Y, l.Var, s.Offset
		switch {
		case s.Vars != nil:
			for k, a := range s.Proj {
				p.A.Set(i, s.Vars[k], p.A.At(i, s.Vars[k])+a)
			}
		case s.Proj != nil:
			p.A.SetRow(i, s.Proj)
		default:
			p.A.Set(i, s.Index, 1)
		}
	}
	return p, true
}

// exactMethod is the integrator of a block that is not linear-Gaussian: the
// line's method option, else quadrature (which refuses more than
// exact.MaxQuadDim dimensions: importance sampling is asked for by name, its
// weights degenerate as the dimension grows).
func (j *job) exactMethod() string {
	if j.spec.ExactMethod != "" {
		return j.spec.ExactMethod
	}
	return string(infer.ExactQuad)
}

// exactTol is the quadrature tolerance (an error bound in posterior
// standard deviations): infer.StepQuadTol when a step site makes the
// integrand discontinuous, else infer.DefaultQuadTol. `tol` is not an
// option of exact (compile refuses it), so the infer line has no say.
func (j *job) exactTol(b *graph.Block) float64 {
	for _, s := range b.Sites {
		if _, ok := s.Lik.(factor.Discontinuous); ok {
			return infer.StepQuadTol
		}
	}
	return infer.DefaultQuadTol
}

// essBlock runs elliptical slice sampling from prior draws.
func (j *job) essBlock(b *graph.Block) (*blockOut, error) { return j.ess(b, nil) }

// ess runs elliptical slice sampling, every chain from its point of init
// (nil: from prior draws with a positive likelihood).
func (j *job) ess(b *graph.Block, init [][]float64) (*blockOut, error) {
	mean, cov, ll, err := goldProblem(b)
	if err != nil {
		return nil, err
	}
	s := mcmc.Settings{Samples: j.spec.Samples, Burnin: burnin(j.spec.MCMCSpec), Chains: j.spec.Chains, Seed: j.st.Seed,
		KeepDraws: len(j.predictsOf(b)) > 0, Progress: j.drawProgress(), Init: init}
	res, err := mcmc.RunESS(j.ctx, mcmc.Problem{Mean: mean, Cov: cov, LogLik: ll}, s)
	if res == nil || errors.Is(err, mcmc.ErrNoStart) {
		return nil, err
	}
	j.goldWarnings(b, res.Jitter)
	return j.mcmcOut(b, res)
}

// mcmcOut is a sampler's result on the joint vector of b: its summaries
// and, when done, the predictions of b's predict statements over its draws.
func (j *job) mcmcOut(b *graph.Block, res *mcmc.Result) (*blockOut, error) {
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats}
	if res.Status == infer.Done {
		o.message = "" // a jitter note is a warning (goldWarnings), not a reason for a status
	}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var, MeanSE: res.MeanSE, VarSE: res.VarSE, ESS: res.ESS, RHat: res.RHat}
	if res.Status == infer.Done {
		var err error
		if o.predictions, err = j.mcmcPredictions(b, res); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// goldWarnings warns when a gold standard had to add jitter δ to a
// numerically singular prior covariance (duplicate GP inputs): both exact
// and mcmc then use N(m0, Σ0 + δI) (gauss.CholeskyJitter).
func (j *job) goldWarnings(b *graph.Block, jitter float64) {
	switch {
	case jitter > 0 && b.Prior.Kind.Process():
		j.warnOnce("%s: the prior covariance is numerically singular (duplicate or very close GP inputs?); used N(m0, Σ0 + %.3g I)", b.Name, jitter)
	case jitter > 0:
		j.warnOnce("%s: the prior covariance is numerically singular (a near-deterministic relation between elements, or variances of very different scales); used N(m0, Σ0 + %.3g I), which changes the model", b.Name, jitter)
	}
}

func withOption(m map[string]string, k, v string) map[string]string {
	out := map[string]string{}
	for a, b := range m {
		out[a] = b
	}
	if _, ok := out[k]; !ok {
		out[k] = v
	}
	return out
}

// project returns the site's projection aᵀw + Offset.
func project(s graph.Site, w []float64) float64 {
	f := s.Offset
	switch {
	case s.Vars != nil:
		for k, a := range s.Proj {
			f += a * w[s.Vars[k]]
		}
	case s.Proj != nil:
		for i, a := range s.Proj {
			f += a * w[i]
		}
	default:
		f += w[s.Index]
	}
	return f
}
