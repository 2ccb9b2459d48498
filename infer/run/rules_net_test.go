package run

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/infer"
)

// netFixture is a conjugate model of one latent for a kind of the typed
// factor graph, with its posterior in closed form (written here, from the
// conjugate updates of Bernardo & Smith 1994, App. A): per element the
// mean and variance, and the log evidence. Every stable column of the
// kind is exact on it: EP and power EP (the sites are in the family), VMP
// (one latent: the mean-field posterior is the posterior and the ELBO
// log Z), exact (closed form) and mcmc (conjugate Gibbs, within 5
// standard errors).
type netFixture struct {
	src      string
	mean, vr []float64
	probs    []float64 // a discrete latent's state probabilities instead
	logZ     float64
}

func lgam(x float64) float64 { l, _ := math.Lgamma(x); return l }

func lbeta(a, b float64) float64 { return lgam(a) + lgam(b) - lgam(a+b) }

// betaMoments is the mean and variance of Beta(a, b).
func betaMoments(a, b float64) ([]float64, []float64) {
	return []float64{a / (a + b)}, []float64{a * b / ((a + b) * (a + b) * (a + b + 1))}
}

// netFixtures by kind name; beta–bernoulli and gamma–poisson share theirs.
var netFixtures = func() map[string]netFixture {
	coin := func() netFixture {
		m, v := betaMoments(6, 5) // Beta(2 + 4, 3 + 2)
		return netFixture{src: "data y: bool[6] = [1, 0, 1, 1, 1, 0]\nlatent p: real ~ beta(2, 3)\nfor i in 0..6 {\n  y[i] ~ bernoulli(p)\n}\n",
			mean: m, vr: v, logZ: lbeta(6, 5) - lbeta(2, 3)}
	}()
	binom := func() netFixture {
		m, v := betaMoments(12, 13) // Beta(2 + 10, 3 + 10): 10 successes in 20 trials
		lz := lbeta(12, 13) - lbeta(2, 3)
		for _, y := range []float64{3, 7} {
			lz += lgam(11) - lgam(y+1) - lgam(11-y)
		}
		return netFixture{src: "data y = [3, 7]\nlatent p: real ~ beta(2, 3)\nfor i in 0..2 {\n  y[i] ~ binomial(10, p)\n}\n", mean: m, vr: v, logZ: lz}
	}()
	counts := func() netFixture {
		lz := -lgam(2) + lgam(10) - 10*math.Log(4) // Gamma(2, 1) → Gamma(2 + 8, 1 + 3)
		for _, y := range []float64{3, 1, 4} {
			lz -= lgam(y + 1)
		}
		return netFixture{src: "data y = [3, 1, 4]\nlatent r: real ~ gamma(2, 1)\nfor i in 0..3 {\n  y[i] ~ poisson(r)\n}\n",
			mean: []float64{10.0 / 4}, vr: []float64{10.0 / 16}, logZ: lz}
	}()
	variance := func() netFixture {
		ys, ss := []float64{0.3, -1.2, 2.5, 1.1}, 0.0
		for _, y := range ys {
			ss += (y - 0.5) * (y - 0.5)
		}
		a, b := 3+2.0, 2+ss/2 // InvGamma(3, 2) → InvGamma(3 + n/2, 2 + Σ(y − 0.5)²/2)
		return netFixture{src: "data y = [0.3, -1.2, 2.5, 1.1]\nlatent s2: real ~ inv_gamma(3, 2)\nfor i in 0..4 {\n  y[i] ~ normal(0.5, s2)\n}\n",
			mean: []float64{b / (a - 1)}, vr: []float64{b * b / ((a - 1) * (a - 1) * (a - 2))},
			logZ: -2*math.Log(2*math.Pi) + 3*math.Log(2) - lgam(3) + lgam(a) - a*math.Log(b)}
	}()
	weights := func() netFixture {
		alpha, post := []float64{1, 2, 3}, []float64{2, 3, 6} // counts 1, 1, 3
		f := netFixture{src: "data y = [0, 2, 2, 1, 2]\nlatent w: real[3] ~ dirichlet([1, 2, 3])\nfor i in 0..5 {\n  y[i] ~ categorical(w)\n}\n",
			logZ: lgam(6) - lgam(11)}
		for k, a := range post {
			m := a / 11
			f.mean, f.vr = append(f.mean, m), append(f.vr, m*(1-m)/12)
			f.logZ += lgam(a) - lgam(alpha[k])
		}
		return f
	}()
	return map[string]netFixture{"beta": coin, "bernoulli": coin, "binomial": binom, "gamma": counts,
		"poisson": counts, "inv_gamma": variance, "dirichlet": weights}
}()

