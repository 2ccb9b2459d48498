package mcmc

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/fg-infer/fg/infer/netjoint"
	"github.com/fg-infer/fg/internal/testkit"
)

// cvChainProblem is testkit.CVChain's near-constant-velocity chain as a
// ChainProblem without sites, time-major (s_t's element i at 4t + i): the
// priors of s_0, per axis the velocity step N(ẋ_t; ẋ_{t−1}, Q) and the
// position N(x_t; x_{t−1} + (ẋ_{t−1} + ẋ_t)/2, QB), and the readings
// N(Y_t; x_t − 0.5 y_t, R).
func cvChainProblem(m testkit.CVChain) ChainProblem {
	T := len(m.Y)
	p := ChainProblem{N: 4 * T}
	for i, p0 := range m.P0 {
		p.Gaussians = append(p.Gaussians, LinearFactor{Vars: []int{i}, Coefs: []float64{1}, Var: p0})
	}
	for t := 0; t < T; t++ {
		if t > 0 {
			for ax := 0; ax < 2; ax++ {
				x, v, nx, nv := 4*(t-1)+ax, 4*(t-1)+2+ax, 4*t+ax, 4*t+2+ax
				p.Gaussians = append(p.Gaussians,
					LinearFactor{Vars: []int{nv, v}, Coefs: []float64{1, -1}, Var: m.Q},
					LinearFactor{Vars: []int{nx, x, v, nv}, Coefs: []float64{1, -1, -0.5, -0.5}, Var: m.QB})
			}
		}
		p.Gaussians = append(p.Gaussians, LinearFactor{Vars: []int{4 * t, 4*t + 1}, Coefs: []float64{1, -0.5}, Y: m.Y[t], Var: m.R})
	}
	return p
}

// chainMoments is the mean and the marginal variances of the Gaussian
// backbone of m as the sampler uses it: N(μ, (UᵀU)⁻¹) with U's rows the
// transitions u0_t d_t + Σ_l u_{t,l} d_{t−l} ~ N(0, 1) in the centred
// values d = x − μ. The variances are read by folding U's rows, in the
// variables' own order, into a second square-root form and taking its
// selected inverse (the Rauch–Tung–Striebel direction): the selected
// inverse of U itself, or propagating the autoregression's covariance
// forwards, runs the other way and loses three digits to the
// extrapolation of the positions (10⁻⁹ at T = 900), which is the
// evaluation's error, not the factor's.
func chainMoments(m *chainModel) (mean, vr []float64, err error) {
	n, k := m.n, m.k
	rb := netjoint.NewRootBand(n, k)
	a := make([]float64, k+1)
	for t := 0; t < n; t++ {
		lo := max(t-k, 0)
		clear(a)
		a[t-lo] = m.u0[t]
		for l := 1; l <= t-lo; l++ {
			a[t-l-lo] = m.u[t*k+l-1]
		}
		rb.AddRow(lo, a[:t-lo+1], 0)
	}
	_, cov, err := rb.SolveDone(nil)
	if err != nil {
		return nil, nil, err
	}
	vr = make([]float64, n)
	for i := range vr {
		vr[i] = cov[i*(k+1)]
	}
	return m.mu, vr, nil
}

// TestChainBackbonePrecision: the Gaussian backbone of particle Gibbs on
// testkit.CVChain's ill-conditioned chains (900 steps, Q = 10⁻³, R = 10⁶
// and R = 1; 300 steps, Q = 10⁻⁵, R = 10⁴; κ(Λ) up to 10¹¹) — the
// conditional mean μ and the transitions' rows of the factor, from the
// factors as rows (foldFactors) — against the 256-bit Kalman smoother
// (testkit.CVChain.KalmanBig): means to 1e-9 of their standard deviation,
// the marginal variances the transitions imply (chainMoments) to 1e-9
// relative (measured 7.5·10⁻¹¹ and 2.6·10⁻¹¹ at worst; the information
// form's factor, Λ summed then factored, missed the variances by
// 9.4·10⁻⁵). The draws themselves are Monte Carlo; without sites every
// sweep is an exact draw from this Gaussian (TestChainNoSites).
func TestChainBackbonePrecision(t *testing.T) {
	for _, c := range []struct {
		T    int
		q, r float64
	}{{900, 1e-3, 1e6}, {900, 1e-3, 1}, {300, 1e-5, 1e4}} {
		cv := testkit.NewCVChain(c.T, c.q, c.r)
		p := cvChainProblem(cv)
		m, err := newChainModel(context.Background(), &p, lengths(4, 0, 1, 1), DefaultParticles)
		if err != nil {
			t.Fatal(err)
		}
		mean, vr, err := chainMoments(m)
		if err != nil {
			t.Fatal(err)
		}
		want, wantVar, _ := cv.KalmanBig()
		dm, dv := 0.0, 0.0
		for i := range want {
			dm = math.Max(dm, math.Abs(mean[i]-want[i])/math.Sqrt(wantVar[i]))
			dv = math.Max(dv, math.Abs(vr[i]-wantVar[i])/wantVar[i])
		}
		label := fmt.Sprintf("T %d q %g r %g", c.T, c.q, c.r)
		t.Logf("%s: max |Δmean|/sd %.2g, max |Δvar|/var %.2g", label, dm, dv)
		if !(dm <= 1e-9) || !(dv <= 1e-9) {
			t.Errorf("%s: the backbone differs from the 256-bit Kalman smoother: mean %.2g sd, variance %.2g relative (tolerance 1e-9)", label, dm, dv)
		}
	}
}
