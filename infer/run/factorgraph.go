package run

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/infer/fgraph"
	"github.com/fg-infer/fg/infer/mcmc"
)

// The engines of a model compiled to a factor graph over several latents
// (graph.FactorGraph; the engines graphEP, graphExact and graphESS):
//
//   - ep runs infer/fgraph: messages on the graph under family = full (the
//     default: one joint Gaussian, forward–backward on a forest) or
//     factorized (a belief per variable), with the line's divergence,
//     damping, schedule, tol and max_iter;
//   - exact runs infer/fgraph too when every factor is linear-Gaussian (the
//     posterior is then exact at any size: the Rauch–Tung–Striebel smoother
//     on a chain), and otherwise quadrature (infer/exact) on the joint
//     Gaussian of the prior factors with the sites as projections aᵀx + c;
//   - mcmc runs particle Gibbs on a chain (fgChain), else elliptical
//     slice sampling on that joint Gaussian prior (fgESS).
//
// compile refuses what these cannot serve (the engines' Supports in engines.go), with a position.

// fgExact is the runner of graphExact: infer/fgraph's exact posterior of a
// linear-Gaussian graph, else quadrature on the joint Gaussian prior.
func (j *job) fgExact(fg *graph.FactorGraph) error {
	if fg.LinearGaussian() {
		return j.fgMessages(fg, true)
	}
	return j.fgGold(fg, j.exactBlock)
}

// fgMessages runs infer/fgraph. exact runs a linear-Gaussian graph with the
// engine's defaults and reports the exact posterior as done.
func (j *job) fgMessages(fg *graph.FactorGraph, exact bool) error {
	g, liks, err := j.fgraphOf(fg)
	if err != nil {
		return err
	}
	s := fgraph.Settings{Settings: j.st, Family: j.spec.Family}
	if exact {
		s = fgraph.Settings{Settings: infer.Settings{Progress: j.st.Progress}}
	}
	s.Cov = len(j.m.Predicts) > 0
	collectLarge(j.m.Graph) // compile's garbage, before the engine's state
	res, err := fgraph.Run(j.ctx, g, s)
	if res == nil {
		return err
	}
	o := &blockOut{status: res.Status, message: res.Message, stats: res.Stats, logZ: res.LogZ,
		hasLogZ: res.HasLogZ, trace: res.Trace, relax: j.relaxations(liks, res.B)}
	o.v = infer.Variable{Mean: res.Mean, Var: res.Var}
	if exact {
		if !res.Exact {
			return fmt.Errorf("internal error: the linear-Gaussian graph was not solved exactly")
		}
		if res.Status == infer.Converged {
			o.status = infer.Done
		}
	}
	if err == nil && res.Status.HasNumbers() {
		if o.predictions, err = j.fgPredictions(res); err != nil {
			return err
		}
	}
	j.mergeFG(o)
	return err
}

// fgraphOf builds the infer/fgraph graph of fg: the Gaussian factors, the
// Gaussian observations as linear-Gaussian factors N(y; aᵀx + c, r) (exact;
// as EP sites under relaxed KL, whose relaxation acts on every likelihood
// factor as in the block engines), the other sites with the infer line's
// moment scheme, and the dense blocks. It returns the sites added as EP
// sites, in order (fgraph.Result.B follows it).
func (j *job) fgraphOf(fg *graph.FactorGraph) (*fgraph.Graph, []graph.Site, error) {
	_, relax := j.st.Divergence.(infer.RelaxedKL)
	g, sites, err := graphOf(fg, relax, j.epLikelihood)
	if err == nil {
		j.warnJitter(fg, g.Jitter())
	}
	return g, sites, err
}

// warnJitter says that a dense block's covariance was numerically singular
// and jitter δ > 0 was added to its diagonal (fgraph.Graph.AddBlock,
// graph.FactorGraph.JointPrior).
func (j *job) warnJitter(fg *graph.FactorGraph, delta float64) {
	if delta > 0 {
		j.warnOnce("%s: a gp or mvnormal block's covariance is numerically singular (very close GP inputs or a very smooth kernel?); used N(m0, Σ0 + %.3g I)", jointName(j.m, fg), delta)
	}
}

