package fgraph

import (
	"math"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/internal/mathx"
)

// gateState holds the messages of the gated factors and the beliefs of the
// discrete variables, flat (one allocation each, however many gates): the
// messages of gate j to its continuous variables, msgs(j)[i] for variable
// gates[j].vars[i], enter the beliefs of state.belief like any factor's;
// in the log domain, zm(j)[k] = log m_{j→z}(k) and
// bel(d)[k] = log p_d(k) + Σ_{j∋d} zm(j)[k].
type gateState struct {
	gmsg       []families.Gaussian
	zmsg, zbel []float64
	goff, koff []int32 // per gate: offset in gmsg and zmsg (one past the last: the total)
	doff       []int32 // per discrete variable: offset in zbel
}

func newGateState(g *Graph) gateState {
	s := gateState{goff: make([]int32, len(g.gates)+1), koff: make([]int32, len(g.gates)+1), doff: make([]int32, len(g.disc)+1)}
	for j, gt := range g.gates {
		s.goff[j+1] = s.goff[j] + int32(len(gt.vars))
		s.koff[j+1] = s.koff[j] + int32(len(gt.branches))
	}
	for d, z := range g.disc {
		s.doff[d+1] = s.doff[d] + int32(len(z.logPrior))
	}
	s.gmsg, s.zmsg, s.zbel = make([]families.Gaussian, s.goff[len(g.gates)]), make([]float64, s.koff[len(g.gates)]), make([]float64, 0, s.doff[len(g.disc)])
	for _, z := range g.disc {
		s.zbel = append(s.zbel, z.logPrior...)
	}
	return s
}

// msgs returns gate j's messages to its continuous variables.
func (s *gateState) msgs(j int) []families.Gaussian { return s.gmsg[s.goff[j]:s.goff[j+1]] }

// zm returns gate j's log message to its selector.
func (s *gateState) zm(j int) []float64 { return s.zmsg[s.koff[j]:s.koff[j+1]] }

// bel returns discrete variable d's log belief.
func (s *gateState) bel(d int) []float64 { return s.zbel[s.doff[d]:s.doff[d+1]] }

// logFloor is the smallest log message to a discrete variable relative to
// its largest state: exp(−10⁴) is zero in floating point, yet a finite log
// keeps belief − message well defined when a branch has zero evidence.
const logFloor = -1e4

// gateScratch holds one gate update: the cavities and the new messages.
type gateScratch struct {
	cav       []families.Gaussian // Gaussian cavities per union variable (relaxed under relaxed KL)
	base      []families.Gaussian // the unrelaxed cavities (relaxed KL)
	mold      []float64           // the means of the gate's current messages (relaxed KL)
	ell       []float64           // per branch: E[log f_k] under its tilted distribution (relaxed KL)
	rx        *relaxation
	lc        []float64 // log discrete cavity per state
	lz, d1    []float64 // per branch: log Z_k and the first derivative of its tilted log normaliser
	d2        []float64
	out       []families.Gaussian // new Gaussian messages per union variable
	zout      []float64           // new log messages to the selector
	mf, vf, r []float64           // per branch: projection cavity and responsibility
}

func newGateScratch(g *Graph) *gateScratch {
	nv, nk := maxDegree(g), 1 // relaxed sites run as one-branch gates
	for _, gt := range g.gates {
		nv, nk = max(nv, len(gt.vars)), max(nk, len(gt.branches))
	}
	f := func() []float64 { return make([]float64, nk) }
	return &gateScratch{cav: make([]families.Gaussian, nv), base: make([]families.Gaussian, nv), mold: make([]float64, nv), out: make([]families.Gaussian, nv),
		lc: f(), lz: f(), d1: f(), d2: f(), zout: f(), mf: f(), vf: f(), r: f(), ell: f()}
}

