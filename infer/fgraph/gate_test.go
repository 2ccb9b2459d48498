package fgraph

import (
	"context"
	"math"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/ep"
	"github.com/fg-infer/fg/internal/mathx"
	"gonum.org/v1/gonum/floats/scalar"
)

// mix10 is a two-component Gaussian mixture with discrete assignments:
// mu_k ~ N(mixMean[k], mixVar[k]), z_i ~ Categorical(mixW),
// y_i ~ N(mu[z_i], mixNoise), n = 10.
var (
	mix10    = []float64{-2.5, -1.8, -2.2, 1.9, 2.4, 0.1, 2.8, -1.1, 1.5, 3.0}
	mixMean  = []float64{-2, 2}
	mixVar   = []float64{1, 1}
	mixW     = []float64{0.4, 0.6}
	mixNoise = 1.0
)

// mixtureGraph builds the mixture on variables mu_0, mu_1 and discrete
// z_0 … z_{n−1}.
func mixtureGraph(y []float64) *Graph {
	g := NewGraph(2)
	for k := range 2 {
		g.AddGaussian([]int{k}, []float64{1}, 0, mixMean[k], mixVar[k])
	}
	for _, yi := range y {
		z := g.AddDiscrete(mixW)
		g.AddGate(z, yi, []Branch{
			{Lik: ep.Gaussian{Var: mixNoise}, Vars: []int{0}, Coefs: []float64{1}},
			{Lik: ep.Gaussian{Var: mixNoise}, Vars: []int{1}, Coefs: []float64{1}},
		})
	}
	return g
}

// mixtureEnumeration is the exact posterior written out: for each of the
// 2ⁿ assignments the components are independent conjugate updates, with
// the evidence of each by the prediction-error decomposition
// Σ_i log N(y_i; m, v + s²), (m, v) the posterior before y_i. It returns
// the component means and variances, p(z_i = k) and log p(y).
func mixtureEnumeration(y []float64) (mean, vr []float64, prob [][]float64, logZ float64) {
	n := len(y)
	type cfg struct {
		lw     float64
		m, v   [2]float64
		assign int
	}
	all := make([]cfg, 0, 1<<n)
	for a := 0; a < 1<<n; a++ {
		c := cfg{assign: a, m: [2]float64{mixMean[0], mixMean[1]}, v: [2]float64{mixVar[0], mixVar[1]}}
		for i, yi := range y {
			k := a >> i & 1
			c.lw += math.Log(mixW[k])
			m, v := c.m[k], c.v[k]
			s := v + mixNoise
			c.lw += -0.5*math.Log(2*math.Pi*s) - 0.5*(yi-m)*(yi-m)/s
			nv := 1 / (1/v + 1/mixNoise)
			c.m[k], c.v[k] = nv*(m/v+yi/mixNoise), nv
		}
		all = append(all, c)
	}
	lws := make([]float64, len(all))
	for i, c := range all {
		lws[i] = c.lw
	}
	logZ = mathx.LogSumExp(lws)
	mean, vr = make([]float64, 2), make([]float64, 2)
	second := make([]float64, 2)
	prob = make([][]float64, n)
	for i := range prob {
		prob[i] = make([]float64, 2)
	}
	for _, c := range all {
		w := math.Exp(c.lw - logZ)
		for k := range 2 {
			mean[k] += w * c.m[k]
			second[k] += w * (c.v[k] + c.m[k]*c.m[k])
		}
		for i := range y {
			prob[i][c.assign>>i&1] += w
		}
	}
	for k := range 2 {
		vr[k] = second[k] - mean[k]*mean[k]
	}
	return mean, vr, prob, logZ
}

// TestMixtureEnumerate: Enumerate equals the enumeration written above to
// 1e-9 in the component means and variances, p(z_i) and log Z.
func TestMixtureEnumerate(t *testing.T) {
	mean, vr, prob, logZ := mixtureEnumeration(mix10)
	res, err := Enumerate(context.Background(), mixtureGraph(mix10))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != infer.Done || !res.Exact {
		t.Fatalf("%v: %s", res.Status, res.Message)
	}
	checkMixture(t, "enumerate", res, mean, vr, prob, logZ, 1e-9, 1e-9, 1e-9, 1e-9)
}

