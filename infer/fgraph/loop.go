package fgraph

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
)

// passer runs message passing on a graph with a factorised family.
type passer struct {
	ctx context.Context // gate sweeps stop early when it is canceled
	g   *Graph
	ad  *adjacency
	st  *state
	s   Settings
	u   float64
	buf []families.Gaussian
	// proj is siteMessages' scratch (2 projections per edge of a factor).
	proj []families.Projection
	gs   *gateScratch // nil without gates
	// saved is the state before a parallel sweep, restored when the sweep
	// is rejected.
	saved state
	// zprev are the discrete marginals of the previous sweep (flat).
	zprev []float64
	stats infer.Stats
	// skippedSweep counts the updates skipped in the current sweep.
	skippedSweep int
}

// runMessages is message passing with one belief per variable. On a forest
// a sweep is one forward–backward pass (exact after one pass when every
// factor is linear-Gaussian); on a loopy graph a sweep updates every factor,
// sequentially (beliefs change after each factor) or in parallel (every
// factor from the same beliefs).
func runMessages(ctx context.Context, g *Graph, ad *adjacency, s Settings) (*Result, error) {
	u, rx, err := messagePower(g, s)
	if err != nil {
		return nil, err
	}
	p := &passer{ctx: ctx, g: g, ad: ad, st: newState(g), s: s, u: u, buf: make([]families.Gaussian, maxDegree(g)), proj: make([]families.Projection, 2*maxDegree(g))}
	if len(g.gates) > 0 {
		p.gs, p.zprev = newGateScratch(g), make([]float64, len(p.st.gates.zbel))
		p.gs.rx = rx
		for i := range p.zprev {
			p.zprev[i] = math.NaN()
		}
	}
	var tr *tree
	if isForest(g, ad) && p.gs == nil {
		tr = newTree(g, ad)
	}
	exact := tr != nil && !hasSites(g)
	res := &Result{Exact: exact}
	if tr == nil && s.Schedule == infer.Residual {
		return runResidual(ctx, p, res)
	}
	prev := make([]moments, g.n) // of the previous sweep
	for i := range prev {
		prev[i] = moments{math.NaN(), math.NaN()}
	}
	l := infer.Loop{Tol: s.Tol, Damping: s.Damping, MaxIter: s.MaxIter, FixedDamping: s.FixedDamping, Progress: s.Progress}
	if exact {
		l.Converger = onePass{}
	}
	o := infer.Iterate(ctx, l, func(ctx context.Context, _ int, damping float64) (infer.Sweep, error) {
		p.s.Damping = damping
		return p.sweep(ctx, tr, prev)
	})
	return p.finishOutcome(res, o)
}

// sweep is one sweep of runMessages: the forward–backward pass of a forest
// (tr), or a parallel or sequential sweep over every factor. Its change is
// the residual against the moments prev of the previous sweep.
func (p *passer) sweep(ctx context.Context, tr *tree, prev []moments) (infer.Sweep, error) {
	p.skippedSweep = 0
	u, sk := p.stats.Updates, p.stats.Skipped
	var err error
	switch {
	case tr != nil:
		err = p.treePass(ctx, tr)
	case p.s.Schedule == infer.Parallel:
		if err = p.parallelSweep(); err != nil {
			p.stats.Updates, p.stats.Skipped, p.skippedSweep = u, sk, 0 // the sweep was undone
			return infer.Sweep{}, err
		}
	default:
		p.sequentialSweep()
	}
	if err == nil {
		err = ctx.Err() // a gate sweep may have stopped early
	}
	sw := infer.Sweep{Updates: p.stats.Updates - u, Skipped: p.skippedSweep}
	if err != nil {
		return sw, err
	}
	p.stats.Iterations++
	r, ok := p.residual(prev)
	if !ok {
		return sw, errors.New("a belief became improper or not finite")
	}
	sw.Change = r
	return sw, nil
}

// onePass is the Converger of a linear-Gaussian forest, solved exactly by
// one forward–backward pass.
type onePass struct{}

