package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// isBlock is the number of importance samples per block. Block b draws from
// its own PCG source blockRand(seed, b), so a run is reproducible whatever the number
// of workers, and a block can be regenerated instead of stored.
const isBlock = 1 << 15

// runIS is self-normalised importance sampling. With a proposal q
// (Settings.Proposal; see proposal) it draws w_s ~ q and weights
// W_s = exp(ℓ(w_s)) N(w_s; m0, Σ0) / q(w_s) (= exp(ℓ(w_s)) for the prior as
// proposal). With S = Σ W_s,
//
//	Ẑ = S/n,  μ̂ = Σ W_s w_s / S,  Ĉ = Σ W_s (w_s − μ̂)(w_s − μ̂)ᵀ / S,
//
// and delta-method standard errors
//
//	se(log Ẑ) = sd(W)/(√n · mean(W)),  se(μ̂_i) = √(Σ W_s² (w_si − μ̂_i)²) / S,
//	se(Ĉ_ii) = √(Σ W_s² ((w_si − μ̂_i)² − Ĉ_ii)²) / S.
func runIS(ctx context.Context, p Problem, prior *frame, s Settings) (*Result, error) {
	res := &Result{Method: "is", Status: infer.Done}
	q := &proposal{prior: prior}
	switch s.Proposal {
	case "prior":
	case "adaptive":
		var err error
		if q, err = adapt(ctx, p, q, s, res); err != nil {
			return failQuad(res, 0, err)
		}
	default:
		return nil, fmt.Errorf("exact: unknown importance proposal %q (want \"adaptive\" or \"prior\")", s.Proposal)
	}
	res.Proposal = q.String()
	if err := isEstimate(ctx, p, q, s.Samples, s.Seed, s.Workers, res, isProgress(s.Progress, res.Evaluations, s.Samples)); err != nil {
		return failQuad(res, 0, err)
	}
	res.is = &isState{p: p, q: q, n: s.Samples, seed: s.Seed, workers: s.Workers}
	res.is.shift, res.is.s0 = res.isShift, res.isS0
	return res, nil
}

// isProgress turns the samples done by isEstimate's two passes over n
// samples into Settings.Progress reports after the base evaluations of the
// pilot runs; nil without a callback.
func isProgress(report func(int, int, float64), base, n int) func(int) {
	if report == nil {
		return nil
	}
	return func(done int) { report(base+done, base+2*n, math.NaN()) }
}

// isEstimate fills res from n samples of q. Memory does not grow with n:
// pass 1 accumulates the weights and the mean block by block (log-sum-exp
// shifted), pass 2 regenerates each block and accumulates the centred sums,
// so ℓ is evaluated 2n times.
func isEstimate(ctx context.Context, p Problem, q *proposal, n int, seed uint64, workers int, res *Result, report func(done int)) error {
	d := q.prior.d
	nb := (n + isBlock - 1) / isBlock
	sums := make([]isSums, nb)
	var done atomic.Int64
	run := func(pass int, mu []float64, shift float64) error {
		return forBlocks(ctx, nb, workers, func(b int) error {
			m := min(isBlock, n-b*isBlock)
			err := sums[b].block(p.LogLik, q, blockRand(seed, b), m, pass, mu, shift)
			if report != nil {
				report(int(done.Add(int64(m))))
			}
			return err
		})
	}
	if err := run(1, nil, 0); err != nil {
		return err
	}
	res.Evaluations += n
	tot := combine1(sums, d)
	if math.IsInf(tot.shift, -1) {
		return fmt.Errorf("exact: all %d importance weights are zero", n)
	}
	mu := make([]float64, d)
	for j := range mu {
		mu[j] = tot.s1[j] / tot.s0
	}
	if err := run(2, mu, tot.shift); err != nil {
		return err
	}
	res.Evaluations += n
	res.Updates, res.Iterations = res.Evaluations, res.Iterations+2
	tot.finish(res, sums, mu, n)
	return nil
}

// blockRand is block b's source: PCG with both state words hashed from
// (seed, b) by SplitMix64, so neighbouring blocks get unrelated states.
func blockRand(seed uint64, b int) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix64(seed), splitmix64(seed^splitmix64(uint64(b)+1))))
}

// splitmix64 is the SplitMix64 finaliser (Steele, Lea & Flood 2014).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// forBlocks runs fn(b) for every block on up to workers goroutines
// (default 1), checking ctx before each block.
func forBlocks(ctx context.Context, nb, workers int, fn func(b int) error) error {
	workers = max(1, min(workers, nb))
	errs := make([]error, nb)
	next := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				if err := ctx.Err(); err != nil {
					errs[b] = err
					continue
				}
				errs[b] = safeCall(fn, b)
			}
		}()
	}
	for b := 0; b < nb; b++ {
		next <- b
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// safeCall runs fn(b), turning a panic (e.g. in a user log-likelihood on a
// worker goroutine, where Run's recover cannot see it) into an error.
func safeCall(fn func(int) error, b int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("exact: block %d: panic: %v", b, r)
		}
	}()
	return fn(b)
}

