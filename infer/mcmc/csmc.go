package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// csmc is one chain of RunChain: a system of P particles over the n steps
// of a chainModel and the reference path, the chain's state.
//
// A sweep (Andrieu, Doucet & Holenstein 2010, §2.4, conditional SMC; with
// backward simulation, Lindsten & Schön 2013, §5.1) runs forward over
// t = 0 … n−1: particle 0 follows the reference path; at the steps the
// resampling schedule names (chainModel.schedule) every other particle
// draws an ancestor from the weights of step t−1 (multinomially) and its
// weight restarts, elsewhere it keeps its own path and weight; it extends
// the path by the Gaussian transition, and its weight gains the sites that
// end at t. It then draws the new reference
// backwards: the last step's particle by its weight, and at each earlier
// t a particle i with probability proportional to
//
//	w_t^i · Π_{s=t+1..t+k} N-transition(d*_s | window of path i and d*) · Π_{sites over t and later} L,
//
// the particle approximation of p(x_t | x*_{t+1:n}) for an order-k Markov
// chain. With no reference (start) the same pass is plain SMC with
// backward simulation, a draw from an approximation of the posterior.
type csmc struct {
	m      *chainModel
	parts  int
	rng    *rand.Rand
	x      []float64 // x[t·P + i]: particle i's d_t
	anc    []int32   // anc[t·P + i]: its ancestor at t − 1
	logw   []float64 // logw[t·P + i]: the log of the sites that end at t
	ref    []float64 // the reference path d (has: set)
	has    bool
	win    []float64 // a path's last values, win[l] = d_{t−l}
	lw, cw []float64 // per particle: log weights, cumulative weights
	u      []float64 // sorted uniforms of a resampling
	state  []float64 // x = d + μ, the kept draw
	evals  int
	sweeps int
	// deg[t] sums the weight degeneracy of step t's sites over the
	// sweeps of the adaptation window (see schedule).
	deg   []float64
	swept int
}

func newCSMC(m *chainModel, parts int, rng *rand.Rand) *csmc {
	n := m.n
	return &csmc{m: m, parts: parts, rng: rng, x: make([]float64, n*parts), anc: make([]int32, n*parts),
		logw: make([]float64, n*parts), ref: make([]float64, n), win: make([]float64, m.k+1),
		lw: make([]float64, parts), cw: make([]float64, parts), u: make([]float64, parts), state: make([]float64, n)}
}

// cancelSteps is how many steps of a pass run between two context checks.
const cancelSteps = 1 << 12

// maxStarts bounds the unconditional passes start tries.
const maxStarts = 100

// errNoParticle is a pass at whose step every particle has zero likelihood.
var errNoParticle = errors.New("every particle has zero likelihood")

// start draws the first reference by SMC without one, retrying when every
// particle of a step has zero likelihood (noise-free step sites).
func (c *csmc) start(ctx context.Context) error {
	for range maxStarts {
		err := c.sweep(ctx)
		if !errors.Is(err, errNoParticle) {
			return err
		}
	}
	return ErrNoStart
}

// run performs n sweeps, appending every thin-th state to out[j] (out nil:
// none kept).
func (c *csmc) run(ctx context.Context, n, thin int, tk *ticker, out [][]float64) error {
	for it := 0; it < n; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.sweep(ctx); err != nil {
			if errors.Is(err, errNoParticle) { // cannot happen with a reference of positive likelihood
				err = fmt.Errorf("mcmc: internal error: %w with a reference path", err)
			}
			return err
		}
		tk.tick()
		if out != nil && (it+1)%thin == 0 {
			for j, v := range c.state {
				out[j] = append(out[j], v)
			}
		}
	}
	return nil
}

// sweep draws a new reference path: forward, then backward; without
// sites, an exact draw of the Gaussian.
func (c *csmc) sweep(ctx context.Context) error {
	if len(c.m.sites) == 0 {
		if err := c.draw(ctx); err != nil {
			return err
		}
	} else {
		if err := c.forward(ctx); err != nil {
			return err
		}
		if err := c.backward(ctx); err != nil {
			return err
		}
		c.has = true
		if err := c.blockMoves(ctx); err != nil {
			return err
		}
	}
	c.has = true
	c.sweeps++
	for t, d := range c.ref {
		c.state[t] = d + c.m.mu[t]
	}
	return nil
}

