package bp

import (
	"math"

	"github.com/fg-infer/fg/families"
)

// engine is the message state of one run. Messages are normalised log
// messages (natural parameters): msg[moff[e]+k] = log m_{a→i}(k) with
// Σ_k m = 1, e = (a, i).
type engine struct {
	p     *Problem
	msg   []float64 // current messages
	nmsg  []float64 // newly computed messages (nil when sequential and undamped)
	selfW []float64 // relaxed BP: per factor, the weight of the factor's own message in its cavities (nil otherwise)
	w0    float64   // that weight for every factor when not relaxed: 1 − 1/c (0 for BP)
	invc  float64   // factor power 1/c (fractional BP); 1 otherwise
	c     float64   // message power c
	step  float64   // damping step s ∈ (0, 1]: log m ← (1−s) log m_old + s log m_new
	relax bool      // relaxed BP: selfW[a] = b_a chosen by line search
	pen   float64   // relaxed BP penalty C
	cav   []float64 // scratch: cavities of one factor's variables
	coff  []int     // scratch: offsets into cav
	out   []float64 // scratch: one new message
	tilt  []float64 // scratch: relaxed tilted joint
	// lin holds, for each binary pairwise factor, exp(f/c − max f/c): the
	// linear-domain table of the fast path (nil entries elsewhere: NaN).
	lin []float64
	// sp is the one-number-per-message state of plain BP on binary
	// pairwise models (spin.go); msg and nmsg are then nil until finish.
	sp *spin
}

// selfWeight is the weight of factor a's own message in its cavities:
// relaxed BP's line-searched b_a, else the constant 1 − 1/c (fractional BP;
// 0 for BP), which needs no per-factor array.
func (en *engine) selfWeight(a int32) float64 {
	if en.selfW != nil {
		return en.selfW[a]
	}
	return en.w0
}

// current returns the messages beliefs are formed from: the newest computed
// ones (libDAI's newMessage) when a separate array is kept.
func (en *engine) current() []float64 {
	if en.nmsg != nil {
		return en.nmsg
	}
	return en.msg
}

// cavity writes into dst, for variable j = evar[e] and its factor a = efac[e],
//
//	log n_{j→a}(x_j) = log prior_j + Σ_{e' ∋ j, e' ≠ e} log m_{e'}(x_j) + w·log m_e(x_j),
//
// the product of the messages into j from every factor but a, times a's own
// message to the power w (w = 1 − 1/c in fractional BP, libDAI FBP; w = b_a
// in relaxed BP, qi-guo-relaxed-ep-rbp.md eq. 23; w = 0 in BP).
func (en *engine) cavity(dst []float64, e int32, w float64) {
	p := en.p
	j := p.evar[e]
	copy(dst, p.prior[p.voff.at(j):p.voff.at(j+1)])
	for _, f := range p.vedge[p.vstart[j]:p.vstart[j+1]] {
		if f == e {
			continue
		}
		m := p.msgOf(en.msg, f)
		for k := range dst {
			dst[k] += m[k]
		}
	}
	if w != 0 {
		m := p.msgOf(en.current(), e)
		for k := range dst {
			dst[k] += w * m[k]
		}
	}
}

// cavities fills en.cav with the cavities of all variables of factor a
// (self weight w) and returns the number of variables.
func (en *engine) cavities(a int32, w float64) int {
	p := en.p
	e0, e1 := p.fstart.at(a), p.fstart.at(a+1)
	en.coff = en.coff[:0]
	n := 0
	for e := e0; e < e1; e++ {
		en.coff = append(en.coff, n)
		n += int(p.card.at(p.evar[e]))
	}
	en.coff = append(en.coff, n)
	if cap(en.cav) < n {
		en.cav = make([]float64, n)
	}
	en.cav = en.cav[:n]
	for e := e0; e < e1; e++ {
		k := e - e0
		en.cavity(en.cav[en.coff[k]:en.coff[k+1]], e, w)
	}
	return int(e1 - e0)
}

