package bp

import "math"

// Relaxed BP (qi-guo-relaxed-ep-rbp.md §4.2). For factor a with cavities
// n_j = q^{∖a}(x_j) and messages m_j = m_{a→j}, the relaxation factor is
// r_a(x_a) = Π_j m_j(x_j)^b with b ∈ [0, 1], and (eqs 23–25)
//
//	q̂^r(x_a) = (1/Z_a) f_a(x_a) Π_j m_j(x_j)^b n_j(x_j),   q^r(x_j) = Σ_{x_a∖x_j} q̂^r(x_a).
//
// b is chosen by a line search on the penalised divergence
//
//	Q(b) = KL( q̂^r ‖ Π_j q^r(x_j) ) + C·|b|
//	     = Σ_j H(q^r_j) − H(q̂^r) + C·b,
//
// the multi-information of the relaxed tilted distribution plus the l1
// penalty (C = infer.RelaxedKL.C). Then q(x_j) = q^r(x_j)/m_j^b (eq. 26) and
// m_j ← q(x_j)/n_j (step c), which engine.calc evaluates directly.
//
// Line search: Q on the grid b = 0, 0.1, …, 1, then bisection on the exact
// derivative Q'(b) (see lineSearch) in the grid interval next to the best
// grid point on the side where Q descends, so b is a root of Q' to
// rounding (|Q'(b)| ≤ 1e-8·C, TestRelaxedBPLineSearchStationary) or a
// boundary 0 or 1 with the right sign; b = 0 is kept whenever Q(0) ≤ Q(b*),
// so a large C gives BP exactly. Q need not be convex in b; the grid guards
// against a local minimum at the wrong end. Because b is located to
// rounding, relaxed BP meets belief tolerances of 1e-12 where it converges
// (TestRelaxedBPConvergesTightly; on examples/ising_dome.fg, c = 0.1, tol =
// 1e-12: converged in 39 passes with 19 factors relaxed).

const (
	gridSteps      = 10
	bisectionSteps = 64
)

// relaxedWork is the per-factor data of one line search: the log tilted
// base(x) = log f(x) + Σ_j log n_j(x_j) and the relaxation statistic
// s(x) = Σ_j log m_j(x_j), so that log q̂^r_b(x) = base(x) + b·s(x) − log Z_b.
type relaxedWork struct {
	base, s, lq []float64
	marg        []float64 // scratch: marginals of q̂_b
	coff        []int
	r           int
}

// lineSearch returns b_a; en.cav holds the cavities of a without m^b.
//
// Q is evaluated on the grid b = 0, 0.1, …, 1; around the best grid point
// the stationary point is found by bisection on the exact derivative
//
//	Q'(b) = Cov_{q̂_b}( s(x), log q̂_b(x) − Σ_j log q_j(x_j) ) + C
//
// (from d/db (−H(q̂_b)) = Cov(s, log q̂_b) and d/db H(q_j) = −Cov(s, log q_j)),
// which locates b to rounding precision; b = 0 is kept whenever Q(0) is not
// larger, so a large C gives BP exactly.
func (en *engine) lineSearch(a int32) float64 {
	w := en.relaxedSetup(a)
	bestB, bestQ := 0.0, math.Inf(1)
	for g := 0; g <= gridSteps; g++ {
		b := float64(g) / gridSteps
		if q, _ := w.eval(b, en.pen); q < bestQ {
			bestB, bestQ = b, q
		}
	}
	b := bestB
	switch _, d := w.eval(bestB, en.pen); {
	case d < 0 && bestB < 1:
		b = w.bisect(bestB, math.Min(1, bestB+1.0/gridSteps), en.pen)
	case d > 0 && bestB > 0:
		b = w.bisect(math.Max(0, bestB-1.0/gridSteps), bestB, en.pen)
	}
	if qb, _ := w.eval(b, en.pen); qb > bestQ {
		b = bestB // the bracket held a local maximum: keep the grid point
	}
	q0, _ := w.eval(0, en.pen)
	if qb, _ := w.eval(b, en.pen); q0 <= qb || b <= 0 {
		return 0
	}
	return math.Min(b, 1)
}

// bisect finds a zero of Q' in [lo, hi], keeping Q' < 0 at lo and ≥ 0 at hi
// (the grid point next to the best one has a larger Q, so a minimum lies
// in between).
func (w *relaxedWork) bisect(lo, hi, pen float64) float64 {
	for it := 0; it < bisectionSteps && hi-lo > 1e-15; it++ {
		mid := (lo + hi) / 2
		if _, d := w.eval(mid, pen); d < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// relaxedSetup tabulates base and s for factor a.
func (en *engine) relaxedSetup(a int32) *relaxedWork {
	p := en.p
	t, theta := p.table(a)
	r := int(p.fstart.at(a+1) - p.fstart.at(a))
	cur := en.current()
	w := &relaxedWork{base: make([]float64, len(t)), s: make([]float64, len(t)), lq: make([]float64, len(t)), coff: en.coff, r: r}
	var st [16]int
	state := stateBuf(&st, r)
	for idx := range t {
		v, sv := theta*t[idx], 0.0
		for k := 0; k < r; k++ {
			e := p.fstart.at(a) + int32(k)
			v += en.cav[en.coff[k]+state[k]]
			sv += cur[int(p.msgStart(e))+state[k]]
		}
		w.base[idx], w.s[idx] = v, sv
		odometer(state, en.coff)
	}
	return w
}

// odometer advances state (first digit fastest; digit k has coff[k+1]−coff[k] values).
func odometer(state []int, coff []int) {
	for k := range state {
		if state[k]++; state[k] < coff[k+1]-coff[k] {
			return
		}
		state[k] = 0
	}
}

// eval returns Q(b) = Σ_j H(q_j) − H(q̂_b) + pen·b and Q'(b).
func (w *relaxedWork) eval(b, pen float64) (float64, float64) {
	for idx := range w.lq {
		w.lq[idx] = w.base[idx] + b*w.s[idx]
	}
	normalizeLog(w.lq)
	if len(w.marg) != w.coff[w.r] {
		w.marg = make([]float64, w.coff[w.r])
	}
	marg := w.marg
	clear(marg)
	var st [16]int
	state := stateBuf(&st, w.r)
	negH, es := 0.0, 0.0
	for idx, l := range w.lq {
		if !math.IsInf(l, -1) {
			pr := math.Exp(l)
			negH += pr * l
			es += pr * w.s[idx]
			for k := 0; k < w.r; k++ {
				marg[w.coff[k]+state[k]] += pr
			}
		}
		odometer(state, w.coff)
	}
	mi := negH
	for _, m := range marg {
		if m > 0 {
			mi -= m * math.Log(m)
		}
	}
	cov := 0.0
	clear(state)
	for idx, l := range w.lq {
		if !math.IsInf(l, -1) {
			g := l
			for k := 0; k < w.r; k++ {
				g -= math.Log(marg[w.coff[k]+state[k]])
			}
			cov += math.Exp(l) * (w.s[idx] - es) * g
		}
		odometer(state, w.coff)
	}
	return math.Max(mi, 0) + pen*b, cov + pen
}

// multiInformation is Σ_j H(q_j) − H(q) for q(x) ∝ exp(lq[x]) over r
// variables whose state counts are coff[k+1] − coff[k].
func multiInformation(lq []float64, coff []int, r int) float64 {
	w := &relaxedWork{base: lq, s: make([]float64, len(lq)), lq: make([]float64, len(lq)), coff: coff, r: r}
	q, _ := w.eval(0, 0)
	return q
}
