package graph

import "container/heap"

// costHeap is the min-heap of (cost, id) over the remaining variables of an
// elimination, with lazily invalidated entries: cost[v] is v's current
// cost, and an entry whose cost differs from it, or whose variable is
// eliminated, is stale and skipped by pop.
type costHeap struct {
	e      *eliminator
	f      func(*eliminator, int) float64
	cost   []float64
	items  []heapItem
	marked []bool // scratch of update
}

type heapItem struct {
	c float64
	v int
}

func newCostHeap(e *eliminator, f func(*eliminator, int) float64) *costHeap {
	n := len(e.alive)
	q := &costHeap{e: e, f: f, cost: make([]float64, n), items: make([]heapItem, n), marked: make([]bool, n)}
	for v := range n {
		q.cost[v] = f(e, v)
		q.items[v] = heapItem{q.cost[v], v}
	}
	heap.Init(q)
	return q
}

func (q *costHeap) Len() int { return len(q.items) }

func (q *costHeap) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	return a.c < b.c || a.c == b.c && a.v < b.v
}

func (q *costHeap) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }

func (q *costHeap) Push(x any) { q.items = append(q.items, x.(heapItem)) }

func (q *costHeap) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
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
// neighbours ns and, with twoHop, of their neighbours, and pushes an entry
// for every cost that changed.
func (q *costHeap) update(ns []int, twoHop bool) {
	touched := append([]int(nil), ns...)
	for _, u := range ns {
		q.marked[u] = true
	}
	if twoHop {
		for _, u := range ns {
			for w := range q.e.nb[u] {
				if !q.marked[w] {
					q.marked[w] = true
					touched = append(touched, w)
				}
			}
		}
	}
	for _, u := range touched {
		q.marked[u] = false
		if c := q.f(q.e, u); c != q.cost[u] {
			q.cost[u] = c
			heap.Push(q, heapItem{c, u})
		}
	}
}
