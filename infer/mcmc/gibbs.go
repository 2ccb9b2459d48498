package mcmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
)

// GibbsSettings configure RunGibbs.
type GibbsSettings struct {
	Samples int // kept sweeps per chain (default 1000, at least 4)
	Burnin  int // warm-up sweeps per chain (0: Samples/2; NoBurnin: none)
	Thin    int // keep every Thin-th sweep (default 1)
	Chains  int // default 4
	Seed    uint64
	// Schedule is infer.Sequential (systematic sweep over the variables in
	// id order, the default) or infer.Random (random scan: a sweep is N
	// updates of uniformly chosen variables).
	Schedule infer.Schedule
	// Dispersed starts every chain from a uniformly random state of positive
	// probability instead of a forward draw from partial conditionals.
	Dispersed bool
	// Init, when non-nil, gives each chain's starting state (state indices
	// per variable); len(Init) must equal Chains.
	Init [][]int
	// Indicators estimates marginals by averaging the indicators 1{x_v = s}
	// instead of the Rao–Blackwellised conditionals p(x_v = s | x_−v).
	Indicators bool
	// Workers bounds the goroutines (default GOMAXPROCS).
	Workers int
	// Progress is as in Settings (sweeps over all chains).
	Progress func(done, total int)
}

// GibbsResult holds per variable v and state s the marginal estimate
// Probs[v][s] with its Monte Carlo standard error, bulk effective sample
// size and rank-normalised split R-hat (BulkESS, RankRHat; each computed on
// the per-sweep estimates of that probability).
type GibbsResult struct {
	Status infer.Status // infer.Done, infer.Canceled or infer.Failed
	infer.Stats
	Probs, ProbsSE [][]float64
	ESS, RHat      [][]float64
	Chains         int
	Samples        int
	Message        string
}

// gibbsModel is the graph compiled for sampling: log tables, strides and,
// per variable, the factors touching it.
type gibbsModel struct {
	card   []int
	logT   [][]float64
	vars   [][]int // factor → variables
	stride [][]int // factor → stride of each of its variables
	occ    [][]occurrence
}

// occurrence is variable v's position in a factor.
type occurrence struct{ factor, stride int }

// compileGibbs validates g (every variable discrete, tables of the right
// size with finite non-negative entries, no repeated variable in a factor)
// and builds the sampling model.
func compileGibbs(g *graph.Graph) (*gibbsModel, error) {
	if g == nil || len(g.Vars) == 0 {
		return nil, fmt.Errorf("mcmc: empty graph")
	}
	m := &gibbsModel{card: make([]int, len(g.Vars)), occ: make([][]occurrence, len(g.Vars))}
	for v, x := range g.Vars {
		if !x.Domain.Discrete() || x.Card < 1 {
			return nil, fmt.Errorf("mcmc: Gibbs needs discrete variables; %s is %s with %d states", g.VarName(v), x.Domain, x.Card)
		}
		m.card[v] = x.Card
	}
	for fi, f := range g.Factors() {
		if err := m.addFactor(g, fi, &f); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *gibbsModel) addFactor(g *graph.Graph, fi int, f *graph.Factor) error {
	size, seen := 1, map[int]bool{}
	strides := make([]int, len(f.Vars))
	for j, v := range f.Vars {
		if v < 0 || v >= len(m.card) {
			return fmt.Errorf("mcmc: factor %d (%s) refers to variable %d of %d", fi, g.FactorLabel(fi), v, len(m.card))
		}
		if seen[v] {
			return fmt.Errorf("mcmc: factor %d (%s) lists %s twice", fi, g.FactorLabel(fi), g.VarName(v))
		}
		seen[v] = true
		strides[j] = size
		size *= m.card[v]
	}
	if len(f.Table) != size {
		return fmt.Errorf("mcmc: factor %d (%s) has %d table entries, want %d", fi, g.FactorLabel(fi), len(f.Table), size)
	}
	lt := make([]float64, size)
	for i, t := range f.Table {
		if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("mcmc: factor %d (%s) has table entry %v", fi, g.FactorLabel(fi), t)
		}
		lt[i] = math.Log(t)
	}
	k := len(m.logT)
	m.logT = append(m.logT, lt)
	m.vars = append(m.vars, f.Vars)
	m.stride = append(m.stride, strides)
	for j, v := range f.Vars {
		m.occ[v] = append(m.occ[v], occurrence{k, strides[j]})
	}
	return nil
}

// conditional sets p[s] = p(x_v = s | x_−v) (normalised) for state x. With
// partial, factors touching a variable marked unset are ignored. It returns
// false if every state has probability zero.
func (m *gibbsModel) conditional(x []int, v int, p []float64, unset []bool) bool {
	lp := p[:m.card[v]]
	for s := range lp {
		lp[s] = 0
	}
	for _, o := range m.occ[v] {
		if unset != nil && m.touchesUnset(o.factor, v, unset) {
			continue
		}
		base := 0
		for j, u := range m.vars[o.factor] {
			if u != v {
				base += x[u] * m.stride[o.factor][j]
			}
		}
		t := m.logT[o.factor]
		for s := range lp {
			lp[s] += t[base+s*o.stride]
		}
	}
	return normaliseLog(lp)
}

func (m *gibbsModel) touchesUnset(f, v int, unset []bool) bool {
	for _, u := range m.vars[f] {
		if u != v && unset[u] {
			return true
		}
	}
	return false
}