// calc computes the new message of edge e into dst (normalised, log):
//
//	m_{a→i}(x_i) ∝ [ Σ_{x_a ∖ x_i} f_a(x_a)^{1/c} Π_{j ∈ a, j ≠ i} n_{j→a}(x_j) ]^c
//
// (BP: c = 1; fractional BP: libDAI FBP::calcNewMessage; relaxed BP: c = 1
// and n_{j→a} includes m_{a→j}^{b_a}, which is eq. 26 divided through:
// q(x_i)/q^{∖a}(x_i) with q(x_i) = q^r(x_i)/m_{a→i}^{b}). For relaxed BP
// the weight b_a is first re-chosen by the line search of relaxed.go.
func (en *engine) calc(e int32, dst []float64) {
	p := en.p
	a := p.factorOf(e)
	w := en.selfWeight(a)
	if !en.relax && p.fstart.at(a+1)-p.fstart.at(a) == 2 && len(dst) == 2 && p.card.at(p.evar[p.fstart.at(a)]) == 2 && p.card.at(p.evar[p.fstart.at(a)+1]) == 2 {
		en.calcBinaryPair(a, int(e-p.fstart.at(a)), w, dst)
		return
	}
	if en.relax {
		en.cavities(a, 0)
		w = en.lineSearch(a)
		en.selfW[a] = w
		en.addSelf(a, w)
	} else {
		en.cavities(a, w)
	}
	en.marginal(a, int(e-p.fstart.at(a)), dst)
	normalizeLog(dst)
	if en.c != 1 {
		for k := range dst {
			dst[k] *= en.c
		}
		normalizeLog(dst)
	}
}

// addSelf adds w·log m_{a→j} to every cavity of factor a.
func (en *engine) addSelf(a int32, w float64) {
	if w == 0 {
		return
	}
	p := en.p
	cur := en.current()
	for e := p.fstart.at(a); e < p.fstart.at(a+1); e++ {
		k := e - p.fstart.at(a)
		m := p.msgOf(cur, e)
		c := en.cav[en.coff[k]:en.coff[k+1]]
		for s := range c {
			c[s] += w * m[s]
		}
	}
}

// marginal writes log Σ_{x_a∖x_i} exp(f/c + Σ_{j≠i} cav_j) into dst, where
// i is the variable at position pos of factor a; an online log-sum-exp
// keeps one exponential per table entry.
func (en *engine) marginal(a int32, pos int, dst []float64) {
	p := en.p
	t, theta := p.table(a)
	sc := en.invc * theta // log f/c = sc·t
	r := int(p.fstart.at(a+1) - p.fstart.at(a))
	if r == 2 {
		en.marginal2(sc, pos, t, dst)
		return
	}
	mx := dst
	for k := range mx {
		mx[k] = math.Inf(-1)
	}
	sum := en.scratchOut(len(dst))
	var st [16]int
	state := stateBuf(&st, r)
	for idx := range t {
		v := sc * t[idx]
		for k := 0; k < r; k++ {
			if k != pos {
				v += en.cav[en.coff[k]+state[k]]
			}
		}
		onlineLSE(&mx[state[pos]], &sum[state[pos]], v)
		for k := 0; k < r; k++ {
			if state[k]++; state[k] < en.coff[k+1]-en.coff[k] {
				break
			}
			state[k] = 0
		}
	}
	finishLSE(mx, sum)
}

// marginal2 is marginal for a pairwise factor (table index x0 + K0·x1).
func (en *engine) marginal2(sc float64, pos int, t, dst []float64) {
	k0 := en.coff[1]
	k1 := en.coff[2] - k0
	other := en.cav[k0:]
	if pos == 1 {
		other = en.cav[:k0]
	}
	sum := en.scratchOut(len(dst))
	for k := range dst {
		dst[k] = math.Inf(-1)
	}
	for x1 := 0; x1 < k1; x1++ {
		for x0 := 0; x0 < k0; x0++ {
			v := sc * t[x0+k0*x1]
			if pos == 0 {
				v += other[x1]
				onlineLSE(&dst[x0], &sum[x0], v)
			} else {
				v += other[x0]
				onlineLSE(&dst[x1], &sum[x1], v)
			}
		}
	}
	finishLSE(dst, sum)
}

func (en *engine) scratchOut(n int) []float64 {
	if cap(en.out) < n {
		en.out = make([]float64, n)
	}
	s := en.out[:n]
	for k := range s {
		s[k] = 0
	}
	return s
}

// onlineLSE folds v into the running log-sum-exp m + log s.
func onlineLSE(m, s *float64, v float64) {
	switch {
	case math.IsInf(v, -1):
	case v > *m:
		*s = *s*math.Exp(*m-v) + 1
		*m = v
	default:
		*s += math.Exp(v - *m)
	}
}

