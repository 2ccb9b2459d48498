package run

import (
	"fmt"
	"runtime"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/bp"
	"github.com/fg-infer/fg/infer/jtree"
	"github.com/fg-infer/fg/infer/mcmc"
)

// runBP runs loopy BP (or fractional / relaxed BP) on the model's graph.
func (j *job) runBP() error {
	res, err := bp.Run(j.ctx, j.m.Graph, bp.Settings{Settings: j.st})
	if res == nil {
		return err
	}
	collectLarge(j.m.Graph)
	r := j.res
	r.Status, r.Message, r.Stats, r.Trace = res.Status, res.Message, res.Stats, res.Trace
	// The Bethe (or fractional Bethe) free energy estimates log Z; relaxed
	// BP's beliefs are not a Bethe stationary point, so it reports none.
	if _, relaxed := j.st.Divergence.(infer.RelaxedKL); !relaxed && res.Status == infer.Converged {
		r.LogEvidence, r.HasEvidence = res.LogZ, true
	}
	r.Variables = discreteVars(j.m.Graph, res.Marginals, nil)
	for fi, b := range res.B {
		if b != 0 {
			f := j.m.Graph.Factor(fi)
			r.Relaxation = append(r.Relaxation, infer.Relaxation{Factor: j.m.Graph.FactorLabel(fi), Pos: j.m.Fset.Position(f.Pos).String(), B: b})
		}
	}
	return nil
}

// largeGraph is the number of factors from which a discrete engine's state
// is worth collecting before the results are made (collectLarge).
const largeGraph = 1 << 20

// collectLarge runs the garbage collector after an engine has returned on a
// graph of largeGraph factors or more: its state — hundreds of MB on a
// 10⁶-variable graph (BP's engine form and messages) — is garbage by then,
// and the collector, which lets the heap grow to twice what was live at its
// last run, would otherwise hold it while the results (an infer.Variable a
// latent: 10⁶ on a libDAI file) and their output are made, so that the
// peak is their sum rather than the larger of the two.
func collectLarge(g *graph.Graph) {
	if g.NumFactors() >= largeGraph {
		runtime.GC()
	}
}

// runJTree computes exact marginals and log Z by the junction tree.
func (j *job) runJTree() error {
	res, err := jtree.Run(j.ctx, j.m.Graph, jtree.Settings{})
	if err != nil {
		return err
	}
	r := j.res
	r.Status, r.Stats = res.Status, res.Stats
	r.LogEvidence, r.HasEvidence = res.LogZ, res.Status == infer.Done || res.Status == infer.Converged
	r.Variables = discreteVars(j.m.Graph, res.Marginals, nil)
	r.Options = withOption(r.Options, "induced_width", fmt.Sprint(res.Width))
	return nil
}

// burnin is the engine's Burnin for the mcmc option: `burnin = 0` discards
// nothing (mcmc.NoBurnin; the engine reads 0 as its default, Samples/2).
func burnin(s infer.MCMCSpec) int {
	if s.Burnin == 0 {
		return mcmc.NoBurnin
	}
	return s.Burnin
}

// runGibbs samples the discrete model.
func (j *job) runGibbs() error {
	s := mcmc.GibbsSettings{Samples: j.spec.Samples, Burnin: burnin(j.spec.MCMCSpec), Chains: j.spec.Chains,
		Seed: j.st.Seed, Schedule: j.st.Schedule, Progress: j.drawProgress()}
	res, err := mcmc.RunGibbs(j.ctx, j.m.Graph, s)
	if res == nil {
		return err
	}
	r := j.res
	r.Status, r.Message, r.Stats = res.Status, res.Message, res.Stats
	r.Variables = discreteVars(j.m.Graph, res.Probs, &gibbsExtras{res})
	return nil
}

type gibbsExtras struct{ r *mcmc.GibbsResult }

// discreteVars maps per-variable marginals back to the model's latents.
func discreteVars(g *graph.Graph, marg [][]float64, ex *gibbsExtras) []infer.Variable {
	n := 0
	for li := range g.Latents {
		if g.Latents[li].Domain.Discrete() {
			n++
		}
	}
	out := make([]infer.Variable, 0, n)
	var states []string // the last latent's state labels, shared by the next of its domain and card
	for li := range g.Latents {
		l := &g.Latents[li]
		if !l.Domain.Discrete() {
			continue
		}
		if len(out) == 0 || l.Domain != g.Latents[li-1].Domain || l.Card != g.Latents[li-1].Card || !g.Latents[li-1].Domain.Discrete() {
			states = stateLabels(l)
		}
		// The latent's variables are First, First+1, ...: its marginals are
		// a sub-slice of marg (no second list of 10⁶ slice headers).
		v := infer.Variable{Name: l.Name, Shape: l.Shape, Discrete: true, States: states}
		if n := l.Size(); n > 0 {
			v.Probs = marg[l.First : l.First+n : l.First+n]
		}
		for i := 0; ex != nil && i < l.Size(); i++ {
			id := l.First + i
			v.ProbsSE = append(v.ProbsSE, ex.r.ProbsSE[id])
			v.ESS = append(v.ESS, minOf(ex.r.ESS[id]))
			v.RHat = append(v.RHat, maxOf(ex.r.RHat[id]))
		}
		out = append(out, v)
	}
	return out
}

// stateLabels names the states of a discrete latent.
func stateLabels(l *graph.Latent) []string {
	switch l.Domain {
	case graph.Spin:
		return []string{"-1", "+1"}
	case graph.Bool:
		return []string{"false", "true"}
	}
	s := make([]string, l.Card)
	for k := range s {
		s[k] = fmt.Sprint(k)
	}
	return s
}

func minOf(x []float64) float64 {
	m := x[0]
	for _, v := range x[1:] {
		if v < m {
			m = v
		}
	}
	return m
}

func maxOf(x []float64) float64 {
	m := x[0]
	for _, v := range x[1:] {
		if v > m {
			m = v
		}
	}
	return m
}