// vmpFixtures check alpha(0) (variational message passing, which runs on
// typed factor graphs only) on the Gaussian and discrete kinds: the
// conjugate Gaussian pair w ~ N(0, 2), 0.9 ~ N(w, 0.5) beside the coin
// (whose Beta latent makes the model a typed factor graph; the evidence
// is the product), and a categorical latent selecting a Bernoulli's
// probability, p(z) ∝ (0.3, 0.7) · (0.2, 0.9).
var vmpFixtures = func() map[string]netFixture {
	m, v, lz := conjugate()
	gauss := netFixture{src: "latent w: real ~ normal(0, 2)\ndata yw = [0.9]\nyw[0] ~ normal(w, 0.5)\n" + netFixtures["beta"].src,
		mean: []float64{m}, vr: []float64{v}, logZ: lz + netFixtures["beta"].logZ}
	sel := netFixture{src: "data q = [0.2, 0.9]\ndata y: bool[1] = [1]\nlatent z: cat(2)\nz ~ categorical([0.3, 0.7])\ny[0] ~ bernoulli(q[z])\n",
		probs: []float64{0.06 / 0.69, 0.63 / 0.69}, logZ: math.Log(0.69)}
	return map[string]netFixture{"normal": gauss, "categorical": sel}
}()

// netFixtureFor is the fixture of column c of kind k on a typed factor
// graph, if it has one.
func netFixtureFor(k factor.Kind, c factor.Column) (netFixture, bool) {
	if fx, ok := netFixtures[k.Name()]; ok {
		return fx, true
	}
	if c == (factor.Column{Method: "ep", Div: infer.DivVMP}) {
		fx, ok := vmpFixtures[k.Name()]
		return fx, ok
	}
	return netFixture{}, false
}

// checkNetRule runs column c of a Net kind on its fixture.
func checkNetRule(t *testing.T, c factor.Column, fx netFixture) {
	line := map[factor.Column]string{
		{Method: "ep", Div: infer.DivKL}:    "infer ep\n",
		{Method: "ep", Div: infer.DivAlpha}: "infer ep { divergence = alpha(0.5) }\n",
		{Method: "ep", Div: infer.DivVMP}:   "infer ep { divergence = alpha(0) }\n",
		{Method: "exact"}:                   "infer exact\n",
		{Method: "mcmc"}:                    "infer mcmc { samples = 5000, seed = 3 }\n",
	}[c]
	if line == "" {
		t.Fatalf("no check for %s", c)
	}
	res := runFirst(t, fx.src+line)
	v := res.Variables.At(0)
	for k, p := range fx.probs {
		near(t, res.Label+" probability", v.Probs[0][k], p, 1e-9)
	}
	for k := range fx.mean {
		if c.Method == "mcmc" {
			near(t, "mcmc mean", v.Mean[k], fx.mean[k], 5*v.MeanSE[k])
			near(t, "mcmc var", v.Var[k], fx.vr[k], 5*v.VarSE[k])
			continue
		}
		near(t, res.Label+" mean", v.Mean[k], fx.mean[k], 1e-9)
		near(t, res.Label+" var", v.Var[k], fx.vr[k], 1e-9)
	}
	if c.Method != "mcmc" {
		if !res.HasEvidence {
			t.Fatalf("%s: no log evidence", res.Label)
		}
		near(t, res.Label+" log evidence", res.LogEvidence, fx.logZ, 1e-9)
	}
}