func checkMixture(t *testing.T, name string, res *Result, mean, vr []float64, prob [][]float64, logZ, tm, tv, tp, tz float64) {
	t.Helper()
	for k := range mean {
		if !scalar.EqualWithinAbs(res.Mean[k], mean[k], tm) || !scalar.EqualWithinAbs(res.Var[k], vr[k], tv) {
			t.Errorf("%s: mu_%d = %.10g ± %.10g, exact %.10g ± %.10g", name, k, res.Mean[k], res.Var[k], mean[k], vr[k])
		}
	}
	for i := range prob {
		if !scalar.EqualWithinAbs(res.Prob[i][1], prob[i][1], tp) {
			t.Errorf("%s: p(z_%d = 1) = %.10g, exact %.10g", name, i, res.Prob[i][1], prob[i][1])
		}
	}
	if !res.HasLogZ || !scalar.EqualWithinAbs(res.LogZ, logZ, tz) {
		t.Errorf("%s: log Z %.10g (%v), exact %.10g", name, res.LogZ, res.HasLogZ, logZ)
	}
}

// TestMixtureEP: EP with gates (factorised family: BP on the assignments,
// EP on the means) against the exact posterior. Measured errors (kl):
// means 5.7e-4, variances 8.1e-4, p(z_i) 1.1e-3, log Z 1.3e-3; the
// tolerance 5e-3 is about four times these. Damped parallel sweeps reach
// the same fixed point.
func TestMixtureEP(t *testing.T) {
	mean, vr, prob, logZ := mixtureEnumeration(mix10)
	g := mixtureGraph(mix10)
	for _, c := range []struct {
		name string
		s    infer.Settings
	}{
		{"kl", infer.Settings{Tol: 1e-10, MaxIter: 500}},
		{"kl parallel damped", infer.Settings{Tol: 1e-10, MaxIter: 2000, Schedule: infer.Parallel, Damping: 0.5}},
	} {
		res, err := Run(context.Background(), g, Settings{Settings: c.s, Family: Factorized})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != infer.Converged {
			t.Fatalf("%s: %v (%s)", c.name, res.Status, res.Message)
		}
		checkMixture(t, c.name, res, mean, vr, prob, logZ, 5e-3, 5e-3, 5e-3, 5e-3)
	}
}

// clutter20 are Minka's clutter data (as in infer/run's clutter tests).
var clutter20 = []float64{3.0, -1.2, 2.5, 1.9, 7.3, 2.2, -4.1, 1.5, 2.8, 0.4,
	2.0, 12.0, 1.7, 2.4, -6.5, 3.1, 2.2, 0.9, 1.8, 2.6}