func finishLSE(m, s []float64) {
	for k := range m {
		if s[k] > 0 {
			m[k] += math.Log(s[k])
		}
	}
}

// normalizeLog shifts a log vector so that its exponentials sum to one.
func normalizeLog(x []float64) {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	z := m + math.Log(s)
	for k := range x {
		x[k] -= z
	}
}

// apply moves edge e's message to its newly computed value with the
// damping step s (geometric damping: log-linear in the message):
//
//	log m ← (1 − s)·log m_old + s·log m_new,   then normalise
//
// (families.Damped: the log-messages are the natural parameters of the
// discrete family, damped like every EP engine's);
// s = 1 − d for libDAI's damping d (m = m_old^d · m_new^(1−d)).
func (en *engine) apply(e int32) {
	p := en.p
	if en.nmsg == nil {
		return
	}
	m, n := p.msgOf(en.msg, e), p.msgOf(en.nmsg, e)
	if en.step == 1 {
		copy(m, n)
		return
	}
	for k := range m {
		if math.IsInf(n[k], -1) || math.IsInf(m[k], -1) {
			m[k] = math.Inf(-1)
			continue
		}
		m[k] = families.Damped(m[k], n[k], en.step)
	}
	normalizeLog(m)
}

// update computes and applies edge e's message.
func (en *engine) update(e int32) {
	p := en.p
	if en.nmsg == nil {
		en.calc(e, p.msgOf(en.msg, e))
		return
	}
	en.calc(e, p.msgOf(en.nmsg, e))
	en.apply(e)
}

// beliefs writes every variable's normalised belief probabilities,
//
//	b_i(x_i) ∝ prior_i(x_i) Π_{a ∋ i} m_{a→i}(x_i),
//
// into dst (indexed like prior) and returns false if any is not finite.
func (en *engine) beliefs(dst []float64) bool {
	if en.sp != nil {
		return en.sp.beliefs(dst)
	}
	p := en.p
	cur := en.current()
	ok := true
	for i := 0; i < p.nv; i++ {
		b := dst[p.voff.at(int32(i)):p.voff.at(int32(i+1))]
		copy(b, p.prior[p.voff.at(int32(i)):p.voff.at(int32(i+1))])
		for _, e := range p.vedge[p.vstart[i]:p.vstart[i+1]] {
			m := p.msgOf(cur, e)
			for k := range b {
				b[k] += m[k]
			}
		}
		ok = toProbs(b) && ok
	}
	return ok
}

// toProbs turns a log vector into probabilities in place.
func toProbs(b []float64) bool {
	if len(b) == 2 && !math.IsInf(b[0], 0) && !math.IsInf(b[1], 0) {
		// p(1) = σ(b1 − b0) with one exponential.
		d := b[1] - b[0]
		e := math.Exp(-math.Abs(d))
		hi, lo := 1/(1+e), e/(1+e)
		if d >= 0 {
			b[0], b[1] = lo, hi
		} else {
			b[0], b[1] = hi, lo
		}
		return !math.IsNaN(d)
	}
	normalizeLog(b)
	s := 0.0
	for k, v := range b {
		b[k] = math.Exp(v)
		s += b[k]
	}
	return !math.IsNaN(s) && math.Abs(s-1) < 1e-6
}

// stateBuf returns a zeroed odometer of r digits, on the stack for r ≤ 16.
func stateBuf(buf *[16]int, r int) []int {
	if r > len(buf) {
		return make([]int, r)
	}
	s := buf[:r]
	clear(s)
	return s
}

