package run

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fg-infer/fg/compile"
	"github.com/fg-infer/fg/infer"
)

// runNetSource compiles src and runs every infer line.
func runNetSource(t *testing.T, src string) []*infer.Result {
	t.Helper()
	m, err := compile.CompileSource("predict.fg", []byte(src), compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Status != infer.Converged && r.Status != infer.Done {
			t.Fatalf("%s: status %v (%s)", r.Label, r.Status, r.Message)
		}
	}
	return rs
}

// variable returns r's variable called name.
func variable(t *testing.T, r *infer.Result, name string) infer.Variable {
	t.Helper()
	for _, v := range r.Variables.All() {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("%s: no variable %s", r.Label, name)
	return infer.Variable{}
}

func relNear(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestNetPredictBetaBernoulli: p ~ beta(2.5, 1.5) with k = 9 heads in
// n = 13 flips has the Beta(a', b') posterior, a' = 11.5, b' = 5.5. The
// predictive of a new flip is p(y = 1) = a'/(a' + b') = (a + k)/(a + b + n)
// and that of binomial(12, p) the beta-binomial: mean 12 a'/(a' + b'),
// variance 12 a'b'(a' + b' + 12)/((a' + b')²(a' + b' + 1)). ep (exact on
// the conjugate factors), alpha(0) (VMP on one latent is exact here) and
// exact agree with them to 1e-12; mcmc's p(y = 1) = E[p] lies within 4 of
// its Monte Carlo standard errors. The short form predictive(p) is the
// same predictive.
func TestNetPredictBetaBernoulli(t *testing.T) {
	ys := []int{1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 1}
	k, n := 0, len(ys)
	for _, y := range ys {
		k += y
	}
	a, b := 2.5, 1.5
	src := fmt.Sprintf(`model coin
data y: bool[%d] = %s
latent p: real ~ beta(%g, %g)
for i in 0..%d {
  y[i] ~ bernoulli(p)
}
predict heads = predictive(bernoulli(p))
predict short = predictive(p)
predict flips = predictive(binomial(12, p))
infer ep
infer ep as vmp { divergence = alpha(0) }
infer exact
infer mcmc { samples = 4000, seed = 3 }
`, n, strings.ReplaceAll(fmt.Sprint(ys), " ", ", "), a, b, n)
	rs := runNetSource(t, src)
	a1, b1 := a+float64(k), b+float64(n-k)
	prob := (a + float64(k)) / (a + b + float64(n))
	s := a1 + b1
	bbVar := 12 * a1 * b1 * (s + 12) / (s * s * (s + 1))
	for _, r := range rs[:3] {
		h, f := prediction(t, r, "heads"), prediction(t, r, "flips")
		if sh := prediction(t, r, "short"); len(sh.Prob) != 1 || sh.Prob[0] != h.Prob[0] || sh.Var[0] != h.Var[0] {
			t.Errorf("%s: predictive(p) %v, predictive(bernoulli(p)) %v", r.Label, sh.Prob, h.Prob)
		}
		if len(h.Prob) != 1 || !relNear(h.Prob[0], prob, 1e-12) || !relNear(h.Mean[0], prob, 1e-12) || !relNear(h.Var[0], prob*(1-prob), 1e-12) {
			t.Errorf("%s: heads prob %v mean %v var %v, want %v, %v", r.Label, h.Prob, h.Mean, h.Var, prob, prob*(1-prob))
		}
		if len(f.MeanY) != 1 || !relNear(f.MeanY[0], 12*prob, 1e-12) || !relNear(f.Var[0], bbVar, 1e-12) || f.Prob != nil {
			t.Errorf("%s: flips mean_y %v var %v prob %v, want %v, %v, none", r.Label, f.MeanY, f.Var, f.Prob, 12*prob, bbVar)
		}
	}
	mc := rs[3]
	h, se := prediction(t, mc, "heads"), variable(t, mc, "p").MeanSE[0]
	if d := math.Abs(h.Prob[0] - prob); !(d <= 4*se) {
		t.Errorf("mcmc p(y = 1) %v, want %v within 4 × %v", h.Prob[0], prob, se)
	}
}

// TestNetPredictGammaPoisson: rate ~ gamma(3, 2) with counts y has the
// Gamma(3 + Σy, 2 + n) posterior; the expected count of a new observation
// is (shape + Σy)/(rate + n), its variance the negative binomial's,
// a'/b' · (1 + 1/b'). ep, alpha(0) and exact to 1e-12; mcmc within 4 MCSE.
func TestNetPredictGammaPoisson(t *testing.T) {
	ys := []float64{4, 6, 5, 1, 0, 9, 7, 3}
	sum := 0.0
	for _, y := range ys {
		sum += y
	}
	n := float64(len(ys))
	src := fmt.Sprintf(`model counts
data y = %s
latent rate: real ~ gamma(3, 2)
for i in 0..%d {
  y[i] ~ poisson(rate)
}
predict cnt = predictive(poisson(rate))
infer ep
infer ep as vmp { divergence = alpha(0) }
infer exact
infer mcmc { samples = 4000, seed = 5 }
`, strings.ReplaceAll(fmt.Sprint(ys), " ", ", "), len(ys))
	rs := runNetSource(t, src)
	a1, b1 := 3+sum, 2+n
	mean, vr := a1/b1, a1/b1*(1+1/b1)
	for _, r := range rs[:3] {
		c := prediction(t, r, "cnt")
		if len(c.MeanY) != 1 || !relNear(c.MeanY[0], mean, 1e-12) || !relNear(c.Var[0], vr, 1e-12) {
			t.Errorf("%s: expected count %v var %v, want %v, %v", r.Label, c.MeanY, c.Var, mean, vr)
		}
	}
	mc := rs[3]
	c, se := prediction(t, mc, "cnt"), variable(t, mc, "rate").MeanSE[0]
	if d := math.Abs(c.MeanY[0] - mean); !(d <= 4*se) {
		t.Errorf("mcmc expected count %v, want %v within 4 × %v", c.MeanY[0], mean, se)
	}
}

// TestNetPredictNormalNoise: with a known mean m0 the noise of
// y ~ normal(m0, s2), s2 ~ inv_gamma(a, b), has the InvGamma(a + n/2,
// b + SS/2) posterior (SS = Σ (y − m0)²) and the predictive of a new
// observation is Student-t with mean m0 and variance b'/(a' − 1); the
// precision form y ~ normal(m0, 1 / tau), tau ~ gamma(a, b), has the
// Gamma(a', b') posterior and the same predictive (E[1/τ] = b'/(a' − 1)).
// Both under ep and alpha(0), the variance form also under exact, 1e-12.
func TestNetPredictNormalNoise(t *testing.T) {
	ys := []float64{1.2, 0.4, 2.1, 1.6, 0.9, 1.3, 2.4, 0.7}
	m0, a, b := 1.1, 3.0, 2.0
	ss := 0.0
	for _, y := range ys {
		ss += (y - m0) * (y - m0)
	}
	a1, b1 := a+float64(len(ys))/2, b+ss/2
	want := b1 / (a1 - 1)
	data := strings.ReplaceAll(fmt.Sprint(ys), " ", ", ")
	for _, form := range []struct{ prior, arg, extra string }{
		{"s2: real ~ inv_gamma(3, 2)", "s2", "infer exact\n"},
		{"tau: real ~ gamma(3, 2)", "1 / tau", "infer exact\n"},
	} {
		src := fmt.Sprintf(`model noise
data y = %s
latent %s
for i in 0..%d {
  y[i] ~ normal(%g, %s)
}
predict ynew = predictive(normal(%g, %s))
infer ep
infer ep as vmp { divergence = alpha(0) }
%s`, data, form.prior, len(ys), m0, form.arg, m0, form.arg, form.extra)
		for _, r := range runNetSource(t, src) {
			p := prediction(t, r, "ynew")
			if !relNear(p.Mean[0], m0, 1e-12) || !relNear(p.Var[0], want, 1e-12) || p.MeanY != nil || p.Prob != nil {
				t.Errorf("%s (%s): mean %v var %v, want %v, %v", r.Label, form.arg, p.Mean, p.Var, m0, want)
			}
		}
	}
}

// TestNetPredictVector: a vector argument gives one prediction per
// element, scalars broadcasting: rate[j] ~ gamma(2, 1) with counts per
// group, predictive(poisson(rate)) is (2 + Σ_j y)/(1 + n_j) for each group,
// and so is the short form predictive(rate) (the groups' observations are
// poisson(rate[j])).
func TestNetPredictVector(t *testing.T) {
	rs := runNetSource(t, `model groups
data g = [0, 0, 1, 2, 2, 2]
data y = [3, 5, 0, 7, 6, 8]
latent rate: real[3] ~ gamma(2, 1)
for i in 0..6 {
  y[i] ~ poisson(rate[g[i]])
}
predict cnt = predictive(poisson(rate))
predict short = predictive(rate)
infer exact
`)
	want := []float64{(2 + 8) / 3.0, 2 / 2.0, (2 + 21) / 4.0}
	c := prediction(t, rs[0], "cnt")
	if len(c.MeanY) != 3 || c.Shape[0] != 3 {
		t.Fatalf("shape %v, mean_y %v", c.Shape, c.MeanY)
	}
	sh := prediction(t, rs[0], "short")
	for j := range want {
		if !relNear(c.MeanY[j], want[j], 1e-12) || len(sh.MeanY) != 3 || sh.MeanY[j] != c.MeanY[j] {
			t.Errorf("cnt[%d] = %v (short form %v), want %v", j, c.MeanY[j], sh.MeanY, want[j])
		}
	}
}

// TestNetPredictLatentPrecision: mu ~ normal(0, 100), tau ~ gamma(2, 2),
// y[i] ~ normal(mu, 1 / tau) has no closed form; the predictive of a new
// y* ~ normal(mu, 1 / tau) has mean E[mu] and variance Var[mu] + E[1/tau]
// (total variance). The reference integrates tau on a trapezoid rule in
// log tau (2·10⁵ nodes) with mu in closed form at each node (the marginal
// likelihood of y given tau is N(0, I/tau + 100·11ᵀ)). exact (quadrature in
// log tau) agrees to 1e-8; mcmc within 0.03 (about 6 of its Monte Carlo
// standard errors of E[1/tau] at ESS ≈ 10⁴).
func TestNetPredictLatentPrecision(t *testing.T) {
	ys := []float64{1.2, 0.4, 2.1, 1.6, 0.9, 1.3, 2.4, 0.7}
	n, sy, syy := float64(len(ys)), 0.0, 0.0
	for _, y := range ys {
		sy += y
		syy += y * y
	}
	// log p(tau) + log p(y | tau) + log tau (the Jacobian of u = log tau),
	// and the conditional posterior of mu given tau.
	logw := func(tau float64) float64 {
		lp := math.Log(tau) - 2*tau // Gamma(2, 2) up to a constant
		q := 1 + 100*n*tau
		ll := 0.5*n*math.Log(tau) - 0.5*math.Log(q) - 0.5*(tau*syy-100*tau*tau*sy*sy/q)
		return lp + ll + math.Log(tau)
	}
	const nodes = 200000
	lo, hi := -15.0, 8.0
	h := (hi - lo) / nodes
	shift := math.Inf(-1)
	for i := 0; i <= nodes; i++ {
		shift = math.Max(shift, logw(math.Exp(lo+float64(i)*h)))
	}
	var z, em, em2, einv float64
	for i := 0; i <= nodes; i++ {
		tau := math.Exp(lo + float64(i)*h)
		w := math.Exp(logw(tau) - shift)
		if i == 0 || i == nodes {
			w /= 2
		}
		prec := 0.01 + n*tau
		m := tau * sy / prec
		z += w
		em += w * m
		em2 += w * (m*m + 1/prec)
		einv += w / tau
	}
	em, em2, einv = em/z, em2/z, einv/z
	wantVar := em2 - em*em + einv
	rs := runNetSource(t, fmt.Sprintf(`model mean_precision
data y = %s
latent mu: real ~ normal(0, 100)
latent tau: real ~ gamma(2, 2)
for i in 0..8 {
  y[i] ~ normal(mu, 1 / tau)
}
predict ynew = predictive(normal(mu, 1 / tau))
infer exact
infer mcmc { samples = 4000 }
`, strings.ReplaceAll(fmt.Sprint(ys), " ", ", ")))
	for _, r := range rs {
		tol := 1e-8
		if r.Label == "mcmc" {
			tol = 0.03
		}
		p := prediction(t, r, "ynew")
		if !(math.Abs(p.Mean[0]-em) <= tol) || !(math.Abs(p.Var[0]-wantVar) <= tol) {
			t.Errorf("%s: predictive N(%.10g, %.10g), quadrature (%.10g, %.10g)", r.Label, p.Mean[0], p.Var[0], em, wantVar)
		}
	}
}