// cavities fills the scratch with gate j's cavities under power u:
// Gaussian b_v / m_{j→v}^u per union variable and the discrete
// log b_z − u log m_{j→z}, and the projection cavity N(f_k; mf_k, vf_k) of
// each branch. It reports false when a Gaussian cavity is improper.
func (sc *gateScratch) cavities(g *Graph, st *state, j int, u float64) bool {
	gt := &g.gates[j]
	for i, v := range gt.vars {
		b, m := st.belief[v], st.gates.msgs(j)[i]
		c := families.Gaussian{Prec: b.Prec - u*m.Prec, Shift: b.Shift - u*m.Shift}
		if !(c.Prec > 0) || !finite(c.Shift) {
			return false
		}
		sc.cav[i], sc.base[i], sc.mold[i] = c, c, 0
		if m.Prec != 0 {
			sc.mold[i] = m.Shift / m.Prec
		}
	}
	bel, msg := st.gates.bel(gt.z), st.gates.zm(j)
	for k := range gt.branches {
		sc.lc[k] = bel[k] - u*msg[k]
	}
	sc.projections(gt)
	return true
}

// projections sets each branch's projection cavity N(f_k; mf_k, vf_k),
// f_k = a_kᵀx + c_k, from the Gaussian cavities sc.cav.
func (sc *gateScratch) projections(gt *gate) {
	for k, br := range gt.branches {
		mf, vf := br.C, 0.0
		for i, p := range gt.pos[k] {
			a, c := br.Coefs[i], sc.cav[p]
			mf += a * c.Shift / c.Prec
			vf += a * a / c.Prec
		}
		sc.mf[k], sc.vf[k] = mf, vf
	}
}

// gateMessages computes gate j's new messages into sc.out and sc.zout
// (Minka & Winn 2008, the EP messages of a gate under a factorised family).
// Under the cavities q\(x) Π N(x_v; m_v, v_v) and c(z), the tilted
// distribution of f^u is the mixture Σ_k c(k) Z_k q̂_k(x) of the branches'
// tilted distributions, with Z_k = ∫ f_k^u q\ the evidence of branch k
// (Likelihood.Tilted on its projection). The message to the selector is
// each branch's evidence, m_{j→z}(k) = Z_k^{1/u}; the message to x_v is the
// moment-matched mixture divided by the cavity. With responsibilities
// r_k ∝ c(k) Z_k and δ_k = a_{kv} d1_k, ε_k = a_{kv}² d2_k (zero when
// branch k does not touch x_v), the mixture's moments are m_v + v_v D1 and
// v_v + v_v² D2 with
//
//	D1 = Σ_k r_k δ_k,   D2 = Σ_k r_k ε_k + Σ_k r_k (δ_k − D1)²
//
// (the law of total variance), and the message follows as for a site
// (families.TiltedSite). It reports false when a cavity is improper, every branch
// has zero evidence or a result is not finite.
func (sc *gateScratch) gateMessages(g *Graph, st *state, j int, u float64) bool {
	if !sc.cavities(g, st, j, u) {
		return false
	}
	gt := &g.gates[j]
	b := 0.0
	if sc.rx != nil {
		b = sc.relaxWeight(gt, sc.rx.c)
		sc.relaxTo(gt, b)
	}
	K := len(gt.branches)
	for k, br := range gt.branches {
		sc.lz[k], sc.d1[k], sc.d2[k] = branchTilted(br, gt.y, sc.mf[k], sc.vf[k], u)
		if math.IsNaN(sc.lz[k]) || math.IsInf(sc.lz[k], 1) || !finite(sc.d1[k], sc.d2[k]) {
			return false
		}
		sc.r[k] = sc.lc[k] + sc.lz[k]
	}
	if !normalize(sc.r[:K]) {
		return false
	}
	for i := range gt.vars {
		if !sc.variableMessage(gt, i, u) {
			return false
		}
	}
	top := math.Inf(-1)
	for k := range K {
		top = math.Max(top, sc.lz[k])
	}
	for k := range K {
		sc.zout[k] = math.Max((sc.lz[k]-top)/u, logFloor)
	}
	if sc.rx != nil {
		sc.rx.b[j] = b // the weight of the last update that went through
	}
	return true
}

