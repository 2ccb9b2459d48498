package ep

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
	"github.com/fg-infer/fg/stdlib/kernel"
)

// A factorisation must return soon after a cancellation: after one library
// call of at most openblas.ChunkFlops (a tenth of a second at a few
// GFLOP/s). The tests measure the CPU time used between the cancellation
// and the return, at most testkit.StopCPU on testkit.StopProcs threads
// (load-independent: waiting for a core costs no CPU time).

// probitGP1500 is a probit GP of 1500 sites: a full recomputation of its
// posterior (2.3 M³ flops) takes about a second.
func probitGP1500() *Problem {
	const n = 1500
	X := randInputs(n, 2, 7)
	p := &Problem{Cov: kernel.SE{Lengthscale: 0.5, Var: 1}.Matrix(X)}
	for i := 0; i < n; i++ {
		p.Sites = append(p.Sites, Site{Lik: Probit{}, Y: 1, Index: i})
	}
	return p
}

// TestRecomputeCancels: a recomputation of the posterior (Cholesky,
// triangular solve, Σ) canceled 30 ms after its start returns errCanceled
// within testkit.StopCPU of CPU time, instead of running to its end.
func TestRecomputeCancels(t *testing.T) {
	testkit.LimitProcs(t)
	p := probitGP1500()
	pr, err := newProjection(p, autoPath)
	if err != nil {
		t.Fatal(err)
	}
	sites := make([]families.Gaussian, len(p.Sites))
	for i := range sites {
		sites[i] = families.Gaussian{Prec: 0.5, Shift: 0.3}
	}
	for _, full := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan error, 1)
		go func() {
			_, err := recompute(pr, sites, full, scratch{done: ctx.Done()})
			out <- err
		}()
		time.Sleep(30 * time.Millisecond)
		at := testkit.ProcessCPU(t)
		cancel()
		err := <-out
		if d := testkit.ProcessCPU(t) - at; d > testkit.StopCPU {
			t.Errorf("full %v: returned after %v of CPU time after the cancellation", full, d)
		}
		if !errors.Is(err, errCanceled) {
			t.Errorf("full %v: err = %v, want errCanceled", full, err)
		}
	}
}

// TestRunCancelsDuringFactorisation: a parallel run (one factorisation per
// sweep, most of its time) canceled after 300 ms ends within
// testkit.StopCPU of CPU time as Canceled with the means of its last
// posterior.
func TestRunCancelsDuringFactorisation(t *testing.T) {
	if testing.Short() {
		t.Skip("a second of factorisations")
	}
	testkit.LimitProcs(t)
	ctx, cancel := context.WithCancel(context.Background())
	at := make(chan time.Duration, 1)
	time.AfterFunc(300*time.Millisecond, func() { at <- testkit.ProcessCPU(t); cancel() })
	res, err := Run(ctx, probitGP1500(), Settings{Settings: infer.Settings{Schedule: infer.Parallel, MaxIter: 100}})
	if d := testkit.ProcessCPU(t) - <-at; d > testkit.StopCPU {
		t.Errorf("returned after %v of CPU time after the cancellation", d)
	}
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != infer.Canceled {
		t.Fatalf("got %v, %v", res, err)
	}
	if len(res.FMean) != 1500 || !finite(res.FMean...) {
		t.Errorf("partial means: %d, finite %v", len(res.FMean), finite(res.FMean...))
	}
}

// projected2000 is a probit problem of 3000 sites on dense projections of
// a 2000-dimensional Gaussian: its site-space set-up, K Aᵀ and A K Aᵀ,
// costs n²m + m²n = 3·10¹⁰ flops (5–10 s of CPU time).
func projected2000() *Problem {
	const n, m = 2000, 3000
	A := randInputs(m, n, 9)
	p := &Problem{Cov: kernel.SE{Lengthscale: 0.5, Var: 1}.Matrix(randInputs(n, 2, 8))}
	for i := 0; i < m; i++ {
		p.Sites = append(p.Sites, Site{Lik: Probit{}, Y: 1, Proj: A.RawRowView(i)})
	}
	return p
}

// TestProjectionSetUpCancels: the set-up products check the context
// between chunks. With done already closed none is computed (the chunk
// check comes first); canceled 100 ms into a run, Run returns Canceled
// within testkit.StopCPU of CPU time instead of finishing the products.
func TestProjectionSetUpCancels(t *testing.T) {
	p := projected2000()
	ctx0, cancel0 := context.WithCancel(context.Background())
	cancel0()
	if pr, err := newProjectionDone(p, sitePath, ctx0.Done()); pr != nil || !errors.Is(err, errCanceled) {
		t.Fatalf("closed done: %v, %v", pr != nil, err)
	}
	if testing.Short() {
		return
	}
	testkit.LimitProcs(t)
	ctx, cancel := context.WithCancel(context.Background())
	at := make(chan time.Duration, 1)
	timer := time.AfterFunc(100*time.Millisecond, func() { at <- testkit.ProcessCPU(t); cancel() })
	res, err := Run(ctx, p, Settings{space: sitePath})
	end := testkit.ProcessCPU(t)
	if timer.Stop() {
		t.Fatal("finished before the cancellation")
	}
	if d := end - <-at; d > testkit.StopCPU {
		t.Errorf("returned after %v of CPU time after the cancellation", d)
	}
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != infer.Canceled {
		t.Fatalf("got %v, %v", res, err)
	}
}
