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
// Line search: Q on the grid b = 0, 0.1, …, 1, then golden-section
// refinement on the bracket around the best grid point (40 steps, width
// 0.2·0.618^40); b = 0 is kept whenever Q(0) ≤ Q(b*), so a large C gives BP
// exactly. Q need not be convex in b; the grid guards against a local
// minimum at the wrong end.

const (
	gridSteps   = 10
	goldenSteps = 40
)

// lineSearch returns b_a; en.cav holds the cavities of a without m^b.
func (en *engine) lineSearch(a int32) float64 {
	bestB, bestQ := 0.0, en.relaxedQ(a, 0)
	q0 := bestQ
	for g := 1; g <= gridSteps; g++ {
		b := float64(g) / gridSteps
		if q := en.relaxedQ(a, b); q < bestQ {
			bestB, bestQ = b, q
		}
	}
	lo, hi := math.Max(0, bestB-1.0/gridSteps), math.Min(1, bestB+1.0/gridSteps)
	phi := (math.Sqrt(5) - 1) / 2
	x1, x2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
	q1, q2 := en.relaxedQ(a, x1), en.relaxedQ(a, x2)
	for it := 0; it < goldenSteps; it++ {
		if q1 <= q2 {
			hi, x2, q2 = x2, x1, q1
			x1 = hi - phi*(hi-lo)
			q1 = en.relaxedQ(a, x1)
		} else {
			lo, x1, q1 = x1, x2, q2
			x2 = lo + phi*(hi-lo)
			q2 = en.relaxedQ(a, x2)
		}
	}
	if q1 < bestQ {
		bestB, bestQ = x1, q1
	}
	if q2 < bestQ {
		bestB, bestQ = x2, q2
	}
	if q0 <= bestQ {
		return 0
	}
	return bestB
}

// relaxedQ evaluates Q(b) for factor a.
func (en *engine) relaxedQ(a int32, b float64) float64 {
	p := en.p
	t := p.tab[p.toff[a]:p.toff[a+1]]
	r := int(p.fstart[a+1] - p.fstart[a])
	cur := en.current()
	if cap(en.tilt) < len(t) {
		en.tilt = make([]float64, len(t))
	}
	lq := en.tilt[:len(t)]
	var st [16]int
	state := stateBuf(&st, r)
	for idx := range t {
		v := t[idx]
		for k := 0; k < r; k++ {
			e := p.fstart[a] + int32(k)
			v += en.cav[en.coff[k]+state[k]] + b*cur[int(p.moff[e])+state[k]]
		}
		lq[idx] = v
		for k := 0; k < r; k++ {
			if state[k]++; state[k] < en.coff[k+1]-en.coff[k] {
				break
			}
			state[k] = 0
		}
	}
	return multiInformation(lq, en.coff, r) + en.pen*b
}

// multiInformation is Σ_j H(q_j) − H(q) for q(x) ∝ exp(lq[x]) over r
// variables whose state counts are coff[k+1] − coff[k].
func multiInformation(lq []float64, coff []int, r int) float64 {
	normalizeLog(lq)
	marg := make([]float64, coff[r])
	negH := 0.0
	var st [16]int
	state := stateBuf(&st, r)
	for _, l := range lq {
		if !math.IsInf(l, -1) {
			pr := math.Exp(l)
			negH += pr * l
			for k := 0; k < r; k++ {
				marg[coff[k]+state[k]] += pr
			}
		}
		for k := 0; k < r; k++ {
			if state[k]++; state[k] < coff[k+1]-coff[k] {
				break
			}
			state[k] = 0
		}
	}
	mi := negH
	for _, m := range marg {
		if m > 0 {
			mi -= m * math.Log(m)
		}
	}
	return math.Max(mi, 0)
}
