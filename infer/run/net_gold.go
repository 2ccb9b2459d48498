package run

import (
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/bp"
	"github.com/fg-infer/fg/infer/exact"
	"github.com/fg-infer/fg/infer/mcmc"
)

// The gold standards on a model held as a graph.Net: exact
// (forward–backward, enumeration × closed form, quadrature; the engine netExact)
// and mcmc (Gibbs on conjugate and discrete conditionals, slice sampling;
// netMCMC).

// runNetExact maps exact.RunNet's result to the model's latents.
func (j *job) runNetExact() error {
	var progress func(done, total int)
	if j.report != nil {
		progress = func(done, total int) { j.report("configuration", done, total, "", math.NaN()) }
	}
	res, err := exact.RunNet(j.ctx, j.m.Net, exact.NetSettings{Progress: progress})
	if res == nil {
		return err
	}
	r := j.res
	r.Status, r.Message, r.Stats = res.Status, res.Message, res.Stats
	if err != nil {
		return err
	}
	r.LogEvidence, r.HasEvidence = res.LogZ, res.Status == infer.Done
	r.Options = withOption(r.Options, "algorithm", res.Algorithm)
	if res.ErrEstimate > 1e-6 {
		j.warnOnce("quadrature error estimate %.3g above 1e-6", res.ErrEstimate)
	}
	r.Variables = netVariables(j.m.Graph, j.m.Net, func(v int, out *netElem) {
		m := &res.Vars[v]
		out.mean, out.vr, out.probs, out.nat = m.Mean, m.Var, m.Probs, m.Nat
	})
	r.Predictions, err = netPredictions(j.m, func(v int) factor.EdgeMoments {
		m := &res.Vars[v]
		return factor.EdgeMoments{Mean: m.Mean[0], Var: m.Var[0], MeanInv: m.MeanInv}
	})
	return err
}

// runNetMCMC maps mcmc.RunNet's result to the model's latents.
func (j *job) runNetMCMC() error {
	s := mcmc.NetSettings{Samples: j.spec.Samples, Burnin: burnin(j.spec.MCMCSpec), Chains: j.spec.Chains,
		Seed: j.st.Seed, Progress: j.drawProgress()}
	res, err := mcmc.RunNet(j.ctx, j.m.Net, s)
	if res == nil {
		return err
	}
	r := j.res
	r.Status, r.Message, r.Stats = res.Status, res.Message, res.Stats
	if err != nil {
		return err
	}
	r.Variables = netVariables(j.m.Graph, j.m.Net, func(v int, out *netElem) {
		m := &res.Vars[v]
		out.mean, out.vr, out.probs = m.Mean, m.Var, m.Probs
		out.meanSE, out.varSE, out.probsSE, out.ess, out.rhat = m.MeanSE, m.VarSE, m.ProbsSE, m.ESS, m.RHat
	})
	r.Predictions, err = netPredictions(j.m, func(v int) factor.EdgeMoments {
		m := &res.Vars[v]
		return factor.EdgeMoments{Mean: m.Mean[0], Var: m.Var[0], MeanInv: m.MeanInv}
	})
	return err
}

// netElem is one Net variable's summary as an engine gives it: per
// coordinate (continuous) or per state (discrete), and the natural
// parameters of the marginal when it is in the variable's family.
type netElem struct {
	mean, vr, probs        []float64
	meanSE, varSE, probsSE []float64
	ess, rhat              []float64
	nat                    []float64
}

// netVariables gathers the Net variables of each latent of g into one
// infer.Variable, flattened row-major: element Elem of a scalar family, row
// Elem (Dim components) of a Dirichlet latent, a discrete element's state
// probabilities; Family names a non-Gaussian family and Dist each
// element's marginal ("Beta(6, 5)") where the engine gives it in the
// family. A discrete element's ESS is the smallest over its states and
// its R-hat the largest.
func netVariables(g *graph.Graph, n *graph.Net, get func(v int, out *netElem)) infer.Variables {
	out := make([]infer.Variable, len(g.Latents))
	has := make([]bool, len(g.Latents))
	for li := range g.Latents {
		l := &g.Latents[li]
		out[li] = infer.Variable{Name: l.Name, Shape: l.Shape, Discrete: l.Domain.Discrete()}
		if out[li].Discrete {
			out[li].States = bp.StateLabels(l.Domain, l.Card)
			out[li].Probs = make([][]float64, l.Size())
		}
	}
	for v, nv := range n.Vars {
		var e netElem
		get(v, &e)
		has[nv.Latent] = true
		o := &out[nv.Latent]
		if nv.Family != graph.Discrete && nv.Family != graph.Gaussian {
			o.Family = nv.Family.String()
		}
		if e.nat != nil {
			o.Dist = grows(o.Dist, g.Latents[nv.Latent].Size())
			for k := range e.mean {
				o.Dist[nv.Elem*len(e.mean)+k] = families.For(nv.Family, nv.Dim).String(e.nat)
			}
		}
		if o.Discrete {
			o.Probs[nv.Elem] = e.probs
			if e.probsSE != nil {
				o.ProbsSE = grow(o.ProbsSE, len(o.Probs))
				o.ProbsSE[nv.Elem] = e.probsSE
				o.ESS, o.RHat = growf(o.ESS, len(o.Probs)), growf(o.RHat, len(o.Probs))
				o.ESS[nv.Elem], o.RHat[nv.Elem] = minOf(e.ess), maxOf(e.rhat)
			}
			continue
		}
		size := g.Latents[nv.Latent].Size()
		for k := range e.mean {
			i := nv.Elem*len(e.mean) + k
			o.Mean, o.Var = growf(o.Mean, size), growf(o.Var, size)
			o.Mean[i], o.Var[i] = e.mean[k], e.vr[k]
			if e.meanSE != nil {
				o.MeanSE, o.VarSE = growf(o.MeanSE, size), growf(o.VarSE, size)
				o.ESS, o.RHat = growf(o.ESS, size), growf(o.RHat, size)
				o.MeanSE[i], o.VarSE[i], o.ESS[i], o.RHat[i] = e.meanSE[k], e.varSE[k], e.ess[k], e.rhat[k]
			}
		}
	}
	kept := out[:0]
	for li := range out {
		if has[li] {
			kept = append(kept, out[li])
		}
	}
	return infer.NewVariables(kept...)
}

// grows returns x, or a new slice of length n when x is nil.
func grows(x []string, n int) []string {
	if x == nil {
		return make([]string, n)
	}
	return x
}

// growf returns x, or a new slice of length n when x is nil.
func growf(x []float64, n int) []float64 {
	if x == nil {
		return make([]float64, n)
	}
	return x
}

// grow returns x, or a new slice of n rows when x is nil.
func grow(x [][]float64, n int) [][]float64 {
	if x == nil {
		return make([][]float64, n)
	}
	return x
}
