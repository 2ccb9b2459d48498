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
	r.Variables = discreteVars(j.m.Graph, res.Marginals).vars()
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

// collectLarge runs the garbage collector on a graph of largeGraph factors
// or more at a point where much of the heap has just become garbage: after
// an engine has returned (its state — hundreds of MB on a 10⁶-variable
// graph, BP's engine form and messages — is garbage by then), or before
// infer/fgraph starts (compile's working lists are). The collector lets
// the heap grow to twice what was live at its last run, so it would
// otherwise hold that garbage while the next large allocation (the
// results and their output; the engine's messages and schedule) is made,
// and the peak would be their sum rather than the larger of the two.
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
	r.Variables = discreteVars(j.m.Graph, res.Marginals).vars()
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
	t := discreteVars(j.m.Graph, res.Probs)
	t.se, t.ess, t.rhat = res.ProbsSE, res.ESS, res.RHat
	r.Variables = t.vars()
	return nil
}

// discreteVars maps per-variable marginals back to the model's discrete
// latents as a table (discreteTable): a libDAI file has a latent per graph
// variable, and 10⁶ infer.Variable values would outweigh the marginals.
func discreteVars(g *graph.Graph, marg [][]float64) *discreteTable {
	t := &discreteTable{g: g, marg: marg}
	all := true
	for li := range g.Latents {
		if !g.Latents[li].Domain.Discrete() {
			all = false
			break
		}
	}
	for li := range g.Latents {
		l := &g.Latents[li]
		if !l.Domain.Discrete() {
			continue
		}
		if !all {
			t.lat = append(t.lat, int32(li))
		}
		if k := (stateKey{l.Domain, l.Card}); t.labels(k) == nil {
			t.states = append(t.states, stateLabels{k, bp.StateLabels(l.Domain, l.Card)})
		}
	}
	t.n = len(t.lat)
	if all {
		t.n = len(g.Latents)
	}
	return t
}

// vars is the table as a result's variables.
func (t *discreteTable) vars() infer.Variables {
	var vs infer.Variables
	vs.AppendTable(t)
	return vs
}

// discreteTable is a graph's discrete latents with their marginals, an
// infer.VarTable: names, shapes and state labels are read from the graph
// (one label list per domain and number of states), the marginals are the
// engine's (a latent's elements are graph variables First, First+1, …, so
// its marginals are a sub-slice of marg), and a latent's infer.Variable is
// made only when it is read.
type discreteTable struct {
	g      *graph.Graph
	lat    []int32 // the discrete latents' indices into g.Latents; nil when every latent is discrete
	n      int
	marg   [][]float64   // per graph variable, the probability of each state
	states []stateLabels // one per domain and number of states (a few)
	// Samplers' diagnostics per graph variable (nil otherwise): the
	// standard error of each state's probability, and its effective sample
	// size and R-hat, reported per element as the smallest and the largest.
	se, ess, rhat [][]float64
}

type stateKey struct {
	d    graph.Domain
	card int
}

type stateLabels struct {
	key    stateKey
	labels []string
}

// labels returns the state labels of key (nil before they are made).
func (t *discreteTable) labels(key stateKey) []string {
	for _, s := range t.states {
		if s.key == key {
			return s.labels
		}
	}
	return nil
}

func (t *discreteTable) Len() int { return t.n }

func (t *discreteTable) latent(i int) *graph.Latent {
	if t.lat != nil {
		return &t.g.Latents[t.lat[i]]
	}
	return &t.g.Latents[i]
}

func (t *discreteTable) Name(i int) string { return t.latent(i).Name }

func (t *discreteTable) Variable(i int) infer.Variable {
	l := t.latent(i)
	v := infer.Variable{Name: l.Name, Shape: l.Shape, Discrete: true, States: t.labels(stateKey{l.Domain, l.Card})}
	n := l.Size()
	if n == 0 {
		return v
	}
	v.Probs = t.marg[l.First : l.First+n : l.First+n]
	if t.se != nil {
		v.ProbsSE = t.se[l.First : l.First+n : l.First+n]
	}
	for k := 0; t.ess != nil && k < n; k++ {
		v.ESS = append(v.ESS, minOf(t.ess[l.First+k]))
		v.RHat = append(v.RHat, maxOf(t.rhat[l.First+k]))
	}
	return v
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
