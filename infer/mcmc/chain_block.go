package mcmc

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Block moves: a sweep of particle Gibbs redraws every element, but where
// thousands of steps carry almost no information (the saturated labels of
// a probit walk that drifts far from zero) the backward pass can only
// follow particles near the path it extends, and the slow, long-range
// shape of the path — a bridge hundreds of steps long, held on one side of
// zero — moves little per sweep. After each particle Gibbs sweep, every
// block of a partition of the chain into blocks of L = 64, 128, …
// elements (each scale up to the chain's length, at a random offset) is
// updated by elliptical slice sampling (Murray, Adams & MacKay 2010) with
// the block's exact Gaussian conditional given the rest as the prior —
// the linear-Gaussian factors that touch it, with the other elements
// fixed, on the band (foldFactors, netjoint.RootBand) — and the sites that touch it
// as the likelihood. Where the sites are flat the ellipse accepts large
// moves of the whole block; where they are informative it shrinks towards
// the current state and particle Gibbs does the work. Each move leaves the
// posterior invariant, and so does their composition with the sweep.

// minBlock is the shortest block of the block moves.
const minBlock = 64

// blockFactors indexes the linear-Gaussian factors by their first
// variable: fs[at[t]:at[t+1]] start at t.
type blockFactors struct {
	fs []LinearFactor
	at []int
}

func newBlockFactors(n int, gs []LinearFactor) *blockFactors {
	b := &blockFactors{fs: slices.Clone(gs), at: make([]int, n+1)}
	lo := func(f LinearFactor) int {
		if len(f.Vars) == 0 {
			return 0
		}
		return slices.Min(f.Vars)
	}
	slices.SortStableFunc(b.fs, func(x, y LinearFactor) int { return lo(x) - lo(y) })
	for _, f := range b.fs {
		b.at[lo(f)+1]++
	}
	for t := range n {
		b.at[t+1] += b.at[t]
	}
	return b
}

// blockMoves runs the block moves on the chain's reference path.
func (c *csmc) blockMoves(ctx context.Context) error {
	m := c.m
	for L := minBlock; L < 2*m.n && L >= minBlock; L *= 2 {
		off := -c.rng.IntN(L)
		for a := off; a < m.n; a += L {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := c.blockMove(max(a, 0), min(a+L, m.n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// blockMove is one elliptical slice step on the elements [a, b).
func (c *csmc) blockMove(a, b int) error {
	m, L := c.m, b-a
	if L < 2 {
		return nil
	}
	bf := m.factors
	rb, err := foldFactors(context.Background(), bf.fs[bf.at[max(a-m.k, 0)]:bf.at[b]], L, m.k, func(v int) int {
		if v < a || v >= b {
			return -1
		}
		return v - a
	}, func(v int) float64 { return c.ref[v] + m.mu[v] })
	if err != nil {
		return err
	}
	mean, err := rb.Mean()
	if err != nil {
		return fmt.Errorf("mcmc: a block's Gaussian conditional: %w", err)
	}
	cur := make([]float64, L)
	nu := make([]float64, L)
	rb.Draw(c.rng, nu)
	for i := range cur {
		cur[i] = c.ref[a+i] + m.mu[a+i] - mean[i] // centred on the conditional mean
	}
	sites := m.sites[m.at[a]:m.at[min(b-1+m.k, m.n-1)+1]]
	ll, err := c.blockLogLik(sites, b)
	if err != nil {
		return err
	}
	_, err = ellipticalSlice(c.rng, ll, func(cs, sn float64) (float64, error) {
		for i := range cur {
			c.ref[a+i] = mean[i] + cur[i]*cs + nu[i]*sn - m.mu[a+i]
		}
		return c.blockLogLik(sites, b)
	})
	if errors.Is(err, errShrank) {
		return fmt.Errorf("mcmc: a block's elliptical slice bracket shrank %d times without acceptance", maxShrink)
	}
	return err
}

// blockLogLik is the log of the sites (of those given) that touch
// elements before b, on the reference path.
func (c *csmc) blockLogLik(sites []modelSite, b int) (float64, error) {
	s := 0.0
	for j := range sites {
		site := &sites[j]
		if site.lo >= b {
			continue
		}
		f := site.c
		for e, v := range site.vars {
			f += site.coefs[e] * c.ref[v]
		}
		v, err := c.loglik(site, f)
		if err != nil {
			return 0, err
		}
		s += v
	}
	return s, nil
}