// graphOf builds the infer/fgraph graph of fg with the likelihoods
// epLik gives the sites: Gaussian observations as linear-Gaussian
// factors unless relax, the other sites as EP sites; it returns the sites
// added as EP sites, in order.
func graphOf(fg *graph.FactorGraph, relax bool, epLik func(graph.Site) (ep.Likelihood, error)) (*fgraph.Graph, []graph.Site, error) {
	g := priorGraph(fg)
	var liks []graph.Site
	for r := range fg.SiteGroups() {
		if n, ok := r.Shared.Lik.(factor.Normal); ok && !relax {
			g.AddAffines(fg.SiteForms(), r.From, r.To, n.Var)
			continue
		}
		group := make([]ep.Likelihood, 0, r.To-r.From)
		for i := r.From; i < r.To; i++ {
			site := fg.SiteAt(i)
			lik, err := epLik(site)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", site.Label, err)
			}
			group = append(group, lik)
			liks = append(liks, site)
		}
		g.AddSites(fg.SiteForms(), r.From, r.To, group)
	}
	return g, liks, g.Err()
}

// priorGraph is the graph of fg's prior factors: its Gaussians (read in
// place from the factor graph's columns) and dense blocks, whose product
// is the joint Gaussian prior of the variables.
func priorGraph(fg *graph.FactorGraph) *fgraph.Graph {
	g := fgraph.NewGraph(fg.NumVars)
	g.AddAffines(fg.GaussianForms(), 0, fg.NumGaussians(), 0)
	for _, d := range fg.Dense {
		g.AddBlock(d.Vars(), d.Prior.Mean, d.Prior.Cov)
	}
	return g
}

// fgGold runs a gold standard (exactBlock, essBlock) on the joint block of fg.
func (j *job) fgGold(fg *graph.FactorGraph, run func(*graph.Block) (*blockOut, error)) error {
	b, delta, err := jointBlock(j.m, fg)
	if err != nil {
		return err
	}
	j.warnJitter(fg, delta)
	o, err := run(b)
	if o == nil {
		return err
	}
	j.mergeFG(o)
	return err
}

// jointBlock is fg as one Gaussian block over all its variables: the prior
// N(μ, Σ) of its Gaussian factors and dense blocks (FactorGraph.JointPrior:
// compile's priors and conditionals are directed, so the mean and
// covariance are propagated in topological order with no inverse, the
// blocks' covariances copied as given, with the jitter δ added to a
// singular one, returned) and every site as the sparse projection aᵀx + c
// of the joint vector.
func jointBlock(m *compile.Model, fg *graph.FactorGraph) (*graph.Block, float64, error) {
	mean, cov, delta, err := fg.JointPrior(infer.MaxJoint)
	if err != nil {
		return nil, 0, err
	}
	return jointBlockOf(m, fg, mean, cov), delta, nil
}

// jointBlockOf is jointBlock with its prior N(mean, cov) given.
func jointBlockOf(m *compile.Model, fg *graph.FactorGraph, mean []float64, cov *mat.SymDense) *graph.Block {
	b := &graph.Block{Latent: -1, Name: jointName(m, fg), N: fg.NumVars,
		Prior: graph.Prior{Kind: factor.MVNormal{}, Mean: mean, Cov: cov}}
	for i, s := range fg.Sites() {
		site := fg.SiteAt(i)
		site.Vars, site.Proj, site.Offset = slices.Clone(s.Aff.Vars), slices.Clone(s.Aff.Coefs), s.Aff.Const
		b.Sites = append(b.Sites, site)
	}
	return b
}

// jointName names the joint of the real latents in messages, e.g. "x, mu".
func jointName(m *compile.Model, fg *graph.FactorGraph) string {
	var names []string
	for l, first := range fg.First {
		if first >= 0 {
			names = append(names, m.Graph.Latents[l].Name)
		}
	}
	return strings.Join(names, ", ")
}