// variableMessage sets sc.out[i], the message to union variable i (see
// gateMessages).
func (sc *gateScratch) variableMessage(gt *gate, i int, u float64) bool {
	D1, D2 := sc.mixtureMoments(gt, i)
	m, ok := families.TiltedSite(sc.cav[i], D1, D2, u)
	sc.out[i] = m
	return ok
}

// mixtureMoments returns D1 and D2 of union variable i: the tilted mixture's
// mean and variance of x_i are m_i + v_i D1 and v_i + v_i² D2 (see
// gateMessages), from the responsibilities sc.r and the branches' d1, d2.
func (sc *gateScratch) mixtureMoments(gt *gate, i int) (D1, D2 float64) {
	for k := range gt.branches {
		D1 += sc.r[k] * sc.slope(gt, k, i) * sc.d1[k]
	}
	for k := range gt.branches {
		d1k, d2k := families.MemberDerivs(sc.slope(gt, k, i), sc.d1[k], sc.d2[k])
		d := d1k - D1
		D2 += sc.r[k] * (d2k + d*d)
	}
	return D1, D2
}

// slope returns the coefficient of union variable i in branch k (0 when the
// branch does not touch it).
func (sc *gateScratch) slope(gt *gate, k, i int) float64 {
	for e, p := range gt.pos[k] {
		if p == i {
			return gt.branches[k].Coefs[e]
		}
	}
	return 0
}

// branchTilted is the branch's Likelihood.Tilted on its projection
// cavity N(mf, vf). A branch on no variable (vf = 0) is the constant
// f(y | c)^u: its log Z is u log f(y | c) from the log-density (the closed
// forms of some likelihoods, such as step's, divide by √vf), and its
// derivatives multiply no variable.
func branchTilted(br Branch, y, mf, vf, u float64) (logZ, d1, d2 float64) {
	if d, ok := br.Lik.(factor.LogDensity); ok && vf == 0 {
		l, _, _ := d.LogLik(y, mf)
		return u * l, 0, 0
	}
	return br.Lik.Tilted(y, mf, vf, u)
}

// normalize turns log weights into probabilities in place (false when all
// are −∞ or one is NaN).
func normalize(lp []float64) bool {
	l := mathx.LogSumExp(lp)
	if math.IsInf(l, 0) || math.IsNaN(l) {
		return false
	}
	for k, v := range lp {
		lp[k] = math.Exp(v - l)
	}
	return true
}

// setGate replaces gate j's messages by the damped new ones in sc, updating
// the beliefs. Discrete messages are damped geometrically (in the log
// domain, their natural parameters).
func setGate(g *Graph, st *state, j int, out []families.Gaussian, zout []float64, d float64) {
	gt := &g.gates[j]
	gm := st.gates.msgs(j)
	for i, v := range gt.vars {
		old := gm[i]
		m := old.Damp(out[i], d)
		st.belief[v].Prec += m.Prec - old.Prec
		st.belief[v].Shift += m.Shift - old.Shift
		gm[i] = m
	}
	bel, msg := st.gates.bel(gt.z), st.gates.zm(j)
	for k, old := range msg {
		m := families.Damped(old, zout[k], d)
		bel[k] += m - old
		msg[k] = m
	}
}

// gateSweep updates every gate in turn (sequential schedule), stopping
// early when the context is canceled (the caller then discards the sweep).
func (p *passer) gateSweep() {
	for j := range p.g.gates {
		if p.canceled(j) {
			return
		}
		if p.gateUpdate(j) {
			setGate(p.g, p.st, j, p.gs.out, p.gs.zout, p.s.Damping)
		}
	}
}

// gateUpdate computes gate j's messages into p.gs, counting the update or
// the skip.
func (p *passer) gateUpdate(j int) bool {
	if !p.gs.gateMessages(p.g, p.st, j, p.u) {
		p.stats.Skipped++
		p.skippedSweep++
		return false
	}
	p.stats.Updates++
	return true
}