// TestClutterGatesEqualMixture: the clutter problem with explicit
// indicators, z_i ~ Categorical(½, ½) selecting N(y_i; x, 1) or the
// clutter density N(y_i; 0, 10) (a branch on no variable), has under EP the
// fixed point of the mixture likelihood ½ N(y; x, 1) + ½ N(y; 0, 10)
// (factor.Mixture): each z_i sits in one gate, so its message is exact and
// the gate's message to x is the mixture site's. Mean, variance and log Z
// agree to 1e-9.
func TestClutterGatesEqualMixture(t *testing.T) {
	for _, pv := range []float64{100, 1} {
		gated, mixed := NewGraph(1), NewGraph(1)
		for _, g := range []*Graph{gated, mixed} {
			g.AddGaussian([]int{0}, []float64{1}, 0, 0, pv)
		}
		for _, y := range clutter20 {
			z := gated.AddDiscrete([]float64{0.5, 0.5})
			gated.AddGate(z, y, []Branch{{Lik: ep.Gaussian{Var: 1}, Vars: []int{0}, Coefs: []float64{1}}, {Lik: ep.Gaussian{Var: 10}}})
			c, _, _ := factor.Normal{Var: 10}.LogLik(y, 0)
			mixed.AddSite(factor.Mixture{W: []float64{0.5, 0.5}, Comps: []factor.Site{factor.Normal{Var: 1}, nil}, LogC: []float64{0, c}}, y, []int{0}, []float64{1}, 0)
		}
		s := Settings{Settings: infer.Settings{Tol: 1e-12, MaxIter: 1000}, Family: Factorized}
		a, err := Run(context.Background(), gated, s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(context.Background(), mixed, s)
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != infer.Converged || b.Status != infer.Converged {
			t.Fatalf("pv = %g: gates %v, mixture %v", pv, a.Status, b.Status)
		}
		if !scalar.EqualWithinAbs(a.Mean[0], b.Mean[0], 1e-9) || !scalar.EqualWithinAbs(a.Var[0], b.Var[0], 1e-9) ||
			!a.HasLogZ || !scalar.EqualWithinAbs(a.LogZ, b.LogZ, 1e-9) {
			t.Errorf("pv = %g: gates %.12g ± %.12g log Z %.12g; mixture %.12g ± %.12g log Z %.12g",
				pv, a.Mean[0], a.Var[0], a.LogZ, b.Mean[0], b.Var[0], b.LogZ)
		}
	}
}

// clutterPowerEP is power EP with power u on the clutter problem with
// explicit indicators written out in joint (x, z) space (Minka 2004, "Power
// EP"): site i approximates f_i(x, z_i) by t̃_i(x) μ_i(z_i), with the
// Gaussian cavity N(m, v) of x and the cavity c(k) ∝ w_k μ_i(k)^{1−u} of
// z_i. Branch 0 is N(y; x, 1): its power-u evidence is
// (2π)^{(1−u)/2} u^{−½} N(y; m, v + 1/u) and its tilted x is Gaussian with
// precision 1/v + u; branch 1 is the constant N(y; 0, 10)^u. The tilted
// x is their mixture with responsibilities r_k ∝ c(k) Z_k, the new site
// is (q̂/cavity)^{1/u}, replacing the old one in q, and μ_i(k) = Z_k^{1/u}. The evidence is
//
//	log Z = log ∫ p₀ Π t̃_i dx + Σ_i log Σ_k w_k μ_i(k) + Σ_i (1/u)[log Ẑ_i − log ∫ t̃_i^u q\i],
//
// Ẑ_i = Σ_k c(k) Z_k and ∫ t̃_i^u q\i = ∫ t̃_i(x)^u N(x; m, v) dx · Σ_k c(k) μ_i(k)^u (c normalised).
func clutterPowerEP(y []float64, pv, u float64) (mean, vr, logZ float64) {
	n := len(y)
	tau, nu := make([]float64, n), make([]float64, n)
	mu := make([][2]float64, n) // log μ_i(k)
	P, L := 1/pv, 0.0
	corr := make([]float64, n)
	for sweep := 0; sweep < 2000; sweep++ {
		change := 0.0
		for i, yi := range y {
			cp, cl := P-u*tau[i], L-u*nu[i]
			m, v := cl/cp, 1/cp
			lc := [2]float64{math.Log(0.5) + (1-u)*mu[i][0], math.Log(0.5) + (1-u)*mu[i][1]}
			ln := mathx.LogSumExp(lc[:])
			lz := [2]float64{0.5*(1-u)*math.Log(2*math.Pi) - 0.5*math.Log(u) + logNormPDF(yi, m, v+1/u), u * logNormPDF(yi, 0, 10)}
			lr := [2]float64{lc[0] - ln + lz[0], lc[1] - ln + lz[1]}
			lzhat := mathx.LogSumExp(lr[:])
			r0 := math.Exp(lr[0] - lzhat)
			v0 := 1 / (1/v + u)
			m0 := v0 * (m/v + u*yi)
			M := r0*m0 + (1-r0)*m
			V := r0*(v0+(m0-M)*(m0-M)) + (1-r0)*(v+(m-M)*(m-M))
			nt, nn := (1/V-1/v)/u, (M/V-m/v)/u
			change = math.Max(change, math.Abs(nt-tau[i])+math.Abs(nn-nu[i]))
			P, L = P+nt-tau[i], L+nn-nu[i]
			tau[i], nu[i] = nt, nn
			mu[i] = [2]float64{lz[0] / u, lz[1] / u}
			lt := [2]float64{lc[0] - ln + u*mu[i][0], lc[1] - ln + u*mu[i][1]}
			corr[i] = (lzhat - logGaussInt(u*nt, u*nn, m, v) - mathx.LogSumExp(lt[:])) / u
		}
		if change < 1e-13 {
			break
		}
	}
	logZ = logGaussInt(P-1/pv, L, 0, pv)
	for i := range y {
		lw := [2]float64{math.Log(0.5) + mu[i][0], math.Log(0.5) + mu[i][1]}
		logZ += mathx.LogSumExp(lw[:]) + corr[i]
	}
	return L / P, 1 / P, logZ
}

func logNormPDF(y, m, v float64) float64 { return -0.5*math.Log(2*math.Pi*v) - 0.5*(y-m)*(y-m)/v }

// logGaussInt is log ∫ N(x; m, v) exp(−τ x²/2 + ν x) dx.
func logGaussInt(tau, nu, m, v float64) float64 {
	P, L := 1/v+tau, m/v+nu
	return -0.5*math.Log(v*P) + 0.5*L*L/P - 0.5*m*m/v
}

// TestClutterGatesPowerEP: gates under alpha(u) against the power EP
// written above, to 1e-9 in mean, variance and log Z.
func TestClutterGatesPowerEP(t *testing.T) {
	for _, u := range []float64{0.5, 0.8} {
		m, v, lz := clutterPowerEP(clutter20, 100, u)
		g := NewGraph(1)
		g.AddGaussian([]int{0}, []float64{1}, 0, 0, 100)
		for _, y := range clutter20 {
			z := g.AddDiscrete([]float64{0.5, 0.5})
			g.AddGate(z, y, []Branch{{Lik: ep.Gaussian{Var: 1}, Vars: []int{0}, Coefs: []float64{1}}, {Lik: ep.Gaussian{Var: 10}}})
		}
		res, err := Run(context.Background(), g, Settings{Settings: infer.Settings{Tol: 1e-12, MaxIter: 2000, Divergence: infer.Alpha{A: u}}, Family: Factorized})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != infer.Converged {
			t.Fatalf("alpha(%g): %v (%s)", u, res.Status, res.Message)
		}
		if !scalar.EqualWithinAbs(res.Mean[0], m, 1e-9) || !scalar.EqualWithinAbs(res.Var[0], v, 1e-9) ||
			!res.HasLogZ || !scalar.EqualWithinAbs(res.LogZ, lz, 1e-9) {
			t.Errorf("alpha(%g): gates %.12g ± %.12g log Z %.12g; power EP %.12g ± %.12g log Z %.12g", u, res.Mean[0], res.Var[0], res.LogZ, m, v, lz)
		}
	}
}

// TestGateErrors: bad discrete priors, branch counts and settings that gated
// graphs do not support are errors, not results.
func TestGateErrors(t *testing.T) {
	for _, prior := range [][]float64{{0.5, 0.6}, {-0.5, 1.5}, {math.NaN(), 1}, {}} {
		g := NewGraph(1)
		g.AddDiscrete(prior)
		if g.Err() == nil {
			t.Errorf("prior %v accepted", prior)
		}
	}
	g := NewGraph(1)
	g.AddGaussian([]int{0}, []float64{1}, 0, 0, 1)
	z := g.AddDiscrete([]float64{0.5, 0.5})
	g.AddGate(z, 1, []Branch{{Lik: ep.Gaussian{Var: 1}, Vars: []int{0}, Coefs: []float64{1}}})
	if g.Err() == nil {
		t.Error("a gate with one branch for two states accepted")
	}
	g = mixtureGraph(mix10)
	for _, s := range []Settings{
		{Family: Full},
		{Family: Factorized, Settings: infer.Settings{Schedule: infer.Residual}},
		{Family: Full, Settings: infer.Settings{Divergence: infer.RelaxedKL{C: 1}}},
	} {
		if _, err := Run(context.Background(), g, s); err == nil {
			t.Errorf("%+v accepted on a gated graph", s)
		}
	}
	probit := NewGraph(1)
	probit.AddGaussian([]int{0}, []float64{1}, 0, 0, 1)
	z = probit.AddDiscrete([]float64{0.5, 0.5})
	probit.AddGate(z, 1, []Branch{{Lik: ep.Probit{}, Vars: []int{0}, Coefs: []float64{1}}, {Lik: ep.Probit{}, Vars: []int{0}, Coefs: []float64{-1}}})
	if _, err := Enumerate(context.Background(), probit); err == nil {
		t.Error("Enumerate accepted probit branches")
	}
}