// mergeFG sets the result from the engine's outcome on the whole graph,
// splitting the joint summary into one variable per real latent.
func (j *job) mergeFG(o *blockOut) {
	r := j.res
	r.Status, r.Message, r.Stats = o.status, o.message, o.stats
	r.HasEvidence = o.hasLogZ && (o.status == infer.Converged || o.status == infer.Done)
	if r.HasEvidence {
		r.LogEvidence = o.logZ
	}
	r.Trace, r.Relaxation = o.trace, o.relax
	r.Predictions = append(r.Predictions, o.predictions...)
	if len(o.v.Mean) > 0 {
		r.Variables = infer.NewVariables(j.perLatent(o.v)...)
	}
}

// perLatent splits a summary of the joint vector into the real latents'
// variables, with their names and shapes (a scalar latent has shape nil).
func (j *job) perLatent(v infer.Variable) []infer.Variable {
	var out []infer.Variable
	for l, first := range j.m.FactorGraph.First {
		if first < 0 {
			continue
		}
		lat := &j.m.Graph.Latents[l]
		n := lat.Size()
		cut := func(x []float64) []float64 {
			if len(x) < first+n {
				return nil
			}
			return x[first : first+n : first+n]
		}
		out = append(out, infer.Variable{Name: lat.Name, Shape: lat.Shape, Mean: cut(v.Mean), Var: cut(v.Var),
			MeanSE: cut(v.MeanSE), VarSE: cut(v.VarSE), ESS: cut(v.ESS), RHat: cut(v.RHat)})
	}
	return out
}

// fgESS runs elliptical slice sampling on the joint block. The chains need
// a start where the likelihood is positive; with noise-free step sites
// whose outcomes cycle (TrueSkill: 0 beats 1, 1 beats 2, 2 beats 0) the
// prior rarely gives one. The chains then start near the posterior that ep
// (family = full) finds: its mean plus s·sd·ε per element, ε ~ N(0, 1),
// with s halved after every 100 draws of zero likelihood. Where a chain
// starts does not change what it samples, and R-hat still compares the
// chains.
func (j *job) fgESS(b *graph.Block) (*blockOut, error) {
	o, err := j.essBlock(b)
	if !errors.Is(err, mcmc.ErrNoStart) {
		return o, err
	}
	init, ierr := j.epStarts(b)
	if ierr != nil {
		return nil, fmt.Errorf("%w; no start near the ep posterior either: %v", err, ierr)
	}
	j.warnOnce("no prior draw has a positive likelihood; the chains start near the ep posterior mean")
	return j.ess(b, init)
}

// epStarts returns a starting point of positive likelihood per chain, drawn
// around the ep posterior of the factor graph (see fgESS).
func (j *job) epStarts(b *graph.Block) ([][]float64, error) {
	g, _, err := j.fgraphOf(j.m.FactorGraph)
	if err != nil {
		return nil, err
	}
	res, err := fgraph.Run(j.ctx, g, fgraph.Settings{})
	if err != nil {
		return nil, err
	}
	if !res.Status.HasNumbers() {
		return nil, fmt.Errorf("ep: %v (%s)", res.Status, res.Message)
	}
	_, _, ll, err := goldProblem(b)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(j.st.Seed, 0x13))
	chains := j.spec.Chains
	if chains <= 0 {
		chains = infer.MCMCChains
	}
	init := make([][]float64, chains)
	for c := range init {
		init[c] = make([]float64, len(res.Mean))
		if !drawFeasible(init[c], res.Mean, res.Var, ll, rng) {
			return nil, fmt.Errorf("no draw around the ep mean has a positive likelihood")
		}
	}
	return init, nil
}

// drawFeasible draws x = m + s·sd·ε until log p(y | x) > −∞, halving s
// after every 100 draws (1000 draws at most; the last are within 2⁻⁹ sd of
// the mean).
func drawFeasible(x, m, v []float64, ll func([]float64) float64, rng *rand.Rand) bool {
	for try := 0; try < 1000; try++ {
		s := math.Ldexp(1, -try/100)
		for i := range x {
			x[i] = m[i] + s*math.Sqrt(v[i])*rng.NormFloat64()
		}
		if !math.IsInf(ll(x), -1) {
			return true
		}
	}
	return false
}