// canceled reports, every 256 gates, whether the run's context is done: a
// relaxed gate update costs a line search of several hundred evaluations.
func (p *passer) canceled(j int) bool {
	return j&0xff == 0 && p.ctx.Err() != nil
}

// gateProposals computes every gate's messages from the same beliefs
// (parallel schedule); ok[j] is false for a skipped gate.
func (p *passer) gateProposals() (out [][]families.Gaussian, zout [][]float64, ok []bool) {
	n := len(p.g.gates)
	out, zout, ok = make([][]families.Gaussian, n), make([][]float64, n), make([]bool, n)
	for j, gt := range p.g.gates {
		if p.canceled(j) {
			return out, zout, ok
		}
		if ok[j] = p.gateUpdate(j); ok[j] {
			out[j] = append([]families.Gaussian(nil), p.gs.out[:len(gt.vars)]...)
			zout[j] = append([]float64(nil), p.gs.zout[:len(gt.branches)]...)
		}
	}
	return out, zout, ok
}

// discreteResidual returns the largest change of a discrete marginal
// probability since prev (flat, as zbel; NaN before the first sweep) and
// records the new marginals in prev.
func discreteResidual(st *state, prev []float64) float64 {
	r := 0.0
	for d := range len(st.gates.doff) - 1 {
		lb := st.gates.bel(d)
		l := mathx.LogSumExp(lb)
		if math.IsInf(l, 0) || math.IsNaN(l) {
			return math.Inf(1)
		}
		pv := prev[st.gates.doff[d]:st.gates.doff[d+1]]
		for k, v := range lb {
			p := math.Exp(v - l)
			r = math.Max(r, math.Abs(p-pv[k]))
			if math.IsNaN(pv[k]) {
				r = math.Inf(1)
			}
			pv[k] = p
		}
	}
	return r
}

// discreteMarginals returns p(z_d = k) from the beliefs.
func discreteMarginals(st *state) [][]float64 {
	out := make([][]float64, len(st.gates.doff)-1)
	for d := range out {
		out[d] = append([]float64(nil), st.gates.bel(d)...)
		normalize(out[d])
	}
	return out
}

// gatesLogZ returns the gates' and discrete variables' terms of the Bethe
// energy (see bethe): per gate, with cavities c_v, c(z) and tilted
// evidences Z_k of the branches (normalised cavities),
//
//	log Z_j = Σ_v logNorm(c_v) + log Σ_k c(k) Z_k                     (u = 1),
//	log Z_j = B_j + (1/u)[log Σ_k c(k) Z_k + Σ_v logNorm(c_v) − B_j]  (power EP),
//
// B_j = Σ_v logNorm(b_v) + log Σ_k b_z(k), and per discrete variable
// (1 − d_z) log Σ_k b_z(k), d_z its number of gates (its prior is a
// factor with one neighbour whose term cancels one of the variable's).
func gatesLogZ(g *Graph, st *state, sc *gateScratch, u float64) (float64, bool) {
	z := 0.0
	for d, z0 := range g.disc {
		z += float64(1-len(z0.gates)) * mathx.LogSumExp(st.gates.bel(d))
	}
	for j := range g.gates {
		if !sc.cavities(g, st, j, u) {
			return 0, false
		}
		gt := &g.gates[j]
		cav := 0.0
		for i := range gt.vars {
			cav += logNorm(sc.cav[i])
		}
		for k, br := range gt.branches {
			lz, _, _ := branchTilted(br, gt.y, sc.mf[k], sc.vf[k], u)
			sc.r[k] = sc.lc[k] + lz
		}
		lzg := mathx.LogSumExp(sc.r[:len(gt.branches)]) + cav
		if u != 1 {
			b := mathx.LogSumExp(st.gates.bel(gt.z))
			for _, v := range gt.vars {
				b += logNorm(st.belief[v])
			}
			lzg = b + (lzg-b)/u
		}
		if !finite(lzg) {
			return 0, false
		}
		z += lzg
	}
	return z, true
}