func (onePass) Init()                  {}
func (onePass) Converged(float64) bool { return true }

// finishOutcome ends a run as the driver decided; a canceled run returns
// the context's error with its partial result.
func (p *passer) finishOutcome(res *Result, o infer.Outcome) (*Result, error) {
	res.Trace = append(res.Trace, o.Trace...)
	p.stats.Adapted = append(p.stats.Adapted, o.Adapted...)
	res = p.finish(res, o.Status, o.Message)
	if o.Status == infer.Canceled {
		return res, p.ctx.Err()
	}
	return res, nil
}

func maxDegree(g *Graph) int {
	m := 0
	for k := 0; k < g.NumFactors(); k++ {
		fk := g.fac(k)
		lo, hi := fk.lo, fk.hi
		m = max(m, hi-lo)
	}
	return m
}

// treePass is one upward and one downward pass of the forest schedule
// (schedule.go): leaf sites are updated in both passes, a leaf
// linear-Gaussian factor only in the upward one (its message depends on
// nothing).
func (p *passer) treePass(ctx context.Context, t *tree) error {
	for i := len(t.order) - 1; i >= 0; i-- {
		if i&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		k := int(t.order[i])
		fk := p.g.fac(k)
		p.update(&fk, k, int(t.parent[k]), true)
	}
	for i, k := range t.order {
		if i&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		fk := p.g.fac(int(k))
		switch {
		case !t.leaf(&fk):
			p.update(&fk, int(k), int(t.parent[k]), false)
		case !fk.gaussian():
			p.update(&fk, int(k), int(t.parent[k]), true) // a leaf site, again
		}
	}
	return nil
}

func (p *passer) sequentialSweep() {
	for k := 0; k < p.g.NumFactors(); k++ {
		fk := p.g.fac(k)
		p.update(&fk, k, -1, false)
	}
	if p.gs != nil {
		p.gateSweep()
	}
}

// parallelSweep computes every factor's messages from the same beliefs,
// then applies them all. A sweep that leaves a belief improper (τ < 0, or
// τ = 0 with ν ≠ 0, or not finite) is undone and reported as
// *infer.Rejected, so that infer.Iterate repeats it at half the step: the
// negative message precisions of sites that are not log-concave (Student-t)
// add up at once when every site moves from the same beliefs, where a
// sequential sweep or a smaller step keeps each belief proper. Where the
// step cannot be halved (adapt_damping = false, or the step is at
// infer.MinDamping) the sweep stands, as before the retry existed: the
// updates whose cavities it left improper are skipped and counted, and
// message passing often recovers (Iterate would end such a run diverged).
func (p *passer) parallelSweep() error {
	next := make([]families.Gaussian, len(p.st.msg))
	copy(next, p.st.msg)
	var gout [][]families.Gaussian
	var zout [][]float64
	var gok []bool
	if p.gs != nil {
		gout, zout, gok = p.gateProposals()
	}
	for k := 0; k < p.g.NumFactors(); k++ {
		fk := p.g.fac(k)
		lo, hi := fk.lo, fk.hi
		if m, ok := p.messages(&fk, k, -1, false); ok {
			for e := lo; e < hi; e++ {
				next[e] = p.damped(&fk, p.st.msg[e], m[e-lo])
			}
		}
	}
	saved := p.st.save(&p.saved)
	for k := 0; k < p.g.NumFactors(); k++ {
		fk := p.g.fac(k)
		for e := fk.lo; e < fk.hi; e++ {
			p.st.set(&fk, e, next[e])
		}
	}
	for j, ok := range gok {
		if ok {
			setGate(p.g, p.st, j, gout[j], zout[j], p.s.Damping)
		}
	}
	if v := p.st.improper(); v >= 0 && !p.s.FixedDamping && p.s.Damping > infer.MinDamping {
		p.st.restore(saved)
		return &infer.Rejected{Err: fmt.Errorf("the belief of variable %d became improper", v)}
	}
	return nil
}

