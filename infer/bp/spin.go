package bp

import (
	"math"
	"runtime"
	"sync"
)

// spin is plain BP's message state when every variable is binary and every
// message-passing factor is pairwise with a strictly positive table (Ising
// models, libDAI's createfg grids): one number per message, the ratio
//
//	r = m_{a→i}(1) / m_{a→i}(0),
//
// stored in the order the sequential schedule visits the messages ("slot" s
// = position in p.vedge: the messages into variable 0 by factor, then into
// variable 1, ...), so that a pass streams the array once. With the cavity
// ratio of the other variable j of a,
//
//	ρ = π_j Π_{b ∋ j, b ≠ a} r_{b→j},   π_j = prior_j(1) / prior_j(0),
//
// the new message is, for T the factor's linear table as seen from i
// (T[x_i][x_j], lin),
//
//	r_{a→i} = (T[1][0] + T[1][1] ρ) / (T[0][0] + T[0][1] ρ):
//
// multiplications and one division, no exponential or logarithm (libDAI
// also computes in the linear domain by default). A table entry of at most
// 1e280 times another bounds every message ratio, so only the product ρ can
// leave the floating-point range; when it does, the update takes the log
// domain instead (spin.slow). The numbers are those of the log-domain
// engine up to rounding.
type spin struct {
	r     []float64 // message ratios by slot
	nr    []float64 // new ratios of a parallel pass (nil otherwise)
	rev   []int32   // per slot: the slot of the factor's message to the other variable
	fpos  []uint32  // per slot: offset of the factor's table in lin <<1 | position of the receiving variable
	other []int32   // per slot: the other variable j of the factor
	start []int32   // p.vstart: slots of variable i are start[i]..start[i+1]
	pr    []float64 // per variable: prior ratio π_i (may be 0 or +Inf); log π_i is lpr(i)
	// lin holds the linear tables T(x0, x1) = exp(log f − max log f) at
	// x0 + 2·x1 from an offset, one for each run of consecutive factors
	// with the same log table (the same source table and θ).
	lin []float64
	p   *Problem
}

// spinRange bounds the cavity products the fast path accepts.
const spinRange = 1e280

// useSpin reports whether plain BP with this engine's settings may run on
// the spin state: BP (c = 1, not relaxed), undamped, a sequential, random
// or parallel schedule, binary variables with a defined prior ratio, and
// pairwise factors (whose tables newSpin must then accept).
func (en *engine) useSpin(kind int) bool {
	p := en.p
	if en.relax || en.c != 1 || en.step != 1 || kind != schedSequential && kind != schedParallel {
		return false
	}
	for i := 0; i < p.nv; i++ {
		if p.card.at(int32(i)) != 2 || math.IsNaN(p.prior[2*i+1]-p.prior[2*i]) {
			return false
		}
	}
	for a := 0; a < p.NumFactors(); a++ {
		if p.fstart.at(int32(a+1))-p.fstart.at(int32(a)) != 2 {
			return false
		}
	}
	return true
}

// Schedule classes for useSpin.
const (
	schedSequential = iota // sequential and random: one message at a time
	schedParallel
	schedOther
)

// newSpin builds the spin state with every message uniform (r = 1), or
// reports false when a table's linear form under- or overflows (entries
// below 1e-280 of its largest: the log-domain engine takes those).
func newSpin(en *engine, parallel bool) (*spin, bool) {
	p := en.p
	lin, loff, ok := spinTables(p)
	if !ok {
		return nil, false
	}
	n := len(p.vedge)
	sp := &spin{r: make([]float64, n), rev: make([]int32, n), fpos: make([]uint32, n), other: make([]int32, n),
		start: p.vstart, pr: make([]float64, p.nv), lin: lin, p: p}
	// fpos first holds each edge's slot (no separate edge → slot array),
	// read to fill rev, then its own values.
	for s, e := range p.vedge {
		sp.fpos[e] = uint32(s)
	}
	for s, e := range p.vedge {
		sp.rev[s] = int32(sp.fpos[opposite(p, e)])
	}
	for s, e := range p.vedge {
		a := p.factorOf(e)
		sp.r[s] = 1
		sp.fpos[s] = uint32(loff[a])<<1 | uint32(e-p.fstart.at(a))
		sp.other[s] = p.evar[opposite(p, e)]
	}
	for i := range sp.pr {
		sp.pr[i] = math.Exp(sp.lpr(int32(i)))
	}
	if parallel {
		sp.nr = make([]float64, n)
	}
	return sp, true
}

