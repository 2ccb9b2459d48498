package bp

import (
	"math"

	"github.com/fg-infer/fg/internal/mathx"
)

// residualHeap implements libDAI's SEQMAX ("residual BP", Elidan et al.):
// every edge keeps its pending new message and the residual
// r_e = ‖m_new − m‖_∞ (probabilities); a pass performs as many updates as
// there are edges, each time applying the edge of largest residual and then
// recomputing the pending messages a → j that read it: for the applied
// edge (a, i), every edge (b, j) with b ∋ i, b ≠ a, j ∈ b, j ≠ i. In
// relaxed BP the other edges of a are recomputed too, since a's relaxation
// weight depends on all of a's messages.
type residualHeap struct {
	en   *engine
	heap []int32   // edge ids, max-heap by res
	pos  []int32   // position of each edge in heap
	res  []float64 // residual per edge
}

func newResidualHeap(en *engine) *residualHeap {
	n := en.p.NumEdges()
	h := &residualHeap{en: en, heap: make([]int32, n), pos: make([]int32, n), res: make([]float64, n)}
	for e := range h.heap {
		h.heap[e], h.pos[e] = int32(e), int32(e)
	}
	for e := 0; e < n; e++ {
		h.recompute(int32(e))
	}
	return h
}

// recompute refreshes edge e's pending message and residual.
func (h *residualHeap) recompute(e int32) {
	p := h.en.p
	n := p.msgOf(h.en.nmsg, e)
	h.en.calc(e, n)
	h.set(e, linf(n, p.msgOf(h.en.msg, e)))
}

// linf is max_k |p_k − q_k| between the normalised exponentials of a and b.
func linf(a, b []float64) float64 {
	za, zb := mathx.LogSumExp(a), mathx.LogSumExp(b)
	d := 0.0
	for k := range a {
		x := math.Abs(math.Exp(a[k]-za) - math.Exp(b[k]-zb))
		if x > d || math.IsNaN(x) {
			d = x
		}
	}
	return d
}

func (h *residualHeap) pass() {
	en := h.en
	p := en.p
	for t := 0; t < len(h.heap); t++ {
		e := h.heap[0]
		en.apply(e)
		h.set(e, linf(p.msgOf(en.nmsg, e), p.msgOf(en.msg, e)))
		a, i := p.factorOf(e), p.evar[e]
		for _, f := range p.vedge[p.vstart[i]:p.vstart[i+1]] {
			b := p.factorOf(f)
			if b == a {
				continue
			}
			for g := p.fstart.at(b); g < p.fstart.at(b+1); g++ {
				if p.evar[g] != i {
					h.recompute(g)
				}
			}
		}
		if en.relax {
			for g := p.fstart.at(a); g < p.fstart.at(a+1); g++ {
				if g != e {
					h.recompute(g)
				}
			}
		}
	}
}

// set changes edge e's residual and restores the heap order.
func (h *residualHeap) set(e int32, r float64) {
	if math.IsNaN(r) {
		r = math.Inf(1)
	}
	old := h.res[e]
	h.res[e] = r
	if r > old {
		h.up(int(h.pos[e]))
	} else {
		h.down(int(h.pos[e]))
	}
}

func (h *residualHeap) less(i, j int) bool { return h.res[h.heap[i]] > h.res[h.heap[j]] }

func (h *residualHeap) swap(i, j int) {
	h.heap[i], h.heap[j] = h.heap[j], h.heap[i]
	h.pos[h.heap[i]], h.pos[h.heap[j]] = int32(i), int32(j)
}

func (h *residualHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

func (h *residualHeap) down(i int) {
	n := len(h.heap)
	for {
		l, best := 2*i+1, i
		if l < n && h.less(l, best) {
			best = l
		}
		if l+1 < n && h.less(l+1, best) {
			best = l + 1
		}
		if best == i {
			return
		}
		h.swap(i, best)
		i = best
	}
}