// save copies the messages and beliefs into buf (reused across sweeps)
// and returns it, for restore.
func (s *state) save(buf *state) *state {
	buf.msg = append(buf.msg[:0], s.msg...)
	buf.belief = append(buf.belief[:0], s.belief...)
	buf.gates.gmsg = append(buf.gates.gmsg[:0], s.gates.gmsg...)
	buf.gates.zmsg = append(buf.gates.zmsg[:0], s.gates.zmsg...)
	buf.gates.zbel = append(buf.gates.zbel[:0], s.gates.zbel...)
	return buf
}

// restore puts back the messages and beliefs save copied.
func (s *state) restore(saved *state) {
	copy(s.msg, saved.msg)
	copy(s.belief, saved.belief)
	copy(s.gates.gmsg, saved.gates.gmsg)
	copy(s.gates.zmsg, saved.gates.zmsg)
	copy(s.gates.zbel, saved.gates.zbel)
}

// improper returns a variable whose belief is improper (τ < 0, τ = 0 with
// ν ≠ 0, or not finite), or −1. A flat belief (no message yet) is not.
func (s *state) improper() int {
	for v, b := range s.belief {
		if !finite(b.Prec, b.Shift) || b.Prec < 0 || (b.Prec == 0 && b.Shift != 0) {
			return v
		}
	}
	return -1
}

// update sends factor k's (fk's) messages: to edge only (only = true), or
// to every edge except skip (skip = −1: every edge).
func (p *passer) update(fk *fac, k, edge int, only bool) {
	m, ok := p.messages(fk, k, edge, only)
	if !ok {
		return
	}
	lo, hi := fk.lo, fk.hi
	for e := lo; e < hi; e++ {
		if wanted(e, edge, only) {
			p.st.set(fk, e, p.damped(fk, p.st.msg[e], m[e-lo]))
		}
	}
}

// damped is the message factor k sends on an edge whose last message was
// old: the damped step from old to new, except that a linear-Gaussian
// factor's first message (old flat: none sent yet) enters undamped. Such a
// message is exact, not an approximation to be approached; damping it from
// the flat message would make a prior enter as a fraction of itself (at
// damping δ a normal(0, 1) prior's first message has variance 1/δ) and
// leave every belief far wider than the model says until ~1/δ sweeps have
// passed.
func (p *passer) damped(fk *fac, old, new families.Gaussian) families.Gaussian {
	if old == (families.Gaussian{}) && fk.gaussian() {
		return new
	}
	return old.Damp(new, p.s.Damping)
}

// wanted reports whether edge e is a target: e == edge when only, else
// every edge but edge.
func wanted(e, edge int, only bool) bool { return (e == edge) == only }

// messages computes factor k's (fk's) new messages to its target edges
// (see wanted) from the current beliefs into p.buf, counting the update or
// the skip. A site computes all its messages at once.
func (p *passer) messages(fk *fac, k, edge int, only bool) ([]families.Gaussian, bool) {
	lo, hi := fk.lo, fk.hi
	out := p.buf[:hi-lo]
	ok := true
	if fk.gaussian() && hi-lo > wideFactor && !only {
		ok = gaussianMessages(p.st, fk, out)
	} else if fk.gaussian() {
		for e := lo; e < hi && ok; e++ {
			if wanted(e, edge, only) {
				out[e-lo], ok = gaussianMessage(p.st, fk, e)
			}
		}
	} else if p.uninformed(k) {
		return nil, false // nothing to project yet: neither an update nor a skip
	} else if p.gs != nil && p.gs.rx.relaxes(p.g, k) {
		ok = p.gs.relaxedSite(p.g, p.st, k, out)
	} else {
		ok = siteMessages(p.g, p.st, fk, p.u, out, p.proj)
	}
	if !ok {
		p.stats.Skipped++
		p.skippedSweep++
		return nil, false
	}
	p.stats.Updates++
	return out, true
}