// isSums are one block's sums. Pass 1, relative to the block's largest log
// weight shift: s0 = Σ W, s1 = Σ W w, sq = Σ W². Pass 2, with weights
// relative to the global shift and deviations from the global mean μ:
// c = Σ W (w − μ)(w − μ)ᵀ (row-major), a2 = Σ W² (w − μ)², a4 = Σ W² (w − μ)⁴.
type isSums struct {
	shift, s0, sq float64
	s1            []float64
	c, a2, a4     []float64
}

// block draws n samples from q with rng and accumulates the sums of the pass.
func (bs *isSums) block(ll func([]float64) float64, q *proposal, rng *rand.Rand, n, pass int, mu []float64, shift float64) error {
	d := q.prior.d
	eps, u, w := make([]float64, d), make([]float64, d), make([]float64, d)
	lws := make([]float64, n)
	ws := make([]float64, n*d)
	for i := 0; i < n; i++ {
		corr := q.draw(rng, w, eps, u)
		v := ll(w)
		if err := checkLogLik(v, w); err != nil {
			return err
		}
		lws[i] = v + corr
		copy(ws[i*d:], w)
	}
	if pass == 1 {
		bs.pass1(lws, ws, d)
	} else {
		bs.pass2(lws, ws, d, mu, shift)
	}
	return nil
}

func (bs *isSums) pass1(lws, ws []float64, d int) {
	bs.shift = math.Inf(-1)
	for _, v := range lws {
		bs.shift = math.Max(bs.shift, v)
	}
	bs.s1 = make([]float64, d)
	if math.IsInf(bs.shift, -1) {
		return
	}
	for i, v := range lws {
		wt := math.Exp(v - bs.shift)
		bs.s0 += wt
		bs.sq += wt * wt
		for j := 0; j < d; j++ {
			bs.s1[j] += wt * ws[i*d+j]
		}
	}
}

func (bs *isSums) pass2(lws, ws []float64, d int, mu []float64, shift float64) {
	bs.c, bs.a2, bs.a4 = make([]float64, d*d), make([]float64, d), make([]float64, d)
	for i, v := range lws {
		wt := math.Exp(v - shift)
		if wt == 0 {
			continue
		}
		for a := 0; a < d; a++ {
			da := ws[i*d+a] - mu[a]
			for b := 0; b < d; b++ {
				bs.c[a*d+b] += wt * da * (ws[i*d+b] - mu[b])
			}
			bs.a2[a] += wt * wt * da * da
			bs.a4[a] += wt * wt * da * da * da * da
		}
	}
}

// combine1 merges the pass-1 sums of all blocks to the global shift.
func combine1(sums []isSums, d int) isSums {
	t := isSums{shift: math.Inf(-1), s1: make([]float64, d)}
	for _, b := range sums {
		t.shift = math.Max(t.shift, b.shift)
	}
	if math.IsInf(t.shift, -1) {
		return t
	}
	for _, b := range sums {
		if math.IsInf(b.shift, -1) {
			continue
		}
		a := math.Exp(b.shift - t.shift)
		t.s0 += a * b.s0
		t.sq += a * a * b.sq
		for j := range t.s1 {
			t.s1[j] += a * b.s1[j]
		}
	}
	return t
}

// finish merges the pass-2 sums and fills the estimates and errors.
func (t *isSums) finish(res *Result, sums []isSums, mu []float64, n int) {
	d := len(mu)
	c, a2, a4 := make([]float64, d*d), make([]float64, d), make([]float64, d)
	for _, b := range sums {
		for k := range c {
			c[k] += b.c[k]
		}
		for j := 0; j < d; j++ {
			a2[j] += b.a2[j]
			a4[j] += b.a4[j]
		}
	}
	s, fn := t.s0, float64(n)
	meanW := s / fn
	res.isShift, res.isS0 = t.shift, s
	res.LogZ = t.shift + math.Log(meanW)
	res.LogZErr = math.Sqrt(math.Max(t.sq/fn-meanW*meanW, 0)/fn) / meanW
	res.WeightESS = s * s / t.sq
	res.Mean = mu
	res.Cov = mat.NewSymDense(d, nil)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			res.Cov.SetSym(a, b, 0.5*(c[a*d+b]+c[b*d+a])/s)
		}
	}
	res.Var, res.MeanErr, res.VarErr = make([]float64, d), make([]float64, d), make([]float64, d)
	res.ErrEstimate = res.LogZErr
	for j := 0; j < d; j++ {
		v := res.Cov.At(j, j)
		res.Var[j] = v
		res.MeanErr[j] = math.Sqrt(a2[j]) / s
		res.VarErr[j] = math.Sqrt(math.Max(a4[j]-2*v*a2[j]+v*v*t.sq, 0)) / s
		res.ErrEstimate = math.Max(res.ErrEstimate, math.Max(res.MeanErr[j]/math.Sqrt(v), res.VarErr[j]/v))
	}
	if res.WeightESS < 100 {
		res.Message = fmt.Sprintf("importance weights degenerate: ESS %.1f of %d samples; standard errors are unreliable", res.WeightESS, n)
	}
}