// spinTables makes the linear tables of the pairwise factors, one for each
// run of consecutive factors with the same log table, and returns them
// with the offset of each factor's table; false when one under- or
// overflows.
func spinTables(p *Problem) ([]float64, []int32, bool) {
	nf := int32(p.NumFactors())
	same := func(a int32) bool { return a > 0 && p.toff.at(a) == p.toff.at(a-1) && p.scale(a) == p.scale(a-1) }
	runs := 0
	for a := range nf {
		if !same(a) {
			runs++
		}
	}
	lin, loff := make([]float64, 0, 4*runs), make([]int32, nf)
	for a := range nf {
		if same(a) {
			loff[a] = loff[a-1]
			continue
		}
		t, theta := p.table(a)
		mx := math.Inf(-1)
		for _, v := range t {
			mx = math.Max(mx, theta*v)
		}
		if math.IsInf(mx, 0) || math.IsNaN(mx) {
			return nil, nil, false
		}
		loff[a] = int32(len(lin))
		for _, v := range t {
			l := math.Exp(theta*v - mx)
			if !(l > 1e-280) {
				return nil, nil, false
			}
			lin = append(lin, l)
		}
	}
	return lin, loff, true
}

// lpr is log π_i, from the prior (the slow paths and log Z read it).
func (sp *spin) lpr(i int32) float64 { return sp.p.prior[2*i+1] - sp.p.prior[2*i] }

// opposite is the other edge of edge e's pairwise factor.
func opposite(p *Problem, e int32) int32 {
	a := p.factorOf(e)
	return 2*p.fstart.at(a) + 1 - e
}

// calc returns the new ratio of slot s computed from the ratios r.
func (sp *spin) calc(s int32, r []float64) float64 {
	j, rv := sp.other[s], sp.rev[s]
	rho := sp.pr[j]
	t0, t1 := sp.start[j], sp.start[j+1]
	for _, x := range r[t0:t1:t1] {
		if t0 != rv {
			rho *= x
		}
		t0++
	}
	fp := sp.fpos[s]
	pos := fp & 1
	o := fp >> 1
	t := sp.lin[o : o+4 : o+4]
	// Seen from i: T[0][0] = t[0], T[1][1] = t[3]; T[1][0] = t[1+pos],
	// T[0][1] = t[2−pos].
	a, b := t[1+pos], t[2-pos]
	if rho > 1/spinRange && rho < spinRange {
		return (a + t[3]*rho) / (t[0] + b*rho)
	}
	return sp.slow(s, r, a, b, t[0], t[3])
}

// slow is calc in the log domain for a cavity product outside the
// floating-point range: h = log ρ, and with e = exp(−|h|)
//
//	r = (a e + d)/(t0 e + b)  (h > 0),   r = (a + d e)/(t0 + b e)  (h ≤ 0).
func (sp *spin) slow(s int32, r []float64, a, b, t0, d float64) float64 {
	j, rv := sp.other[s], sp.rev[s]
	h := sp.lpr(j)
	for t := sp.start[j]; t < sp.start[j+1]; t++ {
		if t != rv {
			h += math.Log(r[t])
		}
	}
	e := math.Exp(-math.Abs(h))
	if h > 0 {
		return (a*e + d) / (t0*e + b)
	}
	return (a + d*e) / (t0 + b*e)
}

// sequential updates the slots of seq (every slot once, nil for the
// schedule's own order) one at a time, each from the newest ratios.
func (sp *spin) sequential(seq []int32) {
	r := sp.r
	if seq == nil {
		for s := range r {
			r[s] = sp.calc(int32(s), r)
		}
		return
	}
	for _, s := range seq {
		r[s] = sp.calc(s, r)
	}
}

// parallel computes every new ratio from the current ones (on GOMAXPROCS
// goroutines for large problems: each slot is written by one goroutine and
// read from the old array only, so the numbers do not depend on the split)
// and then makes them current.
func (sp *spin) parallel() {
	n := len(sp.r)
	workers := min(runtime.GOMAXPROCS(0), n/parallelMinEdges)
	if workers < 2 {
		sp.calcRange(0, n)
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { sp.calcRange(w*n/workers, (w+1)*n/workers) })
		}
		wg.Wait()
	}
	sp.r, sp.nr = sp.nr, sp.r
}

