package run

import (
	"errors"
	"strconv"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/mcmc"
)

// Samplers of the engine graphESS, named in the result's options as `sampler`.
const (
	samplerParticleGibbs = "particle_gibbs"
	samplerSlice         = "elliptical_slice"
)

// fgMCMC is the runner of graphESS: particle Gibbs with backward sampling
// (mcmc.RunChain) when fg is a chain (compile.FactorGraph.Chain: no dense
// block, factors and sites within a band of the elements' order), whose
// mixing does not degrade with the chain's length; otherwise, or when no
// particle path of positive likelihood starts a chain, elliptical slice
// sampling on the joint Gaussian prior (fgESS). The result's options say
// which ran (`sampler`, and `particles` for particle Gibbs).
func (j *job) fgMCMC(fg *compile.FactorGraph) error {
	if fg.Chain() {
		err := j.fgChain(fg)
		if !errors.Is(err, mcmc.ErrNoStart) && !errors.Is(err, mcmc.ErrNotBanded) {
			return err
		}
		j.warnOnce("particle Gibbs found no path of positive likelihood to start from; sampled by elliptical slice sampling on the joint prior instead")
	}
	j.res.Options = withOption(j.res.Options, "sampler", samplerSlice)
	return j.fgGold(fg, j.fgESS)
}

// fgChain runs mcmc.RunChain on fg: its prior factors and Gaussian
// observations as the linear-Gaussian factors (conjugate: in the banded
// Gaussian), every other site as a likelihood of its projection.
func (j *job) fgChain(fg *compile.FactorGraph) error {
	p := mcmc.ChainProblem{N: fg.NumVars}
	for i := range fg.NumGaussians() {
		f := fg.Gaussian(i) // lists of its own: the problem keeps them
		p.Gaussians = append(p.Gaussians, mcmc.LinearFactor{Vars: f.Aff.Vars, Coefs: f.Aff.Coefs, Const: f.Aff.Const, Var: f.Var})
	}
	for i := range fg.NumSites() {
		s := fg.Site(i)
		a := s.Aff
		if n, ok := s.Shared.Lik.(factor.Normal); ok {
			p.Gaussians = append(p.Gaussians, mcmc.LinearFactor{Vars: a.Vars, Coefs: a.Coefs, Const: a.Const, Y: s.Y, Var: n.Var})
			continue
		}
		p.Sites = append(p.Sites, mcmc.ChainSite{Vars: a.Vars, Coefs: a.Coefs, Const: a.Const, LogLik: siteValue(s.BlockSite())})
	}
	b := &graph.Block{Latent: -1, Name: jointName(j.m, fg), N: fg.NumVars}
	s := mcmc.ChainSettings{Samples: j.spec.Samples, Burnin: burnin(j.spec.MCMCSpec), Chains: j.spec.Chains, Seed: j.st.Seed,
		KeepDraws: len(j.predictsOf(b)) > 0, Progress: j.drawProgress()}
	res, err := mcmc.RunChain(j.ctx, p, s)
	if res == nil || errors.Is(err, mcmc.ErrNoStart) {
		return err
	}
	j.res.Options = withOption(withOption(j.res.Options, "sampler", samplerParticleGibbs), "particles", strconv.Itoa(mcmc.DefaultParticles))
	o, oerr := j.mcmcOut(b, res)
	if oerr != nil {
		return oerr
	}
	j.mergeFG(o)
	return err
}
