package fgraph

import (
	"container/heap"
	"context"
	"math"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
)

// residualQueue is the residual schedule on a loopy graph (residual BP,
// Elidan, McGraw & Koller 2006; libDAI's SEQMAX): every factor keeps its
// proposed (undamped) messages and their residual — the largest move of a
// target belief's mean or standard deviation, in units of the new standard
// deviation, that applying them would cause. The factor with the largest
// residual is applied next (damped), and the factors that share a variable
// with it are re-proposed. The run converges when the largest residual falls
// below tol and no factor's proposal fails.
type residualQueue struct {
	p      *passer
	prop   []families.Gaussian // proposed message per edge
	res    []float64           // residual per factor
	failed []bool              // per factor: its last proposal was skipped
	nfail  int
	heap   []int32 // factors, max-heap on res
	pos    []int32 // position of each factor in heap
}

func newResidualQueue(p *passer) *residualQueue {
	f := p.g.NumFactors()
	q := &residualQueue{p: p, prop: make([]families.Gaussian, len(p.st.msg)), res: make([]float64, f),
		failed: make([]bool, f), heap: make([]int32, f), pos: make([]int32, f)}
	for k := range f {
		q.heap[k], q.pos[k] = int32(k), int32(k)
		q.propose(k)
	}
	heap.Init(q)
	return q
}

// propose recomputes factor k's proposal and residual (without reordering).
func (q *residualQueue) propose(k int) {
	p := q.p
	stats, sk := p.stats, p.skippedSweep
	fk := p.g.fac(k)
	m, ok := p.messages(&fk, k, -1, false)
	p.stats, p.skippedSweep = stats, sk // a proposal is not an update
	if ok == q.failed[k] {
		if ok {
			q.nfail--
		} else {
			q.nfail++
		}
	}
	q.failed[k] = !ok
	q.res[k] = 0
	if !ok {
		return
	}
	lo, hi := fk.lo, fk.hi
	copy(q.prop[lo:hi], m)
	for e := lo; e < hi; e++ {
		b := p.st.belief[fk.v(e)]
		old := p.st.msg[e]
		if m[e-lo] == old {
			continue
		}
		nb := families.Gaussian{Prec: b.Prec - old.Prec + m[e-lo].Prec, Shift: b.Shift - old.Shift + m[e-lo].Shift}
		q.res[k] = math.Max(q.res[k], beliefMove(b, nb))
	}
}

// beliefMove is max(|Δmean|, |Δsd|) / sd_new for a changed message: +Inf
// when it makes a belief proper or improper, 1 (pending) when the belief
// stays improper.
func beliefMove(b, nb families.Gaussian) float64 {
	switch {
	case !(b.Prec > 0) && !(nb.Prec > 0):
		return 1
	case !(b.Prec > 0) || !(nb.Prec > 0):
		return math.Inf(1)
	}
	sd, nsd := 1/math.Sqrt(b.Prec), 1/math.Sqrt(nb.Prec)
	d := math.Max(math.Abs(nb.Shift/nb.Prec-b.Shift/b.Prec), math.Abs(nsd-sd)) / nsd
	if math.IsNaN(d) {
		return math.Inf(1)
	}
	return d
}

// step applies the factor with the largest residual and re-proposes its
// neighbours. It returns the largest residual before the step.
func (q *residualQueue) step() float64 {
	p := q.p
	k := int(q.heap[0])
	r := q.res[k]
	fk := p.g.fac(k)
	lo, hi := fk.lo, fk.hi
	if !q.failed[k] {
		for e := lo; e < hi; e++ {
			p.st.set(&fk, e, p.damped(&fk, p.st.msg[e], q.prop[e]))
		}
		p.stats.Updates++
	}
	for e := lo; e < hi; e++ {
		v := fk.v(e)
		for _, f := range p.ad.vedge[p.ad.vstart[v]:p.ad.vstart[v+1]] {
			j := int(p.ad.efactor[f])
			q.propose(j)
			heap.Fix(q, int(q.pos[j]))
		}
	}
	return r
}

// sweep performs as many steps as there are factors and returns the largest
// residual left.
func (q *residualQueue) sweep(ctx context.Context) (float64, error) {
	for i := range q.p.g.NumFactors() {
		if i&0xfff == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		q.step()
	}
	return q.res[q.heap[0]], nil
}

// heap.Interface on factors by residual, largest first.
func (q *residualQueue) Len() int           { return len(q.heap) }
func (q *residualQueue) Less(i, j int) bool { return q.res[q.heap[i]] > q.res[q.heap[j]] }
func (q *residualQueue) Swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.pos[q.heap[i]], q.pos[q.heap[j]] = int32(i), int32(j)
}
func (q *residualQueue) Push(any) { panic("fgraph: residual queue is fixed") }
func (q *residualQueue) Pop() any { panic("fgraph: residual queue is fixed") }

// runResidual is the residual schedule's loop (see residualQueue): a
// sweep is as many steps as there are factors, its skips the factors whose
// proposal fails. The largest residual left is already the undamped move
// (the proposals are undamped), so the sweep reports it times the step as
// its change, which infer.Iterate divides by the step again: R is that
// residual, whatever the damping.
func runResidual(ctx context.Context, p *passer, res *Result) (*Result, error) {
	q := newResidualQueue(p)
	o := infer.Iterate(ctx, infer.Loop{Tol: p.s.Tol, Damping: p.s.Damping, MaxIter: p.s.MaxIter, FixedDamping: p.s.FixedDamping, Progress: p.s.Progress},
		func(ctx context.Context, _ int, damping float64) (infer.Sweep, error) {
			p.s.Damping = damping
			u := p.stats.Updates
			r, err := q.sweep(ctx)
			if err != nil {
				return infer.Sweep{}, err
			}
			p.stats.Iterations++
			p.stats.Skipped += q.nfail
			return infer.Sweep{Change: r * damping, Updates: p.stats.Updates - u, Skipped: q.nfail, Why: "a factor's proposal fails"}, nil
		})
	return p.finishOutcome(res, o)
}