// draw sets the reference to an exact draw of the Gaussian, step by step
// from its transitions.
func (c *csmc) draw(ctx context.Context) error {
	m, k := c.m, c.m.k
	for t := range m.n {
		if t%cancelSteps == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		mean := 0.0
		for l := 1; l <= min(k, t); l++ {
			mean -= m.u[t*k+l-1] * c.ref[t-l]
		}
		c.ref[t] = (mean + c.rng.NormFloat64()) / m.u0[t]
	}
	return nil
}

// window fills c.win with the path that ends at particle i of step t:
// win[l] = d_{t−l} for l ≤ min(k, t) (ancestors followed back), zero
// before t = 0 (whose coefficients are zero).
func (c *csmc) window(t, i int) {
	P := c.parts
	for l := range c.win {
		if l > t {
			c.win[l] = 0
			continue
		}
		c.win[l] = c.x[(t-l)*P+i]
		if l < len(c.win)-1 && l < t {
			i = int(c.anc[(t-l)*P+i])
		}
	}
}

// forward runs the (conditional) SMC pass.
func (c *csmc) forward(ctx context.Context) error {
	m, P, k := c.m, c.parts, c.m.k
	for t := range m.n {
		if t%cancelSteps == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		row := t * P
		carry := t > 0
		if t > 0 && c.resampleAt(t) {
			if err := c.resample(t); err != nil {
				return err
			}
			carry = false
		} else {
			for i := range P {
				c.anc[row+i] = int32(i)
			}
		}
		live := false
		for i := range P {
			if t > 0 {
				c.window(t-1, int(c.anc[row+i]))
				copy(c.win[1:], c.win[:k]) // win[l] = d_{t−l}
			}
			mean := 0.0
			for l := 1; l <= min(k, t); l++ {
				mean -= m.u[t*k+l-1] * c.win[l]
			}
			d := (mean + c.rng.NormFloat64()) / m.u0[t]
			if i == 0 && c.has {
				d = c.ref[t]
			}
			c.x[row+i] = d
			c.win[0] = d
			lw, err := c.sitesAt(t)
			if err != nil {
				return err
			}
			c.lw[i] = lw
			if carry {
				lw += c.logw[row-P+i]
			}
			c.logw[row+i] = lw
			live = live || !math.IsInf(lw, -1)
		}
		if !live {
			return errNoParticle
		}
		if m.sched == nil && c.deg != nil && m.at[t+1] > m.at[t] {
			c.deg[t] += min(degeneracy(c.lw), math.Log(float64(P)))
		}
	}
	if c.deg != nil {
		c.swept++
	}
	return nil
}

// resampleAt reports whether step t starts by resampling: by the fixed
// schedule, or while it is being learnt (adaptation window) when the
// weights of step t−1 have an effective sample size below half the
// particles.
func (c *csmc) resampleAt(t int) bool {
	if c.m.sched != nil {
		return c.m.sched[t]
	}
	return c.m.at[t] > c.m.at[t-1] && degeneracy(c.logw[(t-1)*c.parts:t*c.parts]) > math.Ln2
}

// degeneracy is log P − log ESS of the log-weights lw, ESS = (Σ w)²/Σ w²
// (Kong, Liu & Wong 1994): 0 for equal weights, log P for one particle.
func degeneracy(lw []float64) float64 {
	top := math.Inf(-1)
	for _, v := range lw {
		top = max(top, v)
	}
	if math.IsInf(top, -1) {
		return math.Inf(1)
	}
	s, s2 := 0.0, 0.0
	for _, v := range lw {
		w := math.Exp(v - top)
		s, s2 = s+w, s2+w*w
	}
	return math.Log(float64(len(lw))) - math.Log(s*s/s2)
}

// sitesAt is the log of the sites that end at t on the path in c.win.
func (c *csmc) sitesAt(t int) (float64, error) {
	m := c.m
	s := 0.0
	for j := m.at[t]; j < m.at[t+1]; j++ {
		site := &m.sites[j]
		f := site.c
		for e, v := range site.vars {
			f += site.coefs[e] * c.win[t-v]
		}
		v, err := c.loglik(site, f)
		if err != nil {
			return 0, err
		}
		s += v
	}
	return s, nil
}

