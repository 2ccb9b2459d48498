package mp

import (
	"fmt"
	"math"
	"sync"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// fstate is one factor's part of the engine state: the variables it
// touches (its slots), its message to each, and its discrete slots.
type fstate struct {
	f      *graph.NetFactor
	ep     factor.EP
	vmp    factor.VMP
	vars   []int       // the variables the factor touches, one slot each
	msg    [][]float64 // the factor's message to each slot, natural parameters
	disc   []int       // the slots of discrete variables
	states int         // the number of joint states of the discrete slots
}

func newFstate(net *graph.Net, i int, spaces []families.Space) *fstate {
	f := &net.Factors[i]
	fs := &fstate{f: f, states: 1}
	fs.ep, _ = f.Kind.(factor.EP)
	fs.vmp, _ = f.Kind.(factor.VMP)
	seen := map[int]bool{}
	for _, e := range f.Edges {
		for _, v := range e.VarsOf() {
			if seen[v] {
				continue
			}
			seen[v] = true
			fs.vars = append(fs.vars, v)
			fs.msg = append(fs.msg, make([]float64, spaces[v].Len()))
			if net.Vars[v].Family == graph.Discrete {
				fs.disc = append(fs.disc, len(fs.vars)-1)
				fs.states *= net.Vars[v].Dim
			}
		}
	}
	return fs
}

// slotOf returns the slot of variable v.
func (fs *fstate) slotOf(v int) int {
	for k, u := range fs.vars {
		if u == v {
			return k
		}
	}
	return -1
}

// arena hands out float64 slices for one factor update, reused by the
// next (the engine updates one factor at a time).
type arena struct{ buf []float64 }

func (a *arena) reset() { a.buf = a.buf[:0] }

func (a *arena) get(n int) []float64 {
	if len(a.buf)+n > cap(a.buf) {
		a.buf = make([]float64, 0, max(2*cap(a.buf), 1024, n)) // slices handed out before stay valid
	}
	a.buf = a.buf[:len(a.buf)+n]
	out := a.buf[len(a.buf)-n:]
	clear(out)
	return out
}

// view is what one update reads of the variables: per slot the cavity (EP)
// or the belief (VMP; the cavity for discrete slots, as BP) in natural
// parameters, with a continuous slot's expected sufficient statistics (nil
// when improper), a Gaussian slot's mean and variance, and a discrete
// slot's normalised log probabilities.
type view struct {
	nat    [][]float64
	ess    [][]float64
	mean   []float64
	vari   []float64
	logp   [][]float64
	state  []int // the state of each slot in the current joint state (discrete slots)
	proper []bool
	logA   []float64 // A(cavity) of each continuous slot (+Inf when improper)
	touch  []bool    // scratch: the slots the current branch touches
}

// look fills the view of factor fs: EP's cavities b − u·m (VMP: the
// beliefs of continuous slots).
func (e *engine) look(fs *fstate, u float64, vmp bool) *view {
	n := len(fs.vars)
	w := &e.view
	w.nat, w.ess, w.logp = resize(w.nat, n), resize(w.ess, n), resize(w.logp, n)
	w.mean, w.vari = resize(w.mean, n), resize(w.vari, n)
	w.state, w.proper = resize(w.state, n), resize(w.proper, n)
	w.logA, w.touch = resize(w.logA, n), resize(w.touch, n)
	for k, v := range fs.vars {
		b, m := e.belief[v], fs.msg[k]
		c := e.arena.get(len(b))
		w.ess[k], w.logp[k], w.proper[k] = nil, nil, false
		disc := e.net.Vars[v].Family == graph.Discrete
		for i := range c {
			switch {
			case vmp && !disc:
				c[i] = b[i]
			case vmp:
				c[i] = b[i] - m[i]
			default:
				c[i] = b[i] - u*m[i]
			}
		}
		w.nat[k] = c
		sp := e.spaces[v]
		w.logA[k] = sp.LogNormalizer(c)
		if disc {
			l := sp.LogNormalizer(c)
			w.logp[k] = e.arena.get(len(c))
			for i := range c {
				w.logp[k][i] = c[i] - l
			}
			w.proper[k] = true
			continue
		}
		if sp.Proper(c) {
			w.proper[k] = true
			w.ess[k] = e.arena.get(len(c))
			sp.ESS(c, w.ess[k])
			if e.net.Vars[v].Family == graph.Gaussian {
				g := families.GaussianOf(c)
				w.mean[k], w.vari[k] = g.Mean(), g.Var()
			}
		}
	}
	return w
}

// branch resolves edge ed of fs in the current joint state: a selection
// becomes its selected branch.
func (fs *fstate) branch(ed graph.Edge, w *view) graph.Edge {
	for ed.Selected {
		k := w.state[fs.slotOf(ed.Sel)]
		name := ed.Name
		ed = ed.Branches[k]
		ed.Name = name
	}
	return ed
}

// stateNums holds the numbers 0, 1, …, factor.MaxDim − 1, made on first
// use (not at start-up: every fg process would pay for it); a discrete
// variable's state k reads as the one-element data stateValue(k).
var stateNums = sync.OnceValue(func() []float64 {
	out := make([]float64, factor.MaxDim)
	for k := range out {
		out[k] = float64(k)
	}
	return out
})

// stateValue is state k as read-only data, a view of stateNums.
func stateValue(k int) []float64 { return stateNums()[k : k+1 : k+1] }

// ins builds the rule's view of fs's edges in the current joint state.
func (e *engine) ins(fs *fstate, w *view, in []factor.In) ([]factor.In, error) {
	clear(in)
	for i, ed := range fs.f.Edges {
		br := fs.branch(ed, w)
		in[i].Name = ed.Name
		if br.IsData() {
			in[i].Data = br.Value
			continue
		}
		if v, ok := br.IsVar(); ok && e.net.Vars[v].Family != graph.Gaussian {
			k := fs.slotOf(v)
			if e.net.Vars[v].Family == graph.Discrete {
				in[i].Data = stateValue(w.state[k])
				continue
			}
			in[i].Fam, in[i].Nat, in[i].ESS = e.net.Vars[v].Family, w.nat[k], w.ess[k]
			continue
		}
		in[i].Fam = graph.Gaussian
		if v, ok := br.IsVar(); ok {
			k := fs.slotOf(v)
			in[i].Nat, in[i].ESS = w.nat[k], w.ess[k]
			continue
		}
		m, s := br.Const, 0.0
		for j, v := range br.Vars {
			k := fs.slotOf(v)
			if !w.proper[k] {
				return nil, fmt.Errorf("%s: improper distribution of %s in an affine argument: %w", ed.Name, e.net.Vars[v].Name, families.ErrImproper)
			}
			c := br.Coefs[j]
			m += c * w.mean[k]
			s += c * c * w.vari[k]
		}
		if !(s > 0) {
			in[i].Data = []float64{m} // every coefficient zero: a constant
			continue
		}
		in[i].Nat, in[i].ESS = e.arena.get(2), e.arena.get(2)
		in[i].Nat[0], in[i].Nat[1] = m/s, -0.5/s
		in[i].ESS[0], in[i].ESS[1] = m, m*m+s
	}
	return in, nil
}

// branchResult is one joint state's rule result.
type branchResult struct {
	logw float64 // log Z_s (EP) or E log f_s (VMP) plus the discrete cavities' log probabilities
	raw  float64 // the same with unnormalised discrete cavities (evidence)
	in   []factor.In
	out  []factor.Out
}

// eval runs the rule on every joint state of fs's discrete slots.
func (e *engine) eval(fs *fstate, w *view, u float64, vmp bool) ([]branchResult, error) {
	if cap(e.res) < fs.states {
		e.res = make([]branchResult, fs.states)
	}
	res := e.res[:fs.states]
	for s := range res {
		r := s
		var lp, raw float64
		for _, k := range fs.disc {
			d := e.net.Vars[fs.vars[k]].Dim
			w.state[k] = r % d
			r /= d
			lp += w.logp[k][w.state[k]]
			raw += w.nat[k][w.state[k]]
		}
		ne := len(fs.f.Edges)
		if cap(res[s].in) < ne {
			res[s].in, res[s].out = make([]factor.In, ne), make([]factor.Out, ne)
		}
		in, err := e.ins(fs, w, res[s].in[:ne])
		if err != nil {
			return nil, err
		}
		out := res[s].out[:ne]
		clear(out)
		var l float64
		if vmp {
			l, err = fs.vmp.VMP(fs.f.Y, in, out)
		} else {
			l, err = fs.ep.EP(fs.f.Y, in, u, out)
		}
		if err != nil {
			return nil, err
		}
		if !vmp {
			x, err := e.unnormalised(fs, w, in)
			if err != nil {
				return nil, err
			}
			l += x
			if math.IsNaN(l) {
				return nil, fmt.Errorf("log normaliser is NaN")
			}
		}
		res[s].logw, res[s].raw, res[s].in, res[s].out = l+lp, l+raw, in, out
	}
	return res, nil
}

// unnormalised is what turns a branch's log normaliser (against the
// unnormalised cavities of the edges it sees, an affine edge as the
// normalised Gaussian of its expression) into log ∫ f_s^u Π_v exp(η_v·T)
// over every continuous variable of the factor: Σ_j A(η_j) − A(η_e) for an
// affine edge's members, and A(η_v) of each variable the branch does not
// touch (another component's mean under a gate). Without it the states of
// a gated factor would be weighted against cavities normalised in some
// branches and not in others.
func (e *engine) unnormalised(fs *fstate, w *view, in []factor.In) (float64, error) {
	clear(w.touch)
	var x float64
	for i, ed := range fs.f.Edges {
		br := fs.branch(ed, w)
		for _, v := range br.Vars {
			w.touch[fs.slotOf(v)] = true
		}
		if _, plain := br.IsVar(); plain || br.IsData() || in[i].Data != nil {
			continue
		}
		for _, v := range br.Vars {
			x += w.logA[fs.slotOf(v)]
		}
		x -= families.GaussianOf(in[i].Nat).LogNormalizer()
	}
	for k, v := range fs.vars {
		if !w.touch[k] && e.net.Vars[v].Family != graph.Discrete {
			x += w.logA[k]
		}
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("an improper cavity on a variable of a gated or affine argument: %w", families.ErrImproper)
	}
	return x, nil
}

// weights normalises the states' log weights; it returns the weights and
// log Σ exp(raw) (the factor's log normaliser against unnormalised
// cavities).
func (e *engine) weights(res []branchResult) ([]float64, float64) {
	w := e.arena.get(len(res))
	if len(res) == 1 { // one state: its weight is one whatever its log normaliser
		w[0] = 1
		return w, res[0].raw
	}
	m, mr := math.Inf(-1), math.Inf(-1)
	for _, r := range res {
		m, mr = max(m, r.logw), max(mr, r.raw)
	}
	var s, sr float64
	for i, r := range res {
		w[i] = math.Exp(r.logw - m)
		s += w[i]
		sr += math.Exp(r.raw - mr)
	}
	for i := range w {
		w[i] /= s
	}
	return w, mr + math.Log(sr)
}

// update recomputes fs's messages (see the package doc) and the beliefs.
func (e *engine) update(fs *fstate) error {
	vmp := e.opt.VMP()
	u := e.opt.Alpha
	if vmp {
		u = 1
	}
	e.arena.reset()
	w := e.look(fs, u, vmp)
	res, err := e.eval(fs, w, u, vmp)
	if err != nil {
		return err
	}
	wts, _ := e.weights(res)
	if math.IsNaN(wts[0]) {
		return fmt.Errorf("the factor's states have no weight")
	}
	next := e.next[:0]
	for k, v := range fs.vars {
		var err error
		var m []float64
		switch {
		case e.net.Vars[v].Family == graph.Discrete:
			m = e.discreteMessage(fs, k, w, wts, u)
		case vmp:
			m, err = e.vmpMessage(fs, k, w, res, wts)
		default:
			m, err = e.epMessage(fs, k, w, res, wts, u)
		}
		next = append(next, m)
		if err != nil {
			return fmt.Errorf("%s: %w", e.net.Vars[v].Name, err)
		}
	}
	e.next = next
	return e.commit(fs, next)
}

// commit damps the new messages into fs (families.Damped, the damping of
// every EP engine) and updates the beliefs; it
// leaves everything unchanged when a continuous belief would become
// improper or a message is not finite.
func (e *engine) commit(fs *fstate, next [][]float64) error {
	d := e.opt.Damping
	nb := e.nb[:0]
	for k, v := range fs.vars {
		b := e.arena.get(len(e.belief[v]))
		for i := range b {
			m := families.Damped(fs.msg[k][i], next[k][i], d)
			if math.IsNaN(m) || math.IsInf(m, 0) {
				return fmt.Errorf("%s: message not finite", e.net.Vars[v].Name)
			}
			next[k][i] = m
			b[i] = e.belief[v][i] + m - fs.msg[k][i]
		}
		if e.net.Vars[v].Family != graph.Discrete && !e.spaces[v].Proper(b) && e.spaces[v].Proper(e.belief[v]) {
			return fmt.Errorf("%s: the belief would become improper (%s): %w", e.net.Vars[v].Name, e.spaces[v].String(b), families.ErrImproper)
		}
		nb = append(nb, b)
	}
	e.nb = nb
	for k, v := range fs.vars {
		copy(fs.msg[k], next[k])
		copy(e.belief[v], nb[k])
	}
	return nil
}

// discreteMessage is sum-product: the factor's marginal on slot k over
// the cavity, (marginal / cavity)^{1/u} in log probabilities.
func (e *engine) discreteMessage(fs *fstate, k int, w *view, wts []float64, u float64) []float64 {
	d := e.net.Vars[fs.vars[k]].Dim
	marg := e.arena.get(d)
	for s, ws := range wts {
		marg[fs.stateOf(e.net, s, k)] += ws
	}
	out := e.arena.get(d)
	for i := range out {
		out[i] = (max(math.Log(marg[i]), families.LogFloor) - max(w.logp[k][i], families.LogFloor)) / u
	}
	return out
}

// stateOf is the state of discrete slot k in joint state s.
func (fs *fstate) stateOf(net *graph.Net, s, k int) int {
	for _, j := range fs.disc {
		d := net.Vars[fs.vars[j]].Dim
		if j == k {
			return s % d
		}
		s /= d
	}
	return 0
}

// member is how slot k enters edge i of a branch: as the edge itself
// (plain), or with coefficient c in an affine edge; ok is false when the
// branch does not touch it.
func (e *engine) member(fs *fstate, w *view, i, k int) (c float64, plain, ok bool) {
	br := fs.branch(fs.f.Edges[i], w)
	if v, isVar := br.IsVar(); isVar {
		return 1, true, v == fs.vars[k]
	}
	for j, v := range br.Vars {
		if v == fs.vars[k] {
			return br.Coefs[j], false, true
		}
	}
	return 0, false, false
}

// epMessage is the EP message to continuous slot k: the w-mixture of the
// branches' tilted distributions of the variable (its cavity where a
// branch does not touch it), projected onto its family, divided by the
// cavity, to the power 1/u. With one state and a rule that returned the
// tilted distribution exactly (a conjugate edge, a Gaussian edge) no
// projection is needed.
func (e *engine) epMessage(fs *fstate, k int, w *view, res []branchResult, wts []float64, u float64) ([]float64, error) {
	v := fs.vars[k]
	sp := e.spaces[v]
	n := sp.Len()
	acc := make([]float64, n)
	var exact []float64
	for s, r := range res {
		if wts[s] == 0 {
			continue
		}
		e.setState(fs, w, s)
		ess, nat, err := e.tilted(fs, k, w, r)
		if err != nil {
			return nil, err
		}
		if len(res) == 1 && nat != nil {
			exact = nat
			break
		}
		for i := range acc {
			acc[i] += wts[s] * ess[i]
		}
	}
	tilt := exact
	if tilt == nil {
		tilt = make([]float64, n)
		if err := sp.Project(acc, tilt); err != nil {
			return nil, err
		}
	}
	out := make([]float64, n)
	families.SiteMessage(out, tilt, w.nat[k], u)
	return out, nil
}

// setState sets the view's discrete states to joint state s.
func (e *engine) setState(fs *fstate, w *view, s int) {
	for _, k := range fs.disc {
		d := e.net.Vars[fs.vars[k]].Dim
		w.state[k] = s % d
		s /= d
	}
}

// tilted is slot k's tilted distribution in one branch: its expected
// sufficient statistics and, where exact, natural parameters.
func (e *engine) tilted(fs *fstate, k int, w *view, r branchResult) (ess, nat []float64, err error) {
	for i := range r.in {
		c, plain, ok := e.member(fs, w, i, k)
		if !ok {
			continue
		}
		o := r.out[i]
		if plain {
			if o.ESS == nil {
				return nil, nil, fmt.Errorf("no tilted moments on %s", r.in[i].Name)
			}
			return o.ESS, o.Nat, nil
		}
		// a member of an affine Gaussian edge: x = m + c v (e − m_e)/v_e + noise
		me, ve := r.in[i].ESS[0], 1/(-2*r.in[i].Nat[1])
		em := o.ESS[0]
		vm := o.ESS[1] - em*em
		if o.Nat != nil {
			g := families.GaussianOf(o.Nat)
			em, vm = g.Mean(), g.Var()
		}
		mj, vj := w.mean[k], w.vari[k]
		mean := mj + c*vj*(em-me)/ve
		variance := vj + c*c*vj*vj*(vm-ve)/(ve*ve)
		g, err := families.NewGaussian(mean, variance)
		if err != nil {
			return nil, nil, err
		}
		return []float64{mean, mean*mean + variance}, g.Natural(), nil
	}
	return w.ess[k], w.nat[k], nil // the branch does not touch the variable: its cavity
}

// vmpMessage is the VMP message to continuous slot k: the w-weighted sum
// of the branches' messages (a Gaussian member of an affine edge gets
// (c(η₁ + 2η₂ E r), c² η₂), r = e − c x).
func (e *engine) vmpMessage(fs *fstate, k int, w *view, res []branchResult, wts []float64) ([]float64, error) {
	out := make([]float64, e.spaces[fs.vars[k]].Len())
	for s, r := range res {
		if wts[s] == 0 {
			continue
		}
		e.setState(fs, w, s)
		for i := range r.in {
			c, plain, ok := e.member(fs, w, i, k)
			if !ok {
				continue
			}
			m := r.out[i].Nat
			if m == nil {
				return nil, fmt.Errorf("no message on %s", r.in[i].Name)
			}
			if plain {
				for j := range out {
					out[j] += wts[s] * m[j]
				}
				continue
			}
			er := r.in[i].ESS[0] - c*w.mean[k]
			out[0] += wts[s] * c * (m[0] + 2*m[1]*er)
			out[1] += wts[s] * c * c * m[1]
		}
	}
	return out, nil
}

// resize returns s with length n, reallocated only when too short.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
