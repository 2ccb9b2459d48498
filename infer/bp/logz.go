package bp

import "math"

// logZ evaluates the (fractional) Bethe free energy at the final beliefs:
//
//	log Z ≈ Σ_a [ Σ_{x_a} b_a log f_a + c·H(b_a) ] + Σ_i (1 − Σ_{a ∋ i} c)·H(b_i)
//
// with c = 1 for BP and relaxed BP (libDAI BP::logZ, written there as
// Σ_i (1 − d_i) H(b_i) − Σ_a KL(b_a ‖ f_a)) and c = 1/α for fractional BP
// (libDAI FBP::logZ). The factor belief is
//
//	b_a(x_a) ∝ f_a(x_a)^{1/c} Π_{j ∈ a} n_{j→a}(x_j)
//
// with the cavities of engine.cavity (fractional BP: including
// m_{a→j}^{1−1/c}); for an absorbed single-variable factor it equals the
// variable's belief b_i. bel holds the variable beliefs (probabilities);
// scratch (at least one entry per variable) is overwritten.
func (en *engine) logZ(bel, scratch []float64) float64 {
	p := en.p
	sum := p.logc
	pairs, ok := 0.0, false
	if en.sp != nil {
		pairs, ok = en.sp.factorTerms(scratch[:p.nv])
	}
	deg := scratch[:p.nv]
	clear(deg)
	if ok {
		sum += pairs
	} else if en.sp != nil {
		en.sp.export(en)
	}
	for a := 0; a < p.NumFactors(); a++ {
		if !ok {
			w := en.selfWeight(int32(a))
			if en.relax {
				w = 0
			}
			sum += en.factorTerm(int32(a), w)
		}
		for e := p.fstart.at(int32(a)); e < p.fstart.at(int32(a+1)); e++ {
			deg[p.evar[e]] += en.c
		}
	}
	for i, n := range p.nabs { // the absorbed factors of i: Σ_u b_i·log f_u = b_i·log prior_i
		if n > 0 {
			b := bel[p.voff.at(int32(i)):p.voff.at(int32(i+1))]
			sum += float64(n)*en.c*entropy(b) + expectLog(b, p.prior[p.voff.at(int32(i)):p.voff.at(int32(i+1))])
			deg[i] += float64(n) * en.c
		}
	}
	for i := 0; i < p.nv; i++ {
		if deg[i] != 1 {
			sum += (1 - deg[i]) * entropy(bel[p.voff.at(int32(i)):p.voff.at(int32(i+1))])
		}
	}
	return sum
}

// factorTerm is Σ b_a log f_a + c·H(b_a) for a message-passing factor.
func (en *engine) factorTerm(a int32, w float64) float64 {
	p := en.p
	msg := en.msg
	en.msg = en.current() // beliefs read the newest messages, as libDAI's calcBeliefF
	r := en.cavities(a, w)
	en.msg = msg
	t, theta := p.table(a)
	sc := en.invc * theta
	if cap(en.tilt) < len(t) {
		en.tilt = make([]float64, len(t))
	}
	lb := en.tilt[:len(t)]
	var st [16]int
	state := stateBuf(&st, r)
	for idx := range t {
		v := sc * t[idx]
		for k := 0; k < r; k++ {
			v += en.cav[en.coff[k]+state[k]]
		}
		lb[idx] = v
		for k := 0; k < r; k++ {
			if state[k]++; state[k] < en.coff[k+1]-en.coff[k] {
				break
			}
			state[k] = 0
		}
	}
	normalizeLog(lb)
	s := 0.0
	for idx, l := range lb {
		if math.IsInf(l, -1) {
			continue
		}
		pr := math.Exp(l)
		s += pr * (theta*t[idx] - en.c*l)
	}
	return s
}

func entropy(b []float64) float64 {
	h := 0.0
	for _, x := range b {
		if x > 0 {
			h -= x * math.Log(x)
		}
	}
	return h
}

// expectLog is Σ_k b_k log f_k, skipping states of zero belief.
func expectLog(b, logf []float64) float64 {
	s := 0.0
	for k, x := range b {
		if x > 0 {
			s += x * logf[k]
		}
	}
	return s
}
