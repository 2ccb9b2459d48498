package mcmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/netjoint"
)

// netChain is one chain of RunNet: the point x and its samplers' state.
type netChain struct {
	j    *netjoint.Joint
	rng  *rand.Rand
	x    []float64
	conj []bool // continuous variables whose conditional is in their family
	// width[v][k] is the slice width of v's unconstrained coordinate k;
	// moved[v][k] sums |Δu| over the burn-in window.
	width, moved [][]float64
	window       int
	probs        [][]float64 // discrete variables: the last conditional
	// blocks are the sets of coupled Gaussian variables drawn jointly from
	// their Gaussian conditional (found conjugate at the start); blockOf[v]
	// is v's block or −1
	blocks  []*gaussBlock
	blockOf []int
	u       []float64
	sweeps  int
	updates int
}

// maxSliceSteps bounds the stepping out (m of Neal 2003, Fig. 3) and
// sliceShrinks the shrinkage steps of one slice update (after which the
// coordinate stays put); widthWindow is the burn-in sweeps between two
// width adaptations; ctxEvery the updates between two context checks
// within a sweep.
const (
	maxSliceSteps = 32
	sliceShrinks  = 200
	widthWindow   = 20
	ctxEvery      = 4096
)

// newNetChain starts a chain at a dispersed point of positive density:
// uniform discrete states, continuous coordinates at netjoint's reference
// point moved by U(−1, 1) in their unconstrained coordinates.
func newNetChain(j *netjoint.Joint, rng *rand.Rand) (*netChain, error) {
	n := j.Net
	ch := &netChain{j: j, rng: rng, x: make([]float64, j.Len()), conj: make([]bool, len(n.Vars)),
		width: make([][]float64, len(n.Vars)), moved: make([][]float64, len(n.Vars)), probs: make([][]float64, len(n.Vars))}
	for v, nv := range n.Vars {
		if nv.Family == graph.Discrete {
			ch.probs[v] = make([]float64, nv.Dim)
			continue
		}
		d := netjoint.UDim(nv)
		ch.width[v], ch.moved[v] = make([]float64, d), make([]float64, d)
		for k := range ch.width[v] {
			ch.width[v][k] = 1
		}
		ch.u = make([]float64, max(len(ch.u), d))
	}
	for try := 0; !ch.repaired(); try++ {
		if try == 100 {
			return nil, fmt.Errorf("mcmc: found no starting point of positive density in 100 tries")
		}
	}
	for v, nv := range n.Vars {
		if nv.Family != graph.Discrete {
			eta, _, err := j.FitFamily(n.FactorsOf(v), v, ch.x)
			ch.conj[v] = err == nil && families.For(nv.Family, nv.Dim).Proper(eta)
		}
	}
	ch.findBlocks()
	return ch, nil
}

// repaired disperses the chain's point and, while its density is zero,
// redraws the discrete states one at a time from their conditionals
// (where any state has positive probability): a chain with forbidden
// transitions is then started on an allowed path. It reports whether the
// point has positive density.
func (ch *netChain) repaired() bool {
	ch.disperse()
	for sweep := 0; sweep < 10; sweep++ {
		if l := ch.j.Log(ch.x); !math.IsNaN(l) && !math.IsInf(l, 0) {
			return true
		}
		for v, nv := range ch.j.Net.Vars {
			if nv.Family == graph.Discrete {
				ch.discrete(v, ch.j.Net.FactorsOf(v)) // an error leaves the state as it is
			}
		}
	}
	return false
}

func (ch *netChain) disperse() {
	ch.j.Reference(ch.x)
	for v, nv := range ch.j.Net.Vars {
		th := ch.j.Value(v, ch.x)
		if nv.Family == graph.Discrete {
			th[0] = float64(ch.rng.IntN(nv.Dim))
			continue
		}
		u := ch.u[:netjoint.UDim(nv)]
		netjoint.ToU(nv.Family, th, u)
		for k := range u {
			u[k] += 2*ch.rng.Float64() - 1
		}
		netjoint.FromU(nv.Family, u, th)
	}
}

func (ch *netChain) conjugateCount() int {
	c := 0
	for v, b := range ch.conj {
		if b || ch.blockOf[v] >= 0 {
			c++
		}
	}
	return c
}

// alloc makes the chain's record: q quantities of n draws.
func (ch *netChain) alloc(q, n int) [][]float64 {
	out := make([][]float64, q)
	for i := range out {
		out[i] = make([]float64, 0, n)
	}
	return out
}

// record appends the current draw: each continuous coordinate, each
// discrete state's conditional probability.
func (ch *netChain) record(out [][]float64) {
	q := 0
	for v := range ch.j.Net.Vars {
		vals := ch.probs[v]
		if vals == nil {
			vals = ch.j.Value(v, ch.x)
		}
		for _, a := range vals {
			out[q] = append(out[q], a)
			q++
		}
	}
}

