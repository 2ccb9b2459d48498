package run

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fg-infer/fg/infer"
)

// ar1 is an AR(1) with drift, x_0 ~ N(m0, s0), x_t ~ N(a x_{t−1} + b, q),
// observed as y_t ~ N(x_t, r) at the steps in obs.
type ar1 struct {
	a, b, q, m0, s0, r float64
	T                  int
	obs                map[int]float64
}

// rts is the Kalman filter and Rauch–Tung–Striebel smoother of the chain,
// written independently of infer/fgraph: smoothed means and variances, and
// log p(y) by the prediction-error decomposition.
func (c ar1) rts() (mean, vr []float64, logZ float64) {
	mf, vf := make([]float64, c.T), make([]float64, c.T) // filtered
	mp, vp := make([]float64, c.T), make([]float64, c.T) // predicted
	for t := 0; t < c.T; t++ {
		if t == 0 {
			mp[t], vp[t] = c.m0, c.s0
		} else {
			mp[t], vp[t] = c.a*mf[t-1]+c.b, c.a*c.a*vf[t-1]+c.q
		}
		mf[t], vf[t] = mp[t], vp[t]
		if y, ok := c.obs[t]; ok {
			s := vp[t] + c.r
			logZ += -0.5*math.Log(2*math.Pi*s) - 0.5*(y-mp[t])*(y-mp[t])/s
			k := vp[t] / s
			mf[t], vf[t] = mp[t]+k*(y-mp[t]), (1-k)*vp[t]
		}
	}
	mean, vr = make([]float64, c.T), make([]float64, c.T)
	mean[c.T-1], vr[c.T-1] = mf[c.T-1], vf[c.T-1]
	for t := c.T - 2; t >= 0; t-- {
		g := vf[t] * c.a / vp[t+1]
		mean[t] = mf[t] + g*(mean[t+1]-mp[t+1])
		vr[t] = vf[t] + g*g*(vr[t+1]-vp[t+1])
	}
	return mean, vr, logZ
}

// twoLatentProbit is x ~ N(0, 1) (a scalar latent) and z ~ N(0.5·x, 0.8)
// with one site probit(2z − x + c): a single site, for which EP's moments
// are exact, on an affine expression with a constant over two latents.
const twoLatentProbit = `param c = -0.7
data y: spin[1] = [1]
latent x: real ~ normal(0, 1)
latent z: real[1]
z[0] ~ normal(0.5 * x, 0.8)
y[0] ~ probit(2 * z[0] - x + c)
infer ep
infer ep as ep_f { family = factorized }
infer exact
infer mcmc
`

// probitClosedForm is the posterior of twoLatentProbit: with the prior
// N(0, Σ), Σ = [[1, 0.5], [0.5, 1.05]], and f = aᵀw + c ~ N(c, s²),
// Z = Φ(κ), κ = c/√(1 + s²), the mean Σa·ρ/√(1+s²) and the covariance
// Σ − Σa aᵀΣ·ρ(κ + ρ)/(1 + s²), ρ = φ(κ)/Φ(κ) (Rasmussen & Williams eq. 3.82).
func probitClosedForm(c float64) (mean, vr []float64, logZ float64) {
	sig := [2][2]float64{{1, 0.5}, {0.5, 1.05}}
	a := [2]float64{-1, 2} // on (x, z)
	sa := [2]float64{sig[0][0]*a[0] + sig[0][1]*a[1], sig[1][0]*a[0] + sig[1][1]*a[1]}
	s2 := a[0]*sa[0] + a[1]*sa[1]
	k := c / math.Sqrt(1+s2)
	rho := distuv.UnitNormal.Prob(k) / distuv.UnitNormal.CDF(k)
	for i := 0; i < 2; i++ {
		mean = append(mean, sa[i]*rho/math.Sqrt(1+s2))
		vr = append(vr, sig[i][i]-sa[i]*sa[i]*rho*(k+rho)/(1+s2))
	}
	return mean, vr, math.Log(distuv.UnitNormal.CDF(k))
}

