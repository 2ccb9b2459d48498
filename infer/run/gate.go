package run

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/exact"
	"github.com/fg-infer/fg/infer/fgraph"
	"github.com/fg-infer/fg/infer/mcmc"
)

// The engines of a factor-graph model with gated likelihoods
// (compile.FactorGraph.Gates: discrete latents that select a likelihood's
// parameters; the engines gatedEP, gatedExact and gatedMCMC):
//
//   - ep runs infer/fgraph under family = factorized: BP on the selectors,
//     EP on the Gaussian side, in one schedule (kl, alpha, or relaxed_kl
//     with one relaxation weight per gate, reported by gate label);
//   - exact sums the closed-form Gaussian posterior of every configuration
//     of the selectors (fgraph.Enumerate, at most 2²⁰) when every branch
//     and site is a Gaussian observation, and otherwise integrates the
//     continuous elements (at most 3) by quadrature with the selectors
//     summed out (gatedLik.marginal), p(z) as a posterior expectation;
//   - mcmc runs Gibbs on the selectors with elliptical slice sampling on
//     the continuous elements (mcmc.RunMixed).
//
// The gold standards read the IR: the prior is compile.FactorGraph.JointPrior,
// the likelihood its sites and gates (gatedlik.go).
//
// compile refuses what these cannot serve (the engines' Supports in engines.go), with positions.

// gatedGraph is fg as an infer/fgraph graph with its discrete variables
// and gates; lik maps a site to the engine's likelihood.
func (j *job) gatedGraph(fg *compile.FactorGraph, lik func(graph.Site) (ep.Likelihood, error)) (*fgraph.Graph, error) {
	g := priorGraph(fg)
	j.warnJitter(fg, g.Jitter())
	for i, s := range fg.Sites() {
		site := fg.SiteAt(i)
		l, err := lik(site)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", site.Label, err)
		}
		g.AddSite(l, s.Y, s.Aff.Vars, s.Aff.Coefs, s.Aff.Const)
	}
	for _, d := range fg.Discrete {
		g.AddDiscrete(d.Prior)
	}
	for _, gt := range fg.Gates {
		br := make([]fgraph.Branch, len(gt.Branches))
		for k, b := range gt.Branches {
			l, err := lik(b.BlockSite())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Label, err)
			}
			br[k] = fgraph.Branch{Lik: l, Vars: b.Aff.Vars, Coefs: b.Aff.Coefs, C: b.Aff.Const}
		}
		g.AddGate(gt.Selector, gt.Branches[0].Y, br)
	}
	return g, g.Err()
}

// closedForm is a site's closed-form likelihood: a Gaussian observation
// (factor.Normal) for Enumerate.
func closedForm(s graph.Site) (ep.Likelihood, error) {
	l, ok := s.Lik.(ep.Likelihood)
	if !ok {
		return nil, fmt.Errorf("%s has no closed form", s.Lik.Name())
	}
	return l, nil
}

// gatedEP runs infer/fgraph's gated EP.
func (j *job) gatedEP(fg *compile.FactorGraph) error {
	g, err := j.gatedGraph(fg, j.epLikelihood)
	if err != nil {
		return err
	}
	res, err := fgraph.Run(j.ctx, g, fgraph.Settings{Settings: j.st, Family: fgraph.Factorized})
	if res == nil {
		return err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, logZ: res.LogZ, hasLogZ: res.HasLogZ, trace: res.Trace,
		relax: j.gateRelaxations(fg, res.B)}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var}
	j.mergeFG(o)
	if res.Status.HasNumbers() && res.Prob != nil {
		j.res.Variables.AppendVariables(j.selectorVars(fg, res.Prob, nil))
	}
	return err
}

// gateRelaxations labels the relaxation weights of a gated graph under
// relaxed_kl (fgraph.Result.B: the sites' in fg.Sites order, then the
// gates' in fg.Gates order) by factor label and position, leaving out the
// factors whose relaxation was pruned (b = 0), as for sites elsewhere.
func (j *job) gateRelaxations(fg *compile.FactorGraph, b []float64) []infer.Relaxation {
	sites := make([]graph.Site, 0, fg.NumSites()+len(fg.Gates))
	for i := range fg.NumSites() {
		sites = append(sites, fg.SiteAt(i))
	}
	for _, g := range fg.Gates {
		sites = append(sites, graph.Site{Label: g.Label, Pos: g.Pos})
	}
	return j.relaxations(sites, b)
}

