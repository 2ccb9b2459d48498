package mcmc

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/fg-infer/fg/infer"
)

// gibbsChain is one Gibbs chain: the current joint state x.
type gibbsChain struct {
	m       *gibbsModel
	s       *GibbsSettings
	rng     *rand.Rand
	x       []int
	p       []float64
	updates int
	sweeps  int
}

// start sets the initial state: Init[c]; with Dispersed, variables in id
// order uniformly among the states that keep the partial product positive;
// otherwise a forward draw from the partial conditionals (factors whose
// other variables are all set). It fails if some variable has no feasible
// state.
func (ch *gibbsChain) start(c int) error {
	maxCard := 1
	for _, k := range ch.m.card {
		maxCard = max(maxCard, k)
	}
	ch.p = make([]float64, maxCard)
	if ch.s.Init != nil {
		copy(ch.x, ch.s.Init[c])
		return nil
	}
	unset := make([]bool, len(ch.x))
	for v := range unset {
		unset[v] = true
	}
	for v := range ch.x {
		p := ch.p[:ch.m.card[v]]
		if !ch.m.conditional(ch.x, v, p, unset) {
			return fmt.Errorf("mcmc: chain %d: no state of variable %d is compatible with the states chosen before it", c, v)
		}
		if ch.s.Dispersed {
			uniformOnSupport(p)
		}
		ch.x[v] = draw(ch.rng, p)
		unset[v] = false
	}
	return nil
}

// uniformOnSupport replaces p by the uniform distribution on {s: p[s] > 0}.
func uniformOnSupport(p []float64) {
	k := 0
	for _, q := range p {
		if q > 0 {
			k++
		}
	}
	for s, q := range p {
		if q > 0 {
			p[s] = 1 / float64(k)
		}
	}
}

// alloc returns the draw buffers [var][state][0:0] with capacity n.
func (ch *gibbsChain) alloc(n int) [][][]float64 {
	out := make([][][]float64, len(ch.m.card))
	for v, k := range ch.m.card {
		out[v] = make([][]float64, k)
		for s := range out[v] {
			if k == 2 && s == 0 {
				continue // binary: p(x_v = 0) = 1 − p(x_v = 1) is not stored
			}
			out[v][s] = make([]float64, 0, n)
		}
	}
	return out
}

// update resamples variable v from its full conditional.
func (ch *gibbsChain) update(v int) error {
	p := ch.p[:ch.m.card[v]]
	if !ch.m.conditional(ch.x, v, p, nil) {
		return fmt.Errorf("mcmc: variable %d has no state of positive probability given the others", v)
	}
	ch.x[v] = draw(ch.rng, p)
	ch.updates++
	return nil
}

// sweep performs one systematic or random-scan sweep.
func (ch *gibbsChain) sweep() error {
	n := len(ch.x)
	for i := 0; i < n; i++ {
		v := i
		if ch.s.Schedule == infer.Random {
			v = ch.rng.IntN(n)
		}
		if err := ch.update(v); err != nil {
			return err
		}
	}
	return nil
}

// record appends the per-sweep estimates of every p(x_v = s): the full
// conditional given the current state (Rao–Blackwell) or the indicator.
func (ch *gibbsChain) record(out [][][]float64) {
	for v := range ch.x {
		p := ch.p[:ch.m.card[v]]
		if ch.s.Indicators {
			for s := range p {
				p[s] = 0
			}
			p[ch.x[v]] = 1
		} else {
			ch.m.conditional(ch.x, v, p, nil)
		}
		for s, q := range p {
			if out[v][s] != nil {
				out[v][s] = append(out[v][s], q)
			}
		}
	}
}

// run performs the chain's sweeps, checking ctx once per sweep.
func (ch *gibbsChain) run(ctx context.Context, r runLength, out [][][]float64, tk *ticker) error {
	for it := 0; it < r.iterations(); it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := ch.sweep(); err != nil {
			return err
		}
		ch.sweeps++
		tk.tick()
		if k := it - r.burnin; k >= 0 && (k+1)%r.thin == 0 {
			ch.record(out)
		}
	}
	return nil
}
