package exact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/graph"
	nt "github.com/fg-infer/fg/infer/netjoint/nettest"
	"github.com/fg-infer/fg/internal/testkit"
)

// TestNetGaussianChain: x[0] ~ N(0, 1), x[t] ~ N(0.9 x[t−1], 0.5),
// y[t] ~ N(x[t], 0.3) at T = 100 held as a Net: exact's closed form (a
// band of half-width 1) equals a Kalman filter and Rauch–Tung–Striebel
// smoother written here — log Z by the prediction-error decomposition,
// the smoothed means and variances — to 1e-9.
func TestNetGaussianChain(t *testing.T) {
	const T, a, q, r = 100, 0.9, 0.5, 0.3
	rng := rand.New(rand.NewPCG(5, 6))
	ys := make([]float64, T)
	x := 0.0
	for i := range ys {
		x = a*x + math.Sqrt(q)*rng.NormFloat64()
		ys[i] = x + math.Sqrt(r)*rng.NormFloat64()
	}
	var n graph.Net
	var xs []int
	for i, y := range ys {
		v := nt.Var(&n, "x", graph.Gaussian, 1)
		if i == 0 {
			nt.Factor(&n, nt.NormalPrior, v, nt.D("mean", 0), nt.D("var", 1))
		} else {
			mean := graph.Edge{Name: "mean", Vars: []int{xs[i-1]}, Coefs: []float64{a}}
			nt.Factor(&n, nt.NormalPrior, v, mean, nt.D("var", q))
		}
		nt.Obs(&n, nt.Normal, y, nt.V("mean", v), nt.D("var", r))
		xs = append(xs, v)
	}
	res := runNet(t, &n, "closed form")
	// Kalman filter: predicted (mp, vp), filtered (mf, vf)
	mp, vp := make([]float64, T), make([]float64, T)
	mf, vf := make([]float64, T), make([]float64, T)
	logZ := 0.0
	for i, y := range ys {
		if i == 0 {
			mp[i], vp[i] = 0, 1
		} else {
			mp[i], vp[i] = a*mf[i-1], a*a*vf[i-1]+q
		}
		s := vp[i] + r
		logZ += -0.5*math.Log(2*math.Pi*s) - 0.5*(y-mp[i])*(y-mp[i])/s
		g := vp[i] / s
		mf[i], vf[i] = mp[i]+g*(y-mp[i]), (1-g)*vp[i]
	}
	ms, vs := append([]float64(nil), mf...), append([]float64(nil), vf...)
	for i := T - 2; i >= 0; i-- {
		c := vf[i] * a / vp[i+1]
		ms[i] = mf[i] + c*(ms[i+1]-mp[i+1])
		vs[i] = vf[i] + c*c*(vs[i+1]-vp[i+1])
	}
	near(t, "log Z", res.LogZ, logZ, 1e-9)
	for i, v := range xs {
		near(t, "mean", res.Vars[v].Mean[0], ms[i], 1e-9)
		near(t, "var", res.Vars[v].Var[0], vs[i], 1e-9)
	}
}

// TestNetBandPrecision: testkit.CVChain's near-constant-velocity chains
// (900 steps, Q = 10⁻³, R = 10⁶ and R = 1; 300 steps, Q = 10⁻⁵, R = 10⁴;
// κ(Λ) up to 10¹¹) held as a Net of scalar conditionals — per axis
// ẋ_t ~ N(ẋ_{t−1}, Q), x_t ~ N(x_{t−1} + (ẋ_{t−1} + ẋ_t)/2, QB), a reading
// Y_t ~ N(x_t − 0.5 y_t, R) — in exact's closed form (a band of
// half-width 6 in square-root information form, rootPosterior) against
// the 256-bit Kalman smoother (testkit.CVChain.KalmanBig): variances to
// 1e-9 relative on every chain (measured 2e-10, 7.7e-10, 6.7e-13; the
// information form missed by 1.1e-4, 2.4e-5, 6.4e-6), and means to 1e-9
// of their standard deviation and log Z to 1e-9 on the 300-step chain
// (measured 3.8e-11 and 0). On the 900-step chains the means and log Z
// are limited by the factors' quadratic fits (netjoint.FitQuadratic
// differences log f at the points 0, ±1, so P, B and C carry ε·|log f|
// there, ε·Y²/2R: the readings' precisions 10⁻⁶ come out 7.5e-10 off),
// not by the solve: measured 1e-9 sd and 1.3e-9 at R = 10⁶, 2.2e-8 sd and
// 1.7e-5 at R = 1, which this test does not claim.
func TestNetBandPrecision(t *testing.T) {
	for _, c := range []struct {
		T    int
		q, r float64
		all  bool // means and log Z too
	}{{900, 1e-3, 1e6, false}, {900, 1e-3, 1, false}, {300, 1e-5, 1e4, true}} {
		m := testkit.NewCVChain(c.T, c.q, c.r)
		var n graph.Net
		for t := 0; t < c.T; t++ {
			for i := 0; i < 4; i++ {
				nt.Var(&n, "s", graph.Gaussian, 1)
			}
			for ax := 0; ax < 2; ax++ {
				x, v, nx, nv := 4*(t-1)+ax, 4*(t-1)+2+ax, 4*t+ax, 4*t+2+ax
				if t == 0 {
					nt.Factor(&n, nt.NormalPrior, nx, nt.D("mean", 0), nt.D("var", m.P0[ax]))
					nt.Factor(&n, nt.NormalPrior, nv, nt.D("mean", 0), nt.D("var", m.P0[ax+2]))
					continue
				}
				nt.Factor(&n, nt.NormalPrior, nv, nt.V("mean", v), nt.D("var", m.Q))
				mean := graph.Edge{Name: "mean", Vars: []int{x, v, nv}, Coefs: []float64{1, 0.5, 0.5}}
				nt.Factor(&n, nt.NormalPrior, nx, mean, nt.D("var", m.QB))
			}
			reading := graph.Edge{Name: "mean", Vars: []int{4 * t, 4*t + 1}, Coefs: []float64{1, -0.5}}
			nt.Obs(&n, nt.Normal, m.Y[t], reading, nt.D("var", m.R))
		}
		res := runNet(t, &n, "closed form")
		mean, vr, logp := m.KalmanBig()
		dm, dv := 0.0, 0.0
		for i := range mean {
			dm = math.Max(dm, math.Abs(res.Vars[i].Mean[0]-mean[i])/math.Sqrt(vr[i]))
			dv = math.Max(dv, math.Abs(res.Vars[i].Var[0]-vr[i])/vr[i])
		}
		label := fmt.Sprintf("T %d q %g r %g", c.T, c.q, c.r)
		t.Logf("%s: max |Δmean|/sd %.2g, max |Δvar|/var %.2g, log Z %.12g vs %.12g (%.2g)", label, dm, dv, res.LogZ, logp, res.LogZ-logp)
		if !(dv <= 1e-9) || c.all && (!(dm <= 1e-9) || !(math.Abs(res.LogZ-logp) <= 1e-9)) {
			t.Errorf("%s: differs from the 256-bit Kalman smoother: mean %.2g sd, variance %.2g relative, log Z %.2g (tolerance 1e-9)", label, dm, dv, res.LogZ-logp)
		}
	}
}
