package ep

import (
	"context"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// indexProblem is m probit sites with alternating labels (two thirds +1) on
// element 0 of a 3-element latent with a correlated prior.
func indexProblem(m int) *Problem {
	p := &Problem{Cov: mat.NewSymDense(3, []float64{1, 0.3, 0, 0.3, 1, 0.2, 0, 0.2, 1})}
	for i := 0; i < m; i++ {
		y := 1.0
		if i%3 == 2 {
			y = -1
		}
		p.Sites = append(p.Sites, Site{Lik: Probit{}, Y: y, Index: 0})
	}
	return p
}

// TestIndexSitesWeightSpace: many index sites on few latent elements
// (M = 60 > N = 3) take the weight-space path automatically and reach the
// site-space fixed point to 1e-9 (means, variances, sites, log Z) under
// sequential and parallel schedules.
func TestIndexSitesWeightSpace(t *testing.T) {
	p := indexProblem(60)
	res, err := Run(context.Background(), p, Settings{})
	if err != nil || res.ws == nil {
		t.Fatalf("auto path: weight space %v, err %v", res != nil && res.ws != nil, err)
	}
	for _, sched := range []infer.Schedule{infer.Sequential, infer.Parallel} {
		s := settings(sched, infer.KL{})
		samePosterior(t, runPath(t, p, s, weightPath), runPath(t, p, s, sitePath), p, 1e-9)
	}
}

// TestSiteSpaceBounded: more than maxSiteSpace() sites that must stay in site
// space (a singular prior rules out the weight space) are refused before any
// M×M matrix is allocated; 20000 index sites on one element of a positive
// definite prior run in weight space in well under a second of work.
func TestSiteSpaceBounded(t *testing.T) {
	p := indexProblem(maxSiteSpace() + 1)
	p.Cov = mat.NewSymDense(3, []float64{1, 1, 0, 1, 1, 0, 0, 0, 1})
	if _, err := Run(context.Background(), p, Settings{}); err == nil || !strings.Contains(err.Error(), "site-space") {
		t.Errorf("singular prior, %d sites: %v", maxSiteSpace()+1, err)
	}
	start := time.Now()
	res, err := Run(context.Background(), indexProblem(20000), Settings{})
	if err != nil || res.Status != infer.Converged || res.ws == nil {
		t.Fatalf("20000 index sites: %v %v", res, err)
	}
	t.Logf("20000 index sites: %d sweeps in %v", res.Iterations, time.Since(start))
}

// cancelingProbit is Probit that cancels a context at its k-th moment
// computation.
type cancelingProbit struct {
	Probit
	k      *int
	cancel context.CancelFunc
}

func (c cancelingProbit) Tilted(y, m, v, u float64) (float64, float64, float64) {
	if *c.k--; *c.k == 0 {
		c.cancel()
	}
	return c.Probit.Tilted(y, m, v, u)
}

// TestCancelWithinSweep: a context canceled in the middle of the first
// sweep (at the 100th of 2000 site updates, each O(M²) in site space) stops
// the run at the next site, with status Canceled and partial results (the
// projections' means; on the weight-space path the marginals of w too).
func TestCancelWithinSweep(t *testing.T) {
	for _, mode := range []pathMode{sitePath, weightPath} {
		p := indexProblem(2000)
		ctx, cancel := context.WithCancel(context.Background())
		k := 100
		for i := range p.Sites {
			p.Sites[i].Lik = cancelingProbit{k: &k, cancel: cancel}
		}
		res, err := Run(ctx, p, Settings{Settings: infer.Settings{MaxIter: 1000, Tol: 1e-300}, space: mode})
		cancel()
		if err == nil || res == nil || res.Status != infer.Canceled {
			t.Fatalf("path %d: want Canceled, got %v %v", mode, res, err)
		}
		if res.Updates != 100 || res.Iterations != 1 || len(res.FMean) != 2000 {
			t.Errorf("path %d: %d updates in %d sweeps, %d projection means; want 100 in the first sweep and partial means", mode, res.Updates, res.Iterations, len(res.FMean))
		}
		if mode == weightPath && len(res.Mean) != 3 {
			t.Errorf("weight space: %d means of w, want the partial posterior's 3", len(res.Mean))
		}
	}
}