// run performs the chain's sweeps, checking ctx once per sweep.
func (ch *netChain) run(ctx context.Context, r runLength, out [][]float64, tk *ticker) error {
	for it := 0; it < r.iterations(); it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		burnin := it < r.burnin
		for v := range ch.j.Net.Vars {
			if v%ctxEvery == ctxEvery-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var err error
			switch b := ch.blockOf[v]; {
			case b < 0:
				err = ch.update(v, burnin)
			case ch.blocks[b].vars[0] == v:
				err = ch.drawBlock(b, burnin)
			}
			if err != nil {
				return err
			}
		}
		if burnin {
			ch.adapt()
		}
		ch.sweeps++
		tk.tick()
		if !burnin {
			ch.record(out)
		}
	}
	return nil
}

// update draws variable v from its full conditional.
func (ch *netChain) update(v int, burnin bool) error {
	ch.updates++
	nv := ch.j.Net.Vars[v]
	fs := ch.j.Net.FactorsOf(v)
	if nv.Family == graph.Discrete {
		return ch.discrete(v, fs)
	}
	if ch.conj[v] {
		sp := families.For(nv.Family, nv.Dim)
		if eta, _, err := ch.j.FitFamily(fs, v, ch.x); err == nil && sp.Proper(eta) {
			netjoint.Draw(nv.Family, sp.Params(eta), ch.rng, ch.j.Value(v, ch.x))
			return nil
		}
	}
	for k := range ch.width[v] {
		if err := ch.slice(v, k, fs, burnin); err != nil {
			return err
		}
	}
	return nil
}

// discrete draws a discrete variable from p(z_v = s | rest) and keeps the
// probabilities for the Rao–Blackwellised marginals.
func (ch *netChain) discrete(v int, fs []int) error {
	off := ch.j.Off(v)
	lp := ch.probs[v]
	for s := range lp {
		ch.x[off] = float64(s)
		lp[s] = ch.j.LogOf(fs, ch.x)
		if math.IsNaN(lp[s]) || math.IsInf(lp[s], 1) {
			return fmt.Errorf("mcmc: %s = %d: log density %v", ch.j.Net.Vars[v].Name, s, lp[s])
		}
	}
	if !normaliseLog(lp) {
		return fmt.Errorf("mcmc: %s: every state has zero probability given the others", ch.j.Net.Vars[v].Name)
	}
	ch.x[off] = float64(draw(ch.rng, lp))
	return nil
}

// slice updates unconstrained coordinate k of v by slice sampling with
// stepping out and shrinkage on log p(u) = Σ_{f ∋ v} log f + log |dθ/du|.
func (ch *netChain) slice(v, k int, fs []int, burnin bool) error {
	nv := ch.j.Net.Vars[v]
	th := ch.j.Value(v, ch.x)
	u := ch.u[:netjoint.UDim(nv)]
	netjoint.ToU(nv.Family, th, u)
	logp := func(uk float64) float64 {
		u[k] = uk
		l := netjoint.FromU(nv.Family, u, th) + ch.j.LogOf(fs, ch.x)
		if math.IsNaN(l) {
			return math.Inf(-1)
		}
		return l
	}
	u0 := u[k]
	l0 := logp(u0)
	if math.IsInf(l0, 0) {
		return fmt.Errorf("mcmc: %s: log density %v at the current point", nv.Name, l0)
	}
	level := l0 - ch.rng.ExpFloat64()
	w := ch.width[v][k]
	lo := u0 - w*ch.rng.Float64()
	hi := lo + w
	left := ch.rng.IntN(maxSliceSteps)
	right := maxSliceSteps - 1 - left
	for ; left > 0 && logp(lo) > level; left-- {
		lo -= w
	}
	for ; right > 0 && logp(hi) > level; right-- {
		hi += w
	}
	u1 := u0
	for i := 0; i < sliceShrinks; i++ {
		cand := lo + (hi-lo)*ch.rng.Float64()
		if logp(cand) > level {
			u1 = cand
			break
		}
		if cand < u0 {
			lo = cand
		} else {
			hi = cand
		}
	}
	logp(u1)
	if burnin {
		ch.moved[v][k] += math.Abs(u1 - u0)
	}
	return nil
}

// adapt sets every slice width to twice the mean absolute move of the
// last widthWindow burn-in sweeps (within [1e-6, 1e6]).
func (ch *netChain) adapt() {
	ch.window++
	if ch.window < widthWindow {
		return
	}
	for v := range ch.width {
		for k := range ch.width[v] {
			if m := ch.moved[v][k]; m > 0 {
				ch.width[v][k] = math.Min(math.Max(2*m/float64(ch.window), 1e-6), 1e6)
			}
			ch.moved[v][k] = 0
		}
	}
	ch.window = 0
}
