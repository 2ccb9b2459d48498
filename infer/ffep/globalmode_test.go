package ffep

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
)

// clutterSite is Minka's clutter likelihood ½ N(y; θ_0, 1) + ½ N(y; 0, 10)
// on coordinate 0, with its derivatives.
type clutterSite struct{ y float64 }

func (c clutterSite) parts(x float64) (a, b float64) {
	a = 0.5 * math.Exp(-0.5*(c.y-x)*(c.y-x)) / math.Sqrt(2*math.Pi)
	b = 0.5 * math.Exp(-0.5*c.y*c.y/10) / math.Sqrt(20*math.Pi)
	return a, b
}

func (c clutterSite) LogF(th []float64) float64 {
	a, b := c.parts(th[0])
	return math.Log(a + b)
}

// Derivs: with r = a/(a + b) the responsibility of the signal component,
// ∂ log f = r (y − x) and ∂² log f = r (1 − r)(y − x)² − r.
func (c clutterSite) Derivs(th, g, h []float64) float64 {
	a, b := c.parts(th[0])
	r, d := a/(a+b), c.y-th[0]
	g[0], h[0] = r*d, r*(1-r)*d*d-r
	return math.Log(a + b)
}

// clutterProblem: prior N(0, 100), the first half of the points near −3,
// the rest (twice as many) near 2, so that a sequential pass meets the
// minor cluster first.
func clutterProblem() *Problem {
	p := &Problem{PriorMean: []float64{0}, PriorVar: []float64{100}}
	for _, y := range []float64{-3.4, -2.6, -3.1, -2.9, 2.2, 1.8, 2.5, 1.6, 2.1, 2.4, 1.9, 2.3} {
		p.Factors = append(p.Factors, clutterSite{y})
	}
	return p
}

// TestWarmStartMeanIsMode: the sites warmStart sets from the Laplace
// expansion at the posterior mode t give q the mean t exactly (Σ_k ∂log f_k
// = (t − m)/v at a mode) and a positive precision.
func TestWarmStartMeanIsMode(t *testing.T) {
	p := clutterProblem()
	e := newEngine(p, &Settings{Scheme: Scheme{Kind: Laplace}, Passes: 10})
	ms := e.newModeSearch()
	if !ms.search(context.Background(), e.w) {
		t.Fatal("search canceled")
	}
	e.warmStart(ms.best)
	e.meanInto(e.mean)
	if !(math.Abs(e.mean[0]-ms.best[0]) <= 1e-9) || !(e.lamQ[0] > 0) {
		t.Errorf("q mean %g, precision %g; mode %g", e.mean[0], e.lamQ[0], ms.best[0])
	}
	if !(ms.best[0] > 1.5 && ms.best[0] < 2.5) {
		t.Errorf("best mode %g, want the major cluster's near 2", ms.best[0])
	}
}

// TestModeSearchRestarts: Laplace-EP from the prior follows the first
// (minor) cluster; the run restarts once and ends converged at the major
// cluster's mode, with q's mean within 0.1 of the posterior mode.
func TestModeSearchRestarts(t *testing.T) {
	res, err := RunFF(context.Background(), clutterProblem(), &Settings{Scheme: Scheme{Kind: Laplace}, Passes: 200, Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v after %d passes, %d restarts: %g ± %g", res.Status, res.Iterations, res.ModeRestarts, res.Mean[0], math.Sqrt(res.Var[0]))
	if res.Status != infer.Converged || res.ModeRestarts != 1 || !(res.Mean[0] > 1.5) {
		t.Errorf("%v (%s), %d restarts, mean %g", res.Status, res.Message, res.ModeRestarts, res.Mean[0])
	}
}