func (sp *spin) calcRange(lo, hi int) {
	for s := lo; s < hi; s++ {
		sp.nr[s] = sp.calc(int32(s), sp.r)
	}
}

// beliefs writes every variable's belief probabilities, b_i(1) = ρ/(1 + ρ)
// with ρ = π_i Π_{a ∋ i} r_{a→i}, into dst (2 entries per variable) and
// reports whether all are finite.
func (sp *spin) beliefs(dst []float64) bool {
	ok := true
	for i := range sp.pr {
		rho := sp.pr[i]
		t0, t1 := sp.start[i], sp.start[i+1]
		for _, x := range sp.r[t0:t1:t1] {
			rho *= x
		}
		if rho > 1/spinRange && rho < spinRange {
			dst[2*i], dst[2*i+1] = 1/(1+rho), rho/(1+rho)
			continue
		}
		h := sp.lpr(int32(i))
		for _, x := range sp.r[t0:t1:t1] {
			h += math.Log(x)
		}
		b := dst[2*i : 2*i+2]
		if h > 0 {
			b[0], b[1] = -h, 0
		} else {
			b[0], b[1] = 0, h
		}
		ok = toProbs(b) && ok
	}
	return ok
}

// factorTerms is engine.logZ's sum over the pairwise factors of
// Σ_x b_a log f_a + H(b_a) on the spin state, without the log messages:
// with h_i, h_j the log cavity ratios of the factor's variables x0, x1 and
// L its log table, the factor belief has log weights
//
//	u = (L00, L10 + h_i, L01 + h_j, L11 + h_i + h_j)   (index x0 + 2·x1),
//
// and the term is  log Σ e^u − b(x0 = 1)·h_i − b(x1 = 1)·h_j. A cavity
// ratio is the variable's whole log ratio S minus the factor's own message.
// It reports false (the caller then uses the log messages) when a cavity
// is infinite (an observed variable). S (one entry per variable) is
// scratch space for the variables' log ratios.
func (sp *spin) factorTerms(S []float64) (float64, bool) {
	for i := range S {
		S[i] = sp.lpr(int32(i))
		for _, x := range sp.r[sp.start[i]:sp.start[i+1]] {
			S[i] += math.Log(x)
		}
		if math.IsInf(S[i], 0) || math.IsNaN(S[i]) {
			return 0, false
		}
	}
	sum := 0.0
	for i := range S {
		for s := sp.start[i]; s < sp.start[i+1]; s++ {
			if sp.fpos[s]&1 != 0 {
				continue // each factor once: from its first variable's slot
			}
			rv := sp.rev[s]
			hi := S[i] - math.Log(sp.r[s])
			hj := S[sp.other[s]] - math.Log(sp.r[rv])
			t, theta := sp.p.table(sp.p.factorOf(sp.p.vedge[s]))
			L := [4]float64{theta * t[0], theta * t[1], theta * t[2], theta * t[3]}
			sum += pairTerm(L[:], hi, hj)
		}
	}
	return sum, true
}

// pairTerm is Σ_x b log f + H(b) for a binary pairwise factor with log
// table L and log cavity ratios hi (first variable), hj.
func pairTerm(L []float64, hi, hj float64) float64 {
	u := [4]float64{L[0], L[1] + hi, L[2] + hj, L[3] + hi + hj}
	m := max(u[0], u[1], u[2], u[3])
	var w [4]float64
	z := 0.0
	for k := range u {
		w[k] = math.Exp(u[k] - m)
		z += w[k]
	}
	bi, bj := (w[1]+w[3])/z, (w[2]+w[3])/z
	return m + math.Log(z) - bi*hi - bj*hj
}

// export writes the ratios into en.msg as normalised log messages
// (max_k log m(k) = 0, as calcBinaryPair), for log Z and the results.
func (sp *spin) export(en *engine) {
	p := en.p
	if en.msg == nil {
		en.msg = make([]float64, p.numMsg())
	}
	for s, e := range p.vedge {
		d := math.Log(sp.r[s])
		m := p.msgOf(en.msg, e)
		if d > 0 {
			m[0], m[1] = -d, 0
		} else {
			m[0], m[1] = 0, d
		}
	}
}
