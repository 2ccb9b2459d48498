package graph

import "container/heap"

// costHeap is the min-heap of (cost, id) over the remaining variables of an
// elimination, with lazily invalidated entries: cost[v] is v's current
// cost, and an entry whose cost differs from it, or whose variable is
// eliminated, is stale and skipped by pop.
type costHeap struct {
	e    *eliminator
	f    func(*eliminator, int) float64
	cost []float64
	itemHeap
	marked []bool // scratch of update: the eliminated variable's neighbours
	dec    []int  // scratch of update: fill decrements
}

type heapItem struct {
	c float64
	v int
}

func newCostHeap(e *eliminator, f func(*eliminator, int) float64) *costHeap {
	n := len(e.alive)
	q := &costHeap{e: e, f: f, cost: make([]float64, n), itemHeap: make(itemHeap, n),
		marked: make([]bool, n), dec: make([]int, n)}
	for v := range n {
		q.cost[v] = f(e, v)
		q.itemHeap[v] = heapItem{q.cost[v], v}
	}
	heap.Init(q)
	return q
}

// itemHeap is a min-heap of (c, v) items, ties to the smaller v, for
// container/heap: the elimination's costHeap and the treewidth bound's
// contractor embed it.
type itemHeap []heapItem

func (h itemHeap) Len() int { return len(h) }

func (h itemHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	return a.c < b.c || a.c == b.c && a.v < b.v
}

func (h itemHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *itemHeap) Push(x any) { *h = append(*h, x.(heapItem)) }

func (h *itemHeap) Pop() any {
	it := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return it
}

// pop removes and returns the remaining variable of least (cost, id).
func (q *costHeap) pop() int {
	for {
		it := heap.Pop(q).(heapItem)
		if q.e.alive[it.v] && it.c == q.cost[it.v] {
			return it.v
		}
	}
}

// update recomputes the cost of the eliminated variable's former
// neighbours ns and, with fillEdges (min-fill), lowers by one the fill of
// every other common neighbour of the ends of each added fill edge; every
// cost that changed gets a new heap entry.
func (q *costHeap) update(ns []int, added [][2]int, fillEdges bool) {
	for _, u := range ns {
		q.marked[u] = true
	}
	var lowered []int
	if fillEdges {
		for _, ab := range added {
			x, y := q.e.nb[ab[0]], q.e.nb[ab[1]]
			if len(y) < len(x) {
				x, y = y, x
			}
			for w := range x {
				if _, ok := y[w]; ok && !q.marked[w] {
					if q.dec[w] == 0 {
						lowered = append(lowered, w)
					}
					q.dec[w]++
				}
			}
		}
	}
	for _, w := range lowered {
		q.set(w, q.cost[w]-float64(q.dec[w]))
		q.dec[w] = 0
	}
	for _, u := range ns {
		q.marked[u] = false
		q.set(u, q.f(q.e, u))
	}
}

// set gives u the cost c, with a heap entry when it changed.
func (q *costHeap) set(u int, c float64) {
	if c != q.cost[u] {
		q.cost[u] = c
		heap.Push(q, heapItem{c, u})
	}
}
