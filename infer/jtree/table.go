package jtree

import "math"

// table is a log-domain potential over vars with the given cardinalities;
// entry index Σ_k x_k·stride_k with the first variable fastest (libDAI order).
type table struct {
	vars  []int
	cards []int
	log   []float64
}

func newTable(vars []int, card []int) *table {
	t := &table{vars: append([]int(nil), vars...), cards: make([]int, len(vars))}
	n := 1
	for k, v := range vars {
		t.cards[k] = card[v]
		n *= card[v]
	}
	t.log = make([]float64, n)
	return t
}

// indexMap returns, for every entry of t, the index of the entry of a table
// over sub (variables of t, any order, repetitions allowed) with cardinalities
// card that agrees with it.
func (t *table) indexMap(sub []int, card []int) []int {
	stride := make([]int, len(t.vars)) // stride in the sub-table of each variable of t
	s := 1
	for _, v := range sub {
		for k, w := range t.vars {
			if w == v {
				stride[k] += s
			}
		}
		s *= card[v]
	}
	m := make([]int, len(t.log))
	state := make([]int, len(t.vars))
	j := 0
	for i := range m {
		m[i] = j
		for k := range state { // odometer increment, first variable fastest
			state[k]++
			j += stride[k]
			if state[k] < t.cards[k] {
				break
			}
			j -= stride[k] * state[k]
			state[k] = 0
		}
	}
	return m
}

// addLog adds the log potential f (over fvars in libDAI order) into t.
func (t *table) addLog(fvars []int, f []float64, card []int) {
	m := t.indexMap(fvars, card)
	for i, j := range m {
		t.log[i] += f[j]
	}
}

// addTable adds a potential over a subset of t's variables.
func (t *table) addTable(u *table, card []int) { t.addLog(u.vars, u.log, card) }

// subTable subtracts u with the convention −Inf − (−Inf) = −Inf (0/0 = 0).
func (t *table) subTable(u *table, card []int) {
	m := t.indexMap(u.vars, card)
	for i, j := range m {
		if !math.IsInf(t.log[i], -1) {
			t.log[i] -= u.log[j]
		}
	}
}

// marginal sums t (in the probability domain) onto keep:
//
//	out(x_keep) = log Σ_{x_rest} exp t(x_keep, x_rest),
//
// with a per-output max shift so that no exponential overflows.
func (t *table) marginal(keep []int, card []int) *table {
	out := newTable(keep, card)
	m := t.indexMap(keep, card)
	mx := out.log
	for j := range mx {
		mx[j] = math.Inf(-1)
	}
	for i, j := range m {
		mx[j] = math.Max(mx[j], t.log[i])
	}
	sum := make([]float64, len(mx))
	for i, j := range m {
		if !math.IsInf(mx[j], 0) {
			sum[j] += math.Exp(t.log[i] - mx[j])
		}
	}
	for j := range mx {
		if !math.IsInf(mx[j], 0) {
			mx[j] += math.Log(sum[j])
		}
	}
	return out
}