func (c *csmc) loglik(s *modelSite, f float64) (float64, error) {
	c.evals++
	v := s.loglik(f)
	if math.IsNaN(v) || math.IsInf(v, 1) {
		return 0, fmt.Errorf("mcmc: a site's log-likelihood is %v at projection %v", v, f)
	}
	return v, nil
}

// resample draws the ancestors of step t from the weights of step t−1:
// multinomially, by P sorted uniforms (normalised exponential spacings)
// merged with the cumulative weights; particle 0 keeps the reference's
// ancestor, 0, when there is a reference.
func (c *csmc) resample(t int) error {
	P := c.parts
	if err := c.cumulate(c.logw[(t-1)*P : t*P]); err != nil {
		return err
	}
	first := 0
	if c.has {
		c.anc[t*P] = 0
		first = 1
	}
	draws := c.u[:P-first]
	s := 0.0
	for i := range draws {
		s += c.rng.ExpFloat64()
		draws[i] = s
	}
	s += c.rng.ExpFloat64()
	a := 0
	for i, u := range draws {
		for a < P-1 && c.cw[a] < u/s {
			a++
		}
		c.anc[t*P+first+i] = int32(a)
	}
	return nil
}

// cumulate sets c.cw to the normalised cumulative weights of log-weights
// lw (errNoParticle when all are zero).
func (c *csmc) cumulate(lw []float64) error {
	top := math.Inf(-1)
	for _, v := range lw {
		top = max(top, v)
	}
	if math.IsInf(top, -1) {
		return errNoParticle
	}
	s := 0.0
	for i, v := range lw {
		s += math.Exp(v - top)
		c.cw[i] = s
	}
	for i := range c.cw {
		c.cw[i] /= s
	}
	return nil
}

// pick draws an index from the log-weights lw.
func (c *csmc) pick(lw []float64) (int, error) {
	if err := c.cumulate(lw); err != nil {
		return 0, err
	}
	u := c.rng.Float64()
	for i, v := range c.cw {
		if u < v {
			return i, nil
		}
	}
	return len(c.cw) - 1, nil
}

// backward draws the new reference path from the particles (see csmc).
func (c *csmc) backward(ctx context.Context) error {
	m, P, n := c.m, c.parts, c.m.n
	b, err := c.pick(c.logw[(n-1)*P:])
	if err != nil {
		return err
	}
	c.ref[n-1] = c.x[(n-1)*P+b]
	for t := n - 2; t >= 0; t-- {
		if t%cancelSteps == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for i := range P {
			c.window(t, i)
			lw := c.logw[t*P+i] + c.transitionsAfter(t)
			for _, j := range m.links[m.linkAt[t]:m.linkAt[t+1]] {
				v, err := c.link(&m.sites[j], t)
				if err != nil {
					return err
				}
				lw += v
			}
			c.lw[i] = lw
		}
		if b, err = c.pick(c.lw); err != nil {
			return err
		}
		c.ref[t] = c.x[t*P+b]
	}
	return nil
}

// at is d_v on the path made of c.win up to t and the reference after it.
func (c *csmc) at(v, t int) float64 {
	if v > t {
		return c.ref[v]
	}
	return c.win[t-v]
}

// transitionsAfter is the log of the Gaussian transitions of steps t+1 …
// t+k to the reference, from the path in c.win up to t.
func (c *csmc) transitionsAfter(t int) float64 {
	m, k := c.m, c.m.k
	s := 0.0
	for st := t + 1; st <= min(t+k, m.n-1); st++ {
		r := m.u0[st] * c.ref[st]
		for l := 1; l <= min(k, st); l++ {
			r += m.u[st*k+l-1] * c.at(st-l, t)
		}
		s -= 0.5 * r * r
	}
	return s
}

// link is the log of a site over t and later variables on the path in
// c.win up to t and the reference after it.
func (c *csmc) link(s *modelSite, t int) (float64, error) {
	f := s.c
	for e, v := range s.vars {
		f += s.coefs[e] * c.at(v, t)
	}
	return c.loglik(s, f)
}