// calcBinaryPair is calc for a factor of two binary variables (the Ising
// case), unrolled: with n the cavity of the other variable j,
//
//	log m(x_i) = c · log Σ_{x_j} exp(f(x_i, x_j)/c + log n(x_j)),
//
// two two-term log-sum-exps, normalised to max_k log m(k) = 0 (messages are
// defined up to a constant; every consumer normalises).
func (en *engine) calcBinaryPair(a int32, pos int, w float64, dst []float64) {
	p := en.p
	o := p.fstart.at(a) + int32(1-pos) // the other edge of a
	j := p.evar[o]
	pj := p.prior[p.voff.at(j) : p.voff.at(j)+2]
	c0, c1 := pj[0], pj[1]
	for _, f := range p.vedge[p.vstart[j]:p.vstart[j+1]] {
		if f != o {
			m := p.msgOf(en.msg, f)
			c0 += m[0]
			c1 += m[1]
		}
	}
	if w != 0 {
		m := p.msgOf(en.current(), o)
		c0 += w * m[0]
		c1 += w * m[1]
	}
	if d, ok := en.linearPair(a, pos, c0, c1); ok {
		if d > 0 {
			dst[0], dst[1] = -d, 0
		} else {
			dst[0], dst[1] = 0, d
		}
		return
	}
	t, theta := p.table(a)
	ic := en.invc * theta
	var l0, l1 float64
	if pos == 0 { // table index x0 + 2·x1, i = x0
		l0 = lse2(ic*t[0]+c0, ic*t[2]+c1)
		l1 = lse2(ic*t[1]+c0, ic*t[3]+c1)
	} else {
		l0 = lse2(ic*t[0]+c0, ic*t[1]+c1)
		l1 = lse2(ic*t[2]+c0, ic*t[3]+c1)
	}
	if en.c != 1 {
		l0, l1 = en.c*l0, en.c*l1
	}
	if m := math.Max(l0, l1); !math.IsInf(m, 0) && !math.IsNaN(m) {
		l0, l1 = l0-m, l1-m
	}
	dst[0], dst[1] = l0, l1
}

// lse2 is log(e^a + e^b) without overflow.
func lse2(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// linearPair evaluates the binary pairwise message in the linear domain:
// with the cavity normalised to n = (σ(c0 − c1), σ(c1 − c0)) (one
// exponential) and T = exp(f/c − max), m(x_i) = Σ_{x_j} T(x_i, x_j) n(x_j)
// and the message is d = c·log(m(1)/m(0)) (one logarithm). It reports false
// (the caller then uses log-sum-exps) when T is unavailable or m underflows.
func (en *engine) linearPair(a int32, pos int, c0, c1 float64) (float64, bool) {
	if en.lin == nil || en.p.scale(a) != 1 { // lin holds exp(t/c): θ = 1 only
		return 0, false
	}
	o := en.p.toff.at(a)
	t := en.lin[o : o+4]
	if math.IsNaN(t[0]) {
		return 0, false
	}
	e := math.Exp(-math.Abs(c0 - c1))
	big, small := 1/(1+e), e/(1+e)
	n0, n1 := big, small
	if c1 > c0 {
		n0, n1 = small, big
	}
	var m0, m1 float64
	if pos == 0 {
		m0, m1 = t[0]*n0+t[2]*n1, t[1]*n0+t[3]*n1
	} else {
		m0, m1 = t[0]*n0+t[1]*n1, t[2]*n0+t[3]*n1
	}
	d := en.c * math.Log(m1/m0)
	if !(m0 > 0 && m1 > 0) || math.IsInf(d, 0) || math.IsNaN(d) {
		return 0, false
	}
	return d, true
}

// initLinear fills en.lin, laid out as p.tab, for the binary pairwise
// factors' tables (NaN first entries for the tables whose exponentials
// under- or overflow: they are left to the log-domain path; the entries of
// other factors' tables are not used).
func (en *engine) initLinear() {
	p := en.p
	en.lin = make([]float64, len(p.tab))
	done := int32(-1) // the table last filled
	for a := range int32(p.NumFactors()) {
		f0 := p.fstart.at(a)
		if p.fstart.at(a+1)-f0 != 2 || p.card.at(p.evar[f0]) != 2 || p.card.at(p.evar[f0+1]) != 2 {
			continue
		}
		if p.toff.at(a) == done {
			continue // shared with the previous binary pairwise factor
		}
		done = p.toff.at(a)
		l := en.lin[p.toff.at(a) : p.toff.at(a)+4]
		t, _ := p.table(a) // exp(t/c): for the factors of scale θ = 1 (linearPair)
		mx := math.Inf(-1)
		for _, v := range t {
			mx = math.Max(mx, en.invc*v)
		}
		ok := !math.IsInf(mx, 0)
		for k, v := range t {
			l[k] = math.Exp(en.invc*v - mx)
			ok = ok && l[k] > 1e-280
		}
		if !ok {
			l[0] = math.NaN()
		}
	}
}