// normaliseLog turns log weights into probabilities in place (max-shifted);
// it returns false if all are −Inf.
func normaliseLog(lp []float64) bool {
	mx := math.Inf(-1)
	for _, v := range lp {
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return false
	}
	z := 0.0
	for s, v := range lp {
		lp[s] = math.Exp(v - mx)
		z += lp[s]
	}
	for s := range lp {
		lp[s] /= z
	}
	return true
}

// draw samples a state from probabilities p.
func draw(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for s, q := range p {
		u -= q
		if u < 0 {
			return s
		}
	}
	for s := len(p) - 1; s > 0; s-- { // rounding: last state of positive mass
		if p[s] > 0 {
			return s
		}
	}
	return 0
}

// RunGibbs samples the discrete factor graph g,
// p(x) ∝ Π_f T_f(x_f), and returns every variable's marginal with Monte Carlo
// diagnostics. The graph is read, never modified.
func RunGibbs(ctx context.Context, g *graph.Graph, s GibbsSettings) (*GibbsResult, error) {
	start := time.Now()
	r := lengths(s.Samples, s.Burnin, s.Thin, s.Chains)
	m, err := compileGibbs(g)
	if err != nil {
		return nil, err
	}
	if err := s.validate(m, r); err != nil {
		return nil, err
	}
	draws := make([][][][]float64, r.chains) // [chain][var][state][t]
	updates, sweeps := make([]int, r.chains), make([]int, r.chains)
	tk := newTicker(s.Progress, r)
	err = runChains(ctx, r.chains, s.Workers, func(ctx context.Context, c int) error {
		ch := &gibbsChain{m: m, s: &s, rng: chainRand(s.Seed, c), x: make([]int, len(m.card))}
		defer func() { updates[c], sweeps[c] = ch.updates, ch.sweeps }()
		if err := ch.start(c); err != nil {
			return err
		}
		draws[c] = ch.alloc(r.samples)
		return ch.run(ctx, r, draws[c], tk)
	})
	res := &GibbsResult{Status: infer.Done, Chains: r.chains, Samples: r.samples}
	for c := range updates {
		res.Updates += updates[c]
		res.Iterations += sweeps[c]
	}
	defer func() { res.Runtime = time.Since(start) }()
	if err != nil {
		res.Status, res.Message = infer.Failed, err.Error()
		if ctx.Err() != nil {
			res.Status = infer.Canceled
		}
		return res, err
	}
	res.summarise(draws, m.card)
	return res, nil
}

func (s *GibbsSettings) validate(m *gibbsModel, r runLength) error {
	q := 0
	for _, k := range m.card {
		q += k
		if k == 2 {
			q-- // binary: p(x_v = 0) is not stored (gibbsChain.alloc)
		}
	}
	if err := r.checkKept(q); err != nil {
		return err
	}
	if err := checkLengths(r); err != nil {
		return err
	}
	if err := infer.CheckSchedule("Gibbs sampling", s.Schedule, infer.GibbsSchedules); err != nil {
		return fmt.Errorf("mcmc: %w", err)
	}
	if s.Init == nil {
		return nil
	}
	if len(s.Init) != r.chains {
		return fmt.Errorf("mcmc: %d initial states for %d chains", len(s.Init), r.chains)
	}
	for c, x := range s.Init {
		if len(x) != len(m.card) {
			return fmt.Errorf("mcmc: initial state %d has %d variables, want %d", c, len(x), len(m.card))
		}
		for v, st := range x {
			if st < 0 || st >= m.card[v] {
				return fmt.Errorf("mcmc: initial state %d: variable %d has state %d of %d", c, v, st, m.card[v])
			}
		}
	}
	return nil
}

// summarise fills the per-(variable, state) summaries, the variables on
// GOMAXPROCS goroutines (forEach).
func (res *GibbsResult) summarise(draws [][][][]float64, card []int) {
	n := len(card)
	res.Probs, res.ProbsSE = make([][]float64, n), make([][]float64, n)
	res.ESS, res.RHat = make([][]float64, n), make([][]float64, n)
	forEach(n, func(v int) {
		per := make([][]float64, len(draws))
		for _, a := range []*[][]float64{&res.Probs, &res.ProbsSE, &res.ESS, &res.RHat} {
			(*a)[v] = make([]float64, card[v])
		}
		for st := 0; st < card[v]; st++ {
			if card[v] == 2 && st == 0 {
				continue // p(x_v = 0) = 1 − p(x_v = 1): same ESS, R-hat and SE
			}
			for c := range draws {
				per[c] = draws[c][v][st]
			}
			sm := Summarise(per)
			res.Probs[v][st], res.ProbsSE[v][st] = sm.Mean, sm.MeanSE
			res.ESS[v][st], res.RHat[v][st] = BulkESS(per), RankRHat(per)
		}
		if card[v] == 2 {
			res.Probs[v][0], res.ProbsSE[v][0] = 1-res.Probs[v][1], res.ProbsSE[v][1]
			res.ESS[v][0], res.RHat[v][0] = res.ESS[v][1], res.RHat[v][1]
		}
	})
}

// MinESS is the smallest effective sample size over the states of variable v
// (one number per variable, e.g. for infer.Variable.ESS).
func (res *GibbsResult) MinESS(v int) float64 {
	m := math.Inf(1)
	for _, e := range res.ESS[v] {
		m = math.Min(m, e)
	}
	return m
}

// MaxRHat is the largest split R-hat over the states of variable v.
func (res *GibbsResult) MaxRHat(v int) float64 {
	m := 0.0
	for _, r := range res.RHat[v] {
		m = math.Max(m, r)
	}
	return m
}
