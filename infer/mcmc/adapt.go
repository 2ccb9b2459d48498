package mcmc

import (
	"context"

	"github.com/fg-infer/fg/infer"
)

// maxAdaptWindow bounds the draws per chain that one adaptation window
// keeps (its memory is chains × window × dimension, also held within
// infer.KeptDrawsLimit).
const maxAdaptWindow = 2500

// adaptBurnin runs the r.burnin warm-up iterations of every chain. With
// adapt, the first two quarters are adaptation windows (each at most
// maxAdaptWindow iterations, and only when their pooled draws number at
// least minFitDraws per dimension): after each, the draws of all chains in it are
// pooled and every chain moves on to the ellipses of the Gaussian fitted to
// them (fitEllipse; a failed fit keeps the previous ellipses). The last half
// runs with the final ellipses, so the kept draws come from one fixed
// kernel that leaves the posterior invariant: adaptation is over before
// sampling starts and the chains stay independent given it.
func adaptBurnin(ctx context.Context, chains []*essChain, r runLength, workers int, adapt bool) error {
	rest := r.burnin
	d := len(chains[0].f)
	if adapt {
		w := min(r.burnin/4, maxAdaptWindow, infer.KeptDrawsLimit()/(len(chains)*d))
		for range 2 {
			if w*len(chains) < minFitDraws*(d+1) {
				break
			}
			if err := adaptWindow(ctx, chains, w, workers); err != nil {
				return err
			}
			rest -= w
		}
	}
	return runChains(ctx, len(chains), workers, func(ctx context.Context, c int) error {
		return chains[c].run(ctx, rest, 1, nil)
	})
}

// adaptWindow runs w iterations of every chain, keeping every state, and
// moves the chains to the ellipses fitted to the pooled states.
func adaptWindow(ctx context.Context, chains []*essChain, w, workers int) error {
	d := len(chains[0].f)
	rows := make([][]float64, len(chains)*w)
	err := runChains(ctx, len(chains), workers, func(ctx context.Context, c int) error {
		ch := chains[c]
		flat := make([]float64, w*d)
		for t := 0; t < w; t++ {
			if err := ch.run(ctx, 1, 1, nil); err != nil {
				return err
			}
			rows[c*w+t] = flat[t*d : (t+1)*d]
			copy(rows[c*w+t], ch.f)
		}
		return nil
	})
	if err != nil {
		return err
	}
	q := fitEllipse(rows, chains[0].p.Mean, chains[0].l0)
	if q == nil {
		return nil
	}
	return runChains(ctx, len(chains), workers, func(ctx context.Context, c int) error {
		return chains[c].follow(q)
	})
}
