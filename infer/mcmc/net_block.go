package mcmc

import (
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer/netjoint"
)

// maxJointBlock bounds the Gaussian variables drawn jointly with a dense
// precision (its Cholesky factor each sweep); larger sets that are not a
// band are drawn one at a time.
const maxJointBlock = 200

// gaussBlock is a set of coupled Gaussian variables drawn jointly from
// their Gaussian conditional: the factors that touch them, each fitted as
// a quadratic in the block's variables with the others fixed
// (netjoint.FitFactor), summed into a netjoint.GaussBlock (banded for a
// chain), which gives the conditional mean and a draw.
type gaussBlock struct {
	vars, fs []int
	pos      map[int]int // variable → place in vars
	free     []bool      // the block's variables
	g        *netjoint.GaussBlock
}

// findBlocks marks the sets of two or more coupled Gaussian variables whose
// joint conditional is Gaussian at the starting point for blocked Gibbs:
// a regression's correlated weights, or a chain's states, are then drawn
// together instead of one at a time.
func (ch *netChain) findBlocks() {
	n := ch.j.Net
	ch.blockOf = make([]int, len(n.Vars))
	for v := range ch.blockOf {
		ch.blockOf[v] = -1
	}
	sets := n.Components(func(v int) bool { return n.Vars[v].Family == graph.Gaussian })
	bands := netjoint.Bandwidths(n, sets)
	for s, vars := range sets {
		if len(vars) < 2 {
			continue
		}
		b := &gaussBlock{vars: vars, pos: map[int]int{}, free: make([]bool, len(n.Vars)), g: netjoint.NewGaussBlock(len(vars), bands[s])}
		if b.g.Dense() && len(vars) > maxJointBlock {
			continue
		}
		seen := map[int]bool{}
		for i, v := range vars {
			b.pos[v], b.free[v] = i, true
			for _, f := range n.FactorsOf(v) {
				if !seen[f] {
					seen[f] = true
					b.fs = append(b.fs, f)
				}
			}
		}
		if _, err := ch.conditional(b); err != nil {
			continue
		}
		for _, v := range vars {
			ch.blockOf[v] = len(ch.blocks)
		}
		ch.blocks = append(ch.blocks, b)
	}
}

// conditional fits the block's factors at the current point and returns
// the conditional mean (the block's GaussBlock is then factored for Draw).
func (ch *netChain) conditional(b *gaussBlock) ([]float64, error) {
	b.g.Zero()
	for _, fi := range b.fs {
		c, err := ch.j.FitFactor(fi, b.free, ch.x)
		if err != nil {
			return nil, err
		}
		n := len(c.Gauss)
		for i, v := range c.Gauss {
			pi := b.pos[v]
			b.g.B[pi] += c.B[i]
			for k, u := range c.Gauss {
				if pk := b.pos[u]; pk >= pi {
					b.g.Add(pi, pk, c.P[i*n+k])
				}
			}
		}
	}
	_, mean, _, err := b.g.Integrate()
	return mean, err
}

// drawBlock draws block b from its Gaussian conditional. Should the fit
// fail at this point, the block's variables are updated one at a time.
func (ch *netChain) drawBlock(bi int, burnin bool) error {
	b := ch.blocks[bi]
	mean, err := ch.conditional(b)
	if err == nil {
		err = b.g.Draw(ch.rng, mean)
	}
	if err != nil {
		for _, v := range b.vars {
			if err := ch.update(v, burnin); err != nil {
				return err
			}
		}
		return nil
	}
	ch.updates += len(b.vars)
	for i, v := range b.vars {
		ch.x[ch.j.Off(v)] = mean[i]
	}
	return nil
}
