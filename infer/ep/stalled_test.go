package ep

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/infer"
)

// brokenProbit is a probit likelihood whose tilted moments are NaN for
// y = −1, so those site updates are always skipped.
type brokenProbit struct{ Probit }

func (b brokenProbit) Tilted(y, m, v, u float64) (float64, float64, float64) {
	if y < 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return b.Probit.Tilted(y, m, v, u)
}

func stallProblem() *Problem {
	p := &Problem{Cov: mat.NewSymDense(2, []float64{1, 0, 0, 1})}
	for i, y := range []float64{1, 1, -1} {
		p.Sites = append(p.Sites, Site{Lik: brokenProbit{}, Y: y, Index: i % 2})
	}
	return p
}

// TestStalledOnSkippedUpdates: the other sites settle, so the posterior
// mean stops changing, but the y = −1 site is skipped in every sweep: that
// is not an EP fixed point. Sequential and parallel schedules both end
// Stalled, with the reason, and without an evidence.
func TestStalledOnSkippedUpdates(t *testing.T) {
	for _, sch := range []infer.Schedule{infer.Sequential, infer.Parallel} {
		res, err := Run(context.Background(), stallProblem(), Settings{Settings: infer.Settings{Schedule: sch}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != infer.Stalled || !strings.Contains(res.Message, "1 of 3 site updates") || res.HasLogZ {
			t.Errorf("%v: status %v, message %q, has log Z %v; want stalled", sch, res.Status, res.Message, res.HasLogZ)
		}
	}
}

// TestTinyDampingNotConverged: damping 1e-7 used to stop after one sweep at
// the prior (the damped step is below tol). Below infer.MinDamping it is
// refused; at the floor the undamped residual is far above tol.
func TestTinyDampingNotConverged(t *testing.T) {
	p := stallProblem()
	p.Sites = p.Sites[:2]
	if _, err := Run(context.Background(), p, Settings{Settings: infer.Settings{Damping: 1e-7, MaxIter: 20}}); err == nil || !strings.Contains(err.Error(), "below") {
		t.Errorf("damping 1e-7: error %v, want a refusal", err)
	}
	res, err := Run(context.Background(), p, Settings{Settings: infer.Settings{Damping: infer.MinDamping, MaxIter: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.IterationLimit || res.Iterations != 20 {
		t.Errorf("status %v after %d sweeps; want iteration_limit after 20", res.Status, res.Iterations)
	}
}
