package fgraph

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/internal/testkit"
)

// cvGauss is cvProbit's near-constant-velocity chain (a 2-D target whose
// velocity changes by N(0, q) a step, position given the velocities by
// N(0, q/12), written as scalar conditionals) with the tripwire labels
// replaced by readings of x − 0.5 y with variance r (testkit.NewCVChain,
// simulated, seeded), and the same chain as a state-space model for
// its 256-bit Kalman smoother (KalmanBig).
func cvGauss(T int, q, r float64) (*Graph, testkit.CVChain) {
	m := testkit.NewCVChain(T, q, r)
	g := NewGraph(4 * T)
	for i, p0 := range m.P0 {
		g.AddGaussian([]int{i}, []float64{1}, 0, 0, p0)
	}
	for t := 0; t < T; t++ {
		if t > 0 {
			for ax := 0; ax < 2; ax++ {
				p, v, np, nv := 4*(t-1)+ax, 4*(t-1)+2+ax, 4*t+ax, 4*t+2+ax
				g.AddGaussian([]int{nv, v}, []float64{1, -1}, 0, 0, m.Q)
				g.AddGaussian([]int{np, p, v, nv}, []float64{1, -1, -0.5, -0.5}, 0, 0, m.QB)
			}
		}
		g.AddGaussian([]int{4 * t, 4*t + 1}, []float64{1, -0.5}, 0, m.Y[t], r)
	}
	return g, m
}

// TestBandJointPrecision: the exact band solve of cvGauss(900, 10⁻³, 10⁶)
// (3600 variables; Λ's condition number ~10¹¹), of the same chain read
// with variance 1 and of cvGauss(300, 10⁻⁵, 10⁴) against the Kalman
// smoother in 256-bit floats (KalmanBig): means to 1e-9 of their standard
// deviation, variances to 1e-9 relative, log Z to 1e-9 (measured 10⁻¹¹
// or better). The information form (Λ summed, then its Cholesky factor)
// missed by 1.1·10⁻⁴, 1.1·10⁻⁶ and 6.5·10⁻⁶ in relative variance.
func TestBandJointPrecision(t *testing.T) {
	for _, c := range []struct {
		T    int
		q, r float64
	}{{900, 1e-3, 1e6}, {900, 1e-3, 1}, {300, 1e-5, 1e4}} {
		g, m := cvGauss(c.T, c.q, c.r)
		res, err := Run(context.Background(), g, Settings{})
		if err != nil || !res.Exact {
			t.Fatal(err, res.Status, res.Message)
		}
		compareKalmanBig(t, fmt.Sprintf("T %d q %g r %g", c.T, c.q, c.r), res, m, 1e-9)
	}
}

// TestKalmanBig checks the reference itself: on a short, well-conditioned
// cvGauss chain (T = 30, q = 0.5, r = 2) KalmanBig equals the dense joint
// in covariance form (priorMoments and condition, a different method) to
// 1e-11 in means (in standard deviations) and relative variances, and
// log Z to 1e-10 (the dense joint's own rounding).
func TestKalmanBig(t *testing.T) {
	g, m := cvGauss(30, 0.5, 2)
	dense, err := Run(context.Background(), g, Settings{dense: true})
	if err != nil || !dense.Exact {
		t.Fatal(err, dense.Status, dense.Message)
	}
	mean, vr, logp := m.KalmanBig()
	for i := range mean {
		if !(math.Abs(mean[i]-dense.Mean[i]) <= 1e-11*math.Sqrt(vr[i])) || !(math.Abs(vr[i]-dense.Var[i]) <= 1e-11*vr[i]) {
			t.Errorf("x%d: KalmanBig %.15g ± %.15g, dense %.15g ± %.15g", i, mean[i], vr[i], dense.Mean[i], dense.Var[i])
		}
	}
	if !(math.Abs(logp-dense.LogZ) <= 1e-10) {
		t.Errorf("log Z: KalmanBig %.15g, dense %.15g", logp, dense.LogZ)
	}
}

// TestBandEPPrecision: cvGauss(900, 10⁻³, 10⁶)'s readings entered as EP
// sites (ep.Gaussian; EP is exact after one sweep, TestBandEPGaussianSites)
// on the band: the final marginals and log Z_EP, solved from the site
// messages in square-root information form (bandEP.solveQ), equal the
// 256-bit Kalman smoother to 1e-9 (means in standard deviations, relative
// variances, log Z); from q's information band they were off by 4.4e-5.
func TestBandEPPrecision(t *testing.T) {
	g, m := cvGauss(900, 1e-3, 1e6)
	sites := gaussianFactors(g, func(f int) bool { c := g.factorCoefs(f, nil); return len(c) == 2 && c[1] == -0.5 })
	if len(sites.liks) != 900 {
		t.Fatalf("%d sites", len(sites.liks))
	}
	res, err := Run(context.Background(), sites, Settings{Settings: infer.Settings{Tol: 1e-10}})
	if err != nil || res.Status != infer.Converged {
		t.Fatal(err, res.Status, res.Message)
	}
	compareKalmanBig(t, fmt.Sprintf("band EP, %d sweeps", res.Iterations), res, m, 1e-9)
}

// compareKalmanBig fails unless res's means (in standard deviations),
// variances (relative) and log Z are within tol of m.KalmanBig()'s.
func compareKalmanBig(t *testing.T, label string, res *Result, m testkit.CVChain, tol float64) {
	t.Helper()
	mean, vr, logp := m.KalmanBig()
	dm, dv := 0.0, 0.0
	for i := range mean {
		dm = math.Max(dm, math.Abs(res.Mean[i]-mean[i])/math.Sqrt(vr[i]))
		dv = math.Max(dv, math.Abs(res.Var[i]-vr[i])/vr[i])
	}
	t.Logf("%s: max |Δmean|/sd %.2g, max |Δvar|/var %.2g, log Z %.12g vs %.12g (%.2g)", label, dm, dv, res.LogZ, logp, res.LogZ-logp)
	if !(dm <= tol) || !(dv <= tol) || !(math.Abs(res.LogZ-logp) <= tol) {
		t.Errorf("%s: differs from the 256-bit Kalman smoother: mean %.2g sd, variance %.2g relative, log Z %.2g (tolerance %g)", label, dm, dv, res.LogZ-logp, tol)
	}
}