// uninformed reports whether no message has reached site k's cavity on
// some variable yet (natural parameters exactly zero): the upward pass of
// a tree reaches leaf sites before anything else has reached their
// variables, and a sequential sweep may reach a site before its variable's
// prior. The site then waits for the next pass; its update is not a skip.
func (p *passer) uninformed(k int) bool {
	fk := p.g.fac(k)
	lo, hi := fk.lo, fk.hi
	for e := lo; e < hi; e++ {
		if n := p.st.cavity(&fk, e, p.u); n.Prec == 0 && n.Shift == 0 {
			return true
		}
	}
	return false
}

// moments are a belief's mean and standard deviation, as the residual
// compares them from one sweep to the next.
type moments struct{ mean, sd float64 }

// residual returns the largest change of a belief's mean or standard
// deviation since the previous sweep, in units of the new standard
// deviation (the driver divides it by the damping), and records the new moments in prev. A belief that is not yet proper
// (τ ≤ 0: no message has reached it, or negative site precisions
// dominate) makes the residual infinite. It reports false when a belief is
// not finite.
func (p *passer) residual(prev []moments) (float64, bool) {
	r := 0.0
	for v, b := range p.st.belief {
		if !finite(b.Prec, b.Shift) {
			return 0, false
		}
		if !(b.Prec > 0) {
			r, prev[v] = math.Inf(1), moments{math.NaN(), math.NaN()}
			continue
		}
		m, sd := b.Shift/b.Prec, 1/math.Sqrt(b.Prec)
		d := math.Max(math.Abs(m-prev[v].mean), math.Abs(sd-prev[v].sd)) / sd
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		r = math.Max(r, d)
		prev[v] = moments{m, sd}
	}
	if p.gs != nil {
		r = math.Max(r, discreteResidual(p.st, p.zprev))
	}
	return r, true
}

// finish fills the result's marginals and log Z from the state.
func (p *passer) finish(res *Result, st infer.Status, msg string) *Result {
	res.Status, res.Message, res.Stats = st, msg, p.stats
	if !st.HasNumbers() {
		return res
	}
	for v, b := range p.st.belief {
		if !(b.Prec > 0) {
			// A canceled run keeps its status, without numbers.
			if st != infer.Canceled {
				res.Status, res.Message = infer.Diverged, fmt.Sprintf("the belief of variable %d is improper (precision %g)", v, b.Prec)
			}
			return res
		}
	}
	res.Mean, res.Var = make([]float64, p.g.n), make([]float64, p.g.n)
	for v, b := range p.st.belief {
		res.Mean[v], res.Var[v] = b.Shift/b.Prec, 1/b.Prec
	}
	p.projections(res)
	if p.gs != nil {
		res.Prob = discreteMarginals(p.st)
	}
	if p.gs != nil && p.gs.rx != nil {
		res.B = append(append([]float64(nil), p.gs.rx.sb...), p.gs.rx.b...)
		return res // relaxed KL has no log Z (as under family = full)
	}
	if res.Status == infer.Converged {
		res.LogZ, res.HasLogZ = bethe(p.g, p.ad, p.st, p.u)
		if p.gs != nil && res.HasLogZ {
			lz, ok := gatesLogZ(p.g, p.st, p.gs, p.u)
			res.LogZ, res.HasLogZ = res.LogZ+lz, ok
		}
		if p.s.VarGrad && res.HasLogZ && p.u == 1 && p.gs == nil && isForest(p.g, p.ad) {
			res.VarGrad, res.AffGrad = varGrads(p.g, p.st), affGrads(p.g, p.st)
			res.CavMean, res.CavVar = siteCavities(p.g, p.st)
		}
	}
	return res
}

// projections fills the sites' projection marginals from the beliefs.
func (p *passer) projections(res *Result) {
	g := p.g
	for k := 0; k < g.NumFactors(); k++ {
		fk := g.fac(k)
		if fk.gaussian() {
			continue
		}
		lo, hi := fk.lo, fk.hi
		m, v := fk.c(), 0.0
		for e := lo; e < hi; e++ {
			a := fk.a(e)
			m += a * res.Mean[fk.v(e)]
			v += a * a * res.Var[fk.v(e)]
		}
		res.FMean, res.FVar = append(res.FMean, m), append(res.FVar, v)
	}
}
