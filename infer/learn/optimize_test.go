package learn

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
)

// TestOptimizeToy2dMatchesGPML: L-BFGS from GPML's start (log ℓ, log sf) =
// (0, 0) reaches GPML minimize's optimum (reference toy2d_se_probit_opt100:
// nlZ 14.775668, log hyp 1.52457 1.19728). Our nlZ must not be worse than
// GPML's by more than 1e-6 (GPML ran infEP to a 1e-4 tolerance and stopped
// at 100 evaluations), and the location must agree to 2e-3.
func TestOptimizeToy2dMatchesGPML(t *testing.T) {
	X, y := gpmlData(t, "toy2d_se_probit", "train.csv")
	params := []Param{{Name: "log_ell"}, {Name: "log_sf"}}
	res, err := Optimize(context.Background(), seBuilder(X, y, probit), params, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.Converged {
		t.Errorf("status %v: %s", res.Status, res.Message)
	}
	if !(math.Abs(res.InitLogZ+18.479878877658741) <= 1e-6) {
		t.Errorf("initial log Z %.9f, GPML −18.479878878", res.InitLogZ)
	}
	const gpmlNLZ = 14.775668054551385
	if -res.LogZ > gpmlNLZ+1e-6 {
		t.Errorf("learned nlZ %.9f worse than GPML's %.9f", -res.LogZ, gpmlNLZ)
	}
	want := []float64{1.5245651980809514, 1.1972831963745378}
	for i := range want {
		if !(math.Abs(res.X[i]-want[i]) <= 2e-3) {
			t.Errorf("x[%d] = %.6f, GPML %.6f", i, res.X[i], want[i])
		}
	}
	for i, g := range res.Grad {
		if !(math.Abs(g) <= 1e-4) {
			t.Errorf("gradient[%d] = %g at the optimum", i, g)
		}
	}
	t.Logf("nlZ %.9f at %v after %d evaluations (%d EP sweeps, %v)", -res.LogZ, res.X, len(res.Trace), res.EPSweeps, res.Runtime)
}

// TestOptimizeTransforms learns (ℓ, sf²) on the log scale and the step's ε
// on the logit scale of (0, ½) on toy2d_se_step01; the optimum must be a
// stationary point of log Z_EP (gradient ≈ 0 in x, or ε at a bound) and not
// worse than the starting point, and x must stay inside the domains.
func TestOptimizeTransforms(t *testing.T) {
	X, y := gpmlData(t, "toy2d_se_step01", "train.csv")
	base := seBuilder(X, y, step)
	build := func(x []float64) ([]*Block, error) {
		// x = (ℓ, sf, ε) → (log ℓ, log sf, ε), with dx chain (1/ℓ, 1/sf, 1).
		bs, err := base([]float64{math.Log(x[0]), math.Log(x[1]), x[2]})
		if err != nil {
			return nil, err
		}
		bs[0].DCov[0].ScaleSym(1/x[0], bs[0].DCov[0])
		bs[0].DCov[1].ScaleSym(1/x[1], bs[0].DCov[1])
		return bs, nil
	}
	params := []Param{
		{Name: "ell", Init: 1, Transform: Transform{Kind: Log}},
		{Name: "sf", Init: 1, Transform: Transform{Kind: Log}},
		{Name: "eps", Init: 0.1, Transform: Transform{Kind: Logit, Lo: 0, Hi: 0.5}},
	}
	var evals int
	res, err := Optimize(context.Background(), build, params, Settings{Progress: func(Eval) { evals++ }})
	if err != nil {
		t.Fatal(err)
	}
	if res.LogZ < res.InitLogZ {
		t.Errorf("log Z fell from %g to %g", res.InitLogZ, res.LogZ)
	}
	if evals != len(res.Trace) {
		t.Errorf("progress called %d times for %d evaluations", evals, len(res.Trace))
	}
	if !(res.X[0] > 0 && res.X[1] > 0 && res.X[2] > 0 && res.X[2] < 0.5) {
		t.Errorf("x = %v left its domain", res.X)
	}
	if !(math.Abs(res.Grad[0]*res.X[0]) <= 1e-3) || !(math.Abs(res.Grad[2]*res.X[2]*(0.5-res.X[2])) <= 1e-3) {
		t.Errorf("gradient %v at %v is not stationary", res.Grad, res.X)
	}
	t.Logf("status %v: log Z %.6f → %.6f at %v, %d evaluations", res.Status, res.InitLogZ, res.LogZ, res.X, len(res.Trace))
}

func TestOptimizeErrors(t *testing.T) {
	X, y := gpmlData(t, "toy2d_se_probit", "train.csv")
	b := seBuilder(X, y, probit)
	ctx := context.Background()
	two := []Param{{Name: "a"}, {Name: "b"}}
	if _, err := Optimize(ctx, b, two, Settings{EP: ep.Settings{Settings: infer.Settings{Divergence: infer.Alpha{A: 0.5}}}}); err == nil {
		t.Error("alpha divergence: no error")
	}
	if _, err := Optimize(ctx, b, two, Settings{EP: ep.Settings{NonNegativeSites: true}}); err == nil {
		t.Error("clamped sites: no error")
	}
	if _, err := Optimize(ctx, b, two, Settings{Method: "newton"}); err == nil {
		t.Error("unknown method: no error")
	}
	if _, err := Optimize(ctx, b, nil, Settings{}); err == nil {
		t.Error("no params: no error")
	}
	if _, err := Optimize(ctx, b, []Param{{Name: "a", Init: -1, Transform: Transform{Kind: Log}}, {Name: "b"}}, Settings{}); err == nil {
		t.Error("negative value under a log transform: no error")
	}
	// a start where the Gram matrix cannot be factorised
	if _, err := Optimize(ctx, b, []Param{{Name: "a", Init: 800}, {Name: "b"}}, Settings{}); err == nil {
		t.Error("no evidence at the start: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Optimize(cctx, b, two, Settings{}); err == nil {
		t.Error("canceled context: no error")
	}
}

// TestOptimizeCancelMidway cancels after a few evaluations: Status
// Canceled, ctx.Err() returned, the best point so far kept.
func TestOptimizeCancelMidway(t *testing.T) {
	X, y := gpmlData(t, "toy2d_se_probit", "train.csv")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	s := Settings{Progress: func(Eval) {
		if n++; n == 3 {
			cancel()
		}
	}}
	res, err := Optimize(ctx, seBuilder(X, y, probit), []Param{{Name: "a"}, {Name: "b"}}, s)
	if err == nil || res == nil || res.Status != infer.Canceled {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if res.LogZ < res.InitLogZ {
		t.Errorf("best log Z %g below the start %g", res.LogZ, res.InitLogZ)
	}
}

func TestTransformRoundTrip(t *testing.T) {
	for _, tr := range []Transform{{Kind: Identity}, {Kind: Log}, {Kind: Logit, Lo: -1, Hi: 3}} {
		for _, x := range []float64{0.01, 0.3, 2.5} {
			u, err := tr.ToU(x)
			if err != nil {
				t.Fatal(err)
			}
			back, d := tr.ToX(u)
			if !(math.Abs(back-x) <= 1e-12) {
				t.Errorf("%v: x %g → u %g → %g", tr.Kind, x, u, back)
			}
			h := 1e-6
			xp, _ := tr.ToX(u + h)
			xm, _ := tr.ToX(u - h)
			if fd := (xp - xm) / (2 * h); !(math.Abs(fd-d) <= 1e-8*math.Max(1, math.Abs(d))) {
				t.Errorf("%v: dx/du %g, fd %g", tr.Kind, d, fd)
			}
		}
	}
	for _, c := range []struct {
		tr Transform
		x  float64
	}{{Transform{Kind: Log}, 0}, {Transform{Kind: Logit, Lo: 0, Hi: 0.5}, 0.5}, {Transform{Kind: Identity}, math.NaN()}, {Transform{Kind: Logit, Lo: 1, Hi: 1}, 1}} {
		if _, err := c.tr.ToU(c.x); err == nil {
			t.Errorf("%v at %g: no error", c.tr, c.x)
		}
	}
}

// TestOptimizeFailedRegion: the builder fails for log ℓ > 1.2 (the
// optimum is at 1.52); failed points count as −log Z = +∞, so the
// optimiser must stay in the feasible region, return its best point there
// (log Z above the start, log ℓ ≤ 1.2) and not crash.
func TestOptimizeFailedRegion(t *testing.T) {
	X, y := gpmlData(t, "toy2d_se_probit", "train.csv")
	base := seBuilder(X, y, probit)
	build := func(x []float64) ([]*Block, error) {
		if x[0] > 1.2 {
			return nil, errors.New("infeasible")
		}
		return base(x)
	}
	res, err := Optimize(context.Background(), build, []Param{{Name: "a"}, {Name: "b"}}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, e := range res.Trace {
		if !e.OK {
			failed++
		}
	}
	if res.X[0] > 1.2 || res.LogZ <= res.InitLogZ || failed == 0 {
		t.Errorf("status %v (%s): x %v, log Z %g from %g, %d failed evaluations", res.Status, res.Message, res.X, res.LogZ, res.InitLogZ, failed)
	}
	t.Logf("status %v (%s): x %v, log Z %g, %d evaluations, %d failed", res.Status, res.Message, res.X, res.LogZ, len(res.Trace), failed)
}
