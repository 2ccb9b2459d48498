package mcmc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fg-infer/fg/infer"
)

// NoBurnin, given as a Burnin setting, discards no warm-up iterations
// (0 selects the default).
const NoBurnin = -1

// splitmix64 is the SplitMix64 finaliser (Steele, Lea & Flood 2014).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// chainRand returns chain c's random source: PCG whose two state words are
// hashed from (seed, c) by SplitMix64, so chains get unrelated states.
func chainRand(seed uint64, c int) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix64(seed), splitmix64(seed^splitmix64(uint64(c)+1))))
}

// runChains calls fn(c) for c = 0..n−1 on at most workers goroutines
// (GOMAXPROCS if workers ≤ 0) and returns the first error by chain index.
// Each call must write only its own chain's slots, so results do not depend
// on scheduling.
func runChains(ctx context.Context, n, workers int, fn func(ctx context.Context, c int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for c := 0; c < n; c++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(c int) {
			defer wg.Done()
			defer func() { <-sem }()
			defer func() {
				if r := recover(); r != nil {
					errs[c] = fmt.Errorf("mcmc: chain %d: internal error: %v", c, r)
				}
			}()
			errs[c] = fn(ctx, c)
		}(c)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// forEach calls fn(i) for i = 0..n−1 on GOMAXPROCS goroutines, each
// taking the next index from a shared counter. Each call must write only
// its own slots (the per-element diagnostics after sampling), so results
// are bit-identical to a serial loop whatever the scheduling.
func forEach(n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// runLength holds the common sampling lengths after defaults.
type runLength struct {
	samples, burnin, thin, chains int
}

// lengths applies the defaults: 1000 samples, burnin samples/2 (NoBurnin:
// none), thin 1, 4 chains.
func lengths(samples, burnin, thin, chains int) runLength {
	r := runLength{samples, burnin, thin, chains}
	if r.samples <= 0 {
		r.samples = 1000
	}
	if r.burnin == 0 {
		r.burnin = r.samples / 2
	}
	if r.burnin < 0 {
		r.burnin = 0
	}
	if r.thin <= 0 {
		r.thin = 1
	}
	if r.chains <= 0 {
		r.chains = 4
	}
	return r
}

// checkKept refuses runs whose kept draws, chains × samples × q scalar
// quantities, would exceed infer.KeptDrawsLimit (the memory budget).
func (r runLength) checkKept(q int) error {
	if r.chains > infer.MaxChains {
		return fmt.Errorf("mcmc: %d chains, at most %d", r.chains, infer.MaxChains)
	}
	if lim := infer.KeptDrawsLimit(); q > 0 && r.samples > lim/r.chains/q {
		return fmt.Errorf("mcmc: %d chains × %d samples × %d quantities is more than the %d draws it can keep within the memory budget of %s; lower Samples or Chains",
			r.chains, r.samples, q, lim, infer.FormatBytes(infer.MemoryBudget()))
	}
	return nil
}

// checkLengths checks the run lengths (after defaults) against the ranges
// of the mcmc options (infer.MCMCSpec).
func checkLengths(r runLength) error {
	if err := (infer.MCMCSpec{Samples: r.samples, Burnin: r.burnin, Chains: r.chains}).Check(); err != nil {
		return fmt.Errorf("mcmc: %w", err)
	}
	return nil
}

// iterations is the number of sweeps per chain.
func (r runLength) iterations() int { return r.burnin + r.samples*r.thin }

// tickEvery is how many iterations (over all chains) pass between two
// progress reports.
const tickEvery = 256

// ticker counts the iterations of every chain for a Progress callback; a
// nil ticker counts nothing.
type ticker struct {
	n      atomic.Int64
	total  int
	report func(done, total int)
}

// newTicker returns nil when report is nil.
func newTicker(report func(done, total int), r runLength) *ticker {
	if report == nil {
		return nil
	}
	return &ticker{total: r.chains * r.iterations(), report: report}
}

// tick counts one iteration, reporting every tickEvery and the last.
func (t *ticker) tick() {
	if t == nil {
		return
	}
	if v := int(t.n.Add(1)); v%tickEvery == 0 || v == t.total {
		t.report(v, t.total)
	}
}

// chainsResult is the Result of r's chains once they ran: evals and iters
// are their summed counts, err what runChains returned (the status is
// failed, or canceled when ctx is done, and carries no summaries), and
// draws (d coordinates per chain) are summarised and kept when keep.
func chainsResult(ctx context.Context, start time.Time, r runLength, evals, iters int, draws [][][]float64, d int, err error, keep bool) (*Result, error) {
	res := &Result{Status: infer.Done, Chains: r.chains, Samples: r.samples}
	res.Evaluations, res.Iterations, res.Updates = evals, iters, evals
	defer func() { res.Runtime = time.Since(start) }()
	if err != nil {
		res.Status, res.Message = infer.Failed, err.Error()
		if ctx.Err() != nil {
			res.Status = infer.Canceled
		}
		return res, err
	}
	res.summarise(draws, d)
	if keep {
		res.Draws = draws
	}
	return res, nil
}