// gatedExact is the exact posterior: enumeration when conditionally
// linear-Gaussian, quadrature otherwise.
func (j *job) gatedExact(fg *compile.FactorGraph) error {
	if fg.ConditionallyGaussian() {
		g, err := j.gatedGraph(fg, closedForm)
		if err != nil {
			return err
		}
		res, err := fgraph.Enumerate(j.ctx, g)
		if res == nil {
			return err
		}
		o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, logZ: res.LogZ, hasLogZ: res.HasLogZ}
		o.v = infer.Variable{Mean: res.Mean, Var: res.Var}
		j.mergeFG(o)
		if res.Status == infer.Done {
			j.res.Variables.AppendVariables(j.selectorVars(fg, res.Prob, nil))
		}
		return err
	}
	return j.gatedQuadrature(fg)
}

// gatedQuadrature integrates the continuous elements by adaptive cubature
// with the selectors summed out; p(z_d = k) = E[p(z_d = k | x, y)].
func (j *job) gatedQuadrature(fg *compile.FactorGraph) error {
	mean, cov, lik, err := j.gatedGold(fg)
	if err != nil {
		return err
	}
	res, err := exact.Run(j.ctx, exact.Problem{Mean: mean, Cov: cov, LogLik: lik.marginal}, exact.Settings{Tol: infer.DefaultQuadTol, Progress: j.evalProgress()})
	if res == nil {
		return err
	}
	o := &blockOut{status: res.Status, message: res.Message, logZ: res.LogZ, hasLogZ: res.Status == infer.Done}
	o.stats.Updates = res.Evaluations
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var, MeanSE: res.MeanErr, VarSE: res.VarErr}
	j.mergeFG(o)
	if err != nil || res.Status != infer.Done {
		return err
	}
	var gs []func([]float64) float64
	for d, lp := range lik.logPrior {
		buf := make([]float64, len(lp))
		for k := range lp {
			gs = append(gs, func(x []float64) float64 { lik.posterior(x, d, buf); return buf[k] })
		}
	}
	vals, _, err := res.Expect(j.ctx, gs)
	if err != nil {
		return err
	}
	prob := make([][]float64, len(fg.Discrete))
	for d, lp := range lik.logPrior {
		prob[d], vals = vals[:len(lp)], vals[len(lp):]
	}
	j.res.Variables.AppendVariables(j.selectorVars(fg, prob, nil))
	return nil
}

// gatedMCMC runs Gibbs on the selectors with elliptical slice sampling on
// the continuous elements.
func (j *job) gatedMCMC(fg *compile.FactorGraph) error {
	mean, cov, lik, err := j.gatedGold(fg)
	if err != nil {
		return err
	}
	s := mcmc.Settings{Samples: j.spec.Samples, Burnin: burnin(j.spec.MCMCSpec), Chains: j.spec.Chains, Seed: j.st.Seed, Progress: j.drawProgress()}
	res, err := mcmc.RunMixed(j.ctx, mcmc.MixedProblem{Mean: mean, Cov: cov, Prior: lik.priors(), LogLik: lik.logLik, Local: lik.local}, s)
	if res == nil || res.Result == nil {
		return err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var, MeanSE: res.MeanSE, VarSE: res.VarSE, ESS: res.ESS, RHat: res.RHat}
	j.mergeFG(o)
	if res.Status == infer.Done {
		j.res.Variables.AppendVariables(j.selectorVars(fg, res.Prob, res.ProbSE))
	}
	return err
}

// gatedGold is what the gold standards on gated likelihoods read from the
// IR: the joint Gaussian prior (warning when a block's covariance was
// jittered) and the likelihood with its selectors.
func (j *job) gatedGold(fg *compile.FactorGraph) ([]float64, *mat.SymDense, *gatedLik, error) {
	mean, cov, jitter, err := fg.JointPrior()
	if err != nil {
		return nil, nil, nil, err
	}
	j.warnJitter(fg, jitter)
	lik, err := newGatedLik(fg)
	if err != nil {
		return nil, nil, nil, err
	}
	return mean, cov, lik, nil
}

// selectorVars maps the selectors' marginals (in fg.Discrete order), and
// their standard errors when se is non-nil, to the model's discrete latents.
func (j *job) selectorVars(fg *compile.FactorGraph, prob, se [][]float64) infer.Variables {
	g := j.m.Graph
	marg := make([][]float64, len(g.Vars))
	for d, dv := range fg.Discrete {
		marg[dv.Var] = prob[d]
	}
	t := discreteVars(g, marg)
	if se != nil {
		t.se = make([][]float64, len(g.Vars))
		for d, dv := range fg.Discrete {
			t.se[dv.Var] = se[d]
		}
	}
	return t.vars()
}