// TestProbitGoldEndToEnd: one probit site on 2z − x + c with a scalar
// and a vector latent: ep (fgraph), exact (quadrature on the joint with the
// site's constant as Offset) equal the closed form, and mcmc (elliptical
// slice on the joint prior) is within 4 Monte Carlo standard errors; the
// error columns of ep are against exact.
func TestProbitGoldEndToEnd(t *testing.T) {
	const c = -0.7
	m := compileSrc(t, twoLatentProbit)
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mean, vr, logZ := probitClosedForm(c)
	for _, r := range rs {
		if !r.Status.HasNumbers() || r.Variables.Len() != 2 {
			t.Fatalf("%s: status %v (%s), %d variables", r.Label, r.Status, r.Message, r.Variables.Len())
		}
		if r.Variables.At(0).Name != "x" || r.Variables.At(0).Shape != nil || r.Variables.At(1).Name != "z" {
			t.Errorf("%s: variables %s %v, %s", r.Label, r.Variables.At(0).Name, r.Variables.At(0).Shape, r.Variables.At(1).Name)
		}
		tol := map[string]float64{"ep": 1e-9, "exact": 1e-6}[r.Label]
		for i, v := range r.Variables.All() {
			gm, gv := v.Mean[0], v.Var[0]
			switch {
			case r.Label == "mcmc":
				if !(math.Abs(gm-mean[i]) <= 4*v.MeanSE[0]) || !(math.Abs(gv-vr[i]) <= 4*v.VarSE[0]) {
					t.Errorf("mcmc: %s = (%.5g ± %.2g, %.5g ± %.2g), closed form (%.5g, %.5g)", v.Name, gm, v.MeanSE[0], gv, v.VarSE[0], mean[i], vr[i])
				}
			case r.Label == "ep_f":
				// a factorised family: the site's message is a product of
				// marginal messages, so it is not exact; it only has to converge.
			case !(math.Abs(gm-mean[i]) <= tol) || !(math.Abs(gv-vr[i]) <= tol):
				t.Errorf("%s: %s = (%.10g, %.10g), closed form (%.10g, %.10g)", r.Label, v.Name, gm, gv, mean[i], vr[i])
			}
		}
		if (r.Label == "ep" || r.Label == "exact") && !(math.Abs(r.LogEvidence-logZ) <= 1e-6) {
			t.Errorf("%s: log Z %.10g, closed form %.10g", r.Label, r.LogEvidence, logZ)
		}
	}
	if e := rs[0].Errors; e == nil || e.Reference != "exact" || !(e.MeanMAE < 1e-6) {
		t.Errorf("ep's error columns against exact: %+v", e)
	}
}

// source is the chain as a user writes it, observed at the steps in obs.
func (c ar1) source() string {
	var tobs, ys []string
	for t := 0; t < c.T; t++ {
		if y, ok := c.obs[t]; ok {
			tobs, ys = append(tobs, fmt.Sprint(t)), append(ys, fmt.Sprint(y))
		}
	}
	return fmt.Sprintf(`param a = %g
param drift = %g
data tobs: int[%d] = [%s]
data y: real[%d] = [%s]
latent x: real[%d]
x[0] ~ normal(%g, %g)
for t in 1..%d { x[t] ~ normal(a * x[t-1] + drift, %g) }
for k in 0..%d { y[k] ~ normal(x[tobs[k]], %g) }
infer ep
infer exact
`, c.a, c.b, len(tobs), strings.Join(tobs, ", "), len(ys), strings.Join(ys, ", "), c.T, c.m0, c.s0, c.T, c.q, len(ys), c.r)
}

// TestChainRTSEndToEnd: a random walk and an AR(1) with drift written in
// .fg, observed at a subset of steps: ep (one forward–backward pass) and
// exact equal the RTS smoother written in the test (ar1.rts) to 1e-9,
// log Z included.
func TestChainRTSEndToEnd(t *testing.T) {
	obs := map[int]float64{0: 0.3, 3: 1.1, 4: 0.7, 9: -0.4, 15: 0.2, 16: 0.9, 29: 2.5, 44: -1}
	for name, c := range map[string]ar1{
		"random walk": {a: 1, q: 0.2, s0: 10, r: 0.5, T: 50, obs: obs},
		"ar1 drift":   {a: 0.8, b: 0.3, q: 0.1, m0: 1, s0: 2, r: 0.25, T: 50, obs: obs},
	} {
		t.Run(name, func(t *testing.T) {
			mean, vr, logZ := c.rts()
			for _, r := range runSrc(t, c.source()) {
				checkJoint(t, r, mean, vr, logZ, 1e-9)
				if r.Method == "ep" && r.Iterations > 2 {
					t.Errorf("ep: %d sweeps on a linear-Gaussian chain, want one pass (and its check)", r.Iterations)
				}
			}
		})
	}
}

// TestFactorGraphProgress: ep on a factor graph reports every sweep to
// Options.Progress (the CLI's progress line), with the sweep's residual,
// under both families; canceling the context ends the run as canceled.
func TestFactorGraphProgress(t *testing.T) {
	m := compileSrc(t, `data y: spin[6] = [1, 1, -1, 1, -1, -1]
latent x: real[8]
x[0] ~ normal(0, 1)
for t in 1..8 { x[t] ~ normal(x[t - 1], 0.3) }
for k in 0..6 { y[k] ~ probit(x[k + 1]) }
infer ep
infer ep as f { family = factorized }
infer ep as par { schedule = parallel }
`)
	sweeps := map[string]int{}
	rs, err := Run(context.Background(), m, Options{Progress: func(p infer.Progress) {
		if p.Unit == "sweep" && p.Done > 0 && !math.IsNaN(p.R) {
			sweeps[p.Label]++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Status != infer.Converged || sweeps[r.Label] != r.Iterations {
			t.Errorf("%s: %v, %d sweeps, %d progress reports", r.Label, r.Status, r.Iterations, sweeps[r.Label])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs, err = Run(ctx, m, Options{})
	if err == nil || len(rs) == 0 || rs[0].Status != infer.Canceled || rs[0].Variables.Len() > 0 {
		t.Errorf("canceled run: %v, %+v", err, rs)
	}
}
