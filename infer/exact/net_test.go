package exact

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mathext"

	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/infer"
	nt "github.com/fg-infer/fg/infer/netjoint/nettest"
)

func lg(x float64) float64 { l, _ := math.Lgamma(x); return l }

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !scalar.EqualWithinAbsOrRel(got, want, tol, tol) {
		t.Errorf("%s = %.15g, want %.15g (tolerance %g)", what, got, want, tol)
	}
}

func runNet(t *testing.T, n *graph.Net, algo string) *NetResult {
	t.Helper()
	r, err := RunNet(context.Background(), n, NetSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Algorithm != algo {
		t.Errorf("algorithm %q, want %q", r.Algorithm, algo)
	}
	return r
}

// TestNetConjugatePairs: each conjugate pair's posterior parameters and
// log evidence equal the closed forms written here (Bernardo & Smith
// 1994, App. A; Bishop 2006, §2.1–2.3) to 1e-9.
func TestNetConjugatePairs(t *testing.T) {
	t.Run("beta-bernoulli", func(t *testing.T) {
		var n graph.Net
		p := nt.Var(&n, "p", graph.Beta, 1)
		nt.Factor(&n, nt.Beta, p, nt.D("a", 2), nt.D("b", 3))
		ys := []float64{1, 0, 1, 1, 0, 1, 1}
		for _, y := range ys {
			nt.Obs(&n, nt.Bernoulli, y, nt.V("p", p))
		}
		r := runNet(t, &n, "closed form")
		near(t, "a", r.Vars[p].Params[0], 7, 1e-9)
		near(t, "b", r.Vars[p].Params[1], 5, 1e-9)
		near(t, "log Z", r.LogZ, mathext.Lbeta(7, 5)-mathext.Lbeta(2, 3), 1e-9)
		near(t, "mean", r.Vars[p].Mean[0], 7.0/12, 1e-9)
		near(t, "var", r.Vars[p].Var[0], 35.0/(144*13), 1e-9)
	})
	t.Run("beta-binomial", func(t *testing.T) {
		var n graph.Net
		p := nt.Var(&n, "p", graph.Beta, 1)
		nt.Factor(&n, nt.Beta, p, nt.D("a", 1.5), nt.D("b", 2.5))
		want, s, f := 0.0, 0.0, 0.0
		for _, y := range []float64{3, 7, 4} {
			nt.Obs(&n, nt.Binomial, y, nt.D("n", 10), nt.V("p", p))
			want += lg(11) - lg(y+1) - lg(11-y)
			s, f = s+y, f+10-y
		}
		want += mathext.Lbeta(1.5+s, 2.5+f) - mathext.Lbeta(1.5, 2.5)
		r := runNet(t, &n, "closed form")
		near(t, "a", r.Vars[p].Params[0], 1.5+s, 1e-9)
		near(t, "b", r.Vars[p].Params[1], 2.5+f, 1e-9)
		near(t, "log Z", r.LogZ, want, 1e-9)
	})
	t.Run("gamma-poisson", func(t *testing.T) {
		var n graph.Net
		l := nt.Var(&n, "rate", graph.Gamma, 1)
		a, b := 2.0, 1.0
		nt.Factor(&n, nt.Gamma, l, nt.D("shape", a), nt.D("rate", b))
		ys := []float64{3, 1, 4, 1, 5}
		S, want := 0.0, 0.0
		for _, y := range ys {
			nt.Obs(&n, nt.Poisson, y, nt.V("rate", l))
			S += y
			want -= lg(y + 1)
		}
		an, bn := a+S, b+float64(len(ys))
		want += a*math.Log(b) - lg(a) + lg(an) - an*math.Log(bn)
		r := runNet(t, &n, "closed form")
		near(t, "shape", r.Vars[l].Params[0], an, 1e-9)
		near(t, "rate", r.Vars[l].Params[1], bn, 1e-9)
		near(t, "log Z", r.LogZ, want, 1e-9)
		near(t, "mean", r.Vars[l].Mean[0], an/bn, 1e-9)
	})
	ys := []float64{0.3, -1.2, 2.5, 1.1, 0.7, -0.4}
	m := 0.5
	ss := 0.0
	for _, y := range ys {
		ss += (y - m) * (y - m)
	}
	nn := float64(len(ys))
	normalGamma := func(a, b float64) (float64, float64, float64) {
		an, bn := a+nn/2, b+ss/2
		return an, bn, -nn/2*math.Log(2*math.Pi) + a*math.Log(b) - lg(a) + lg(an) - an*math.Log(bn)
	}
	// the same update in the precision (Gamma) and variance (inverse-Gamma) forms
	for _, c := range []struct {
		fam         graph.Family
		prior       graph.Kind
		scale, edge string
		mean        func(a, b float64) float64
	}{{graph.Gamma, nt.Gamma, "rate", "prec", func(a, b float64) float64 { return a / b }},
		{graph.InvGamma, nt.InvGamma, "scale", "var", func(a, b float64) float64 { return b / (a - 1) }}} {
		t.Run(c.fam.String()+"-normal "+c.edge, func(t *testing.T) {
			var n graph.Net
			v := nt.Var(&n, "v", c.fam, 1)
			nt.Factor(&n, c.prior, v, nt.D("shape", 3), nt.D(c.scale, 2))
			for _, y := range ys {
				nt.Obs(&n, nt.Normal, y, nt.D("mean", m), nt.V(c.edge, v))
			}
			an, bn, want := normalGamma(3, 2)
			r := runNet(t, &n, "closed form")
			near(t, "shape", r.Vars[v].Params[0], an, 1e-9)
			near(t, c.scale, r.Vars[v].Params[1], bn, 1e-9)
			near(t, "log Z", r.LogZ, want, 1e-9)
			near(t, "mean", r.Vars[v].Mean[0], c.mean(an, bn), 1e-9)
		})
	}
	t.Run("dirichlet-categorical", func(t *testing.T) {
		var n graph.Net
		alpha := []float64{1, 2, 3}
		w := nt.Var(&n, "w", graph.Dirichlet, 3)
		nt.Factor(&n, nt.Dirichlet, w, nt.D("alpha", alpha...))
		counts := make([]float64, 3)
		for _, y := range []float64{0, 2, 2, 1, 2} {
			nt.Obs(&n, nt.Categorical, y, nt.V("p", w))
			counts[int(y)]++
		}
		want := lg(6) - lg(6+5)
		r := runNet(t, &n, "closed form")
		for k, a := range alpha {
			want += lg(a+counts[k]) - lg(a)
			near(t, "alpha", r.Vars[w].Params[k], a+counts[k], 1e-9)
			near(t, "mean", r.Vars[w].Mean[k], (a+counts[k])/11, 1e-9)
		}
		near(t, "log Z", r.LogZ, want, 1e-9)
	})
}

// TestNetMeanPrecision: the mean and precision of a Gaussian with
// independent priors μ ~ N(0, 4), τ ~ Gamma(2, 1) (not conjugate
// jointly): exact integrates τ by quadrature and μ in closed form; the
// log evidence, means and standard deviations equal a 2-D Gauss–Legendre
// grid integral over (μ, log τ) written here to 1e-6.
func TestNetMeanPrecision(t *testing.T) {
	ys := []float64{1.2, 0.4, 2.1, 1.6, 0.9, 1.4}
	var n graph.Net
	mu := nt.Var(&n, "mu", graph.Gaussian, 1)
	tau := nt.Var(&n, "tau", graph.Gamma, 1)
	nt.Factor(&n, nt.NormalPrior, mu, nt.D("mean", 0), nt.D("var", 4))
	nt.Factor(&n, nt.Gamma, tau, nt.D("shape", 2), nt.D("rate", 1))
	for _, y := range ys {
		nt.Obs(&n, nt.Normal, y, nt.V("mean", mu), nt.V("prec", tau))
	}
	r := runNet(t, &n, "quadrature")

	// log p(μ, τ, y) with τ = e^s and the Jacobian e^s, on a 400×400
	// Gauss–Legendre grid over μ ∈ [−4, 6], s ∈ [−7, 4].
	logJoint := func(m, s float64) float64 {
		tv := math.Exp(s)
		l := -0.5*m*m/4 - 0.5*math.Log(2*math.Pi*4)   // N(μ; 0, 4)
		l += 2*math.Log(1) - lg(2) + (2-1)*s - tv + s // Gamma(τ; 2, 1) dτ/ds
		for _, y := range ys {
			l += 0.5*s - 0.5*math.Log(2*math.Pi) - 0.5*tv*(y-m)*(y-m)
		}
		return l
	}
	xm, wm := legendre(400, -4, 6)
	xs, ws := legendre(400, -7, 4)
	var z, m1, m2, t1, t2 float64
	for i, m := range xm {
		for k, s := range xs {
			f := wm[i] * ws[k] * math.Exp(logJoint(m, s))
			tv := math.Exp(s)
			z += f
			m1, m2 = m1+f*m, m2+f*m*m
			t1, t2 = t1+f*tv, t2+f*tv*tv
		}
	}
	m1, m2, t1, t2 = m1/z, m2/z, t1/z, t2/z
	near(t, "log Z", r.LogZ, math.Log(z), 1e-6)
	near(t, "E[mu]", r.Vars[mu].Mean[0], m1, 1e-6)
	near(t, "sd[mu]", math.Sqrt(r.Vars[mu].Var[0]), math.Sqrt(m2-m1*m1), 1e-6)
	near(t, "E[tau]", r.Vars[tau].Mean[0], t1, 1e-6)
	near(t, "sd[tau]", math.Sqrt(r.Vars[tau].Var[0]), math.Sqrt(t2-t1*t1), 1e-6)
	if r.Vars[mu].Params != nil {
		t.Errorf("mu's posterior is not Gaussian, but Params = %v", r.Vars[mu].Params)
	}
}

// legendre is the n-point Gauss–Legendre rule on [a, b] (Golub–Welsch by
// Newton iteration on P_n).
func legendre(n int, a, b float64) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for it := 0; it < 100; it++ {
			p0, p1 := 1.0, z
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*z*p1-float64(k-1)*p0)/float64(k)
			}
			dp = float64(n) * (z*p1 - p0) / (z*z - 1)
			dz := p1 / dp
			z -= dz
			if math.Abs(dz) < 1e-15 {
				break
			}
		}
		x[i] = (a+b)/2 - (b-a)/2*z
		w[i] = (b - a) / ((1 - z*z) * dp * dp)
	}
	return x, w
}

// gaussGroup is, for the points ys of one component with a N(m0, v0)
// prior on its mean and noise variance s2, the log marginal likelihood
// log N(ys; m0·1, s2 I + v0 11ᵀ) (Sherman–Morrison) and the posterior
// mean and variance of the component's mean.
func gaussGroup(ys []float64, m0, v0, s2 float64) (logml, mean, vr float64) {
	n := float64(len(ys))
	S, Q, sum := 0.0, 0.0, 0.0
	for _, y := range ys {
		S += y - m0
		Q += (y - m0) * (y - m0)
		sum += y
	}
	logml = -n/2*math.Log(2*math.Pi) - 0.5*(n*math.Log(s2)+math.Log1p(n*v0/s2)) -
		0.5*(Q/s2-v0*S*S/(s2*(s2+n*v0)))
	prec := 1/v0 + n/s2
	return logml, (m0/v0 + sum/s2) / prec, 1 / prec
}

// logSumExp of xs, for the brute-force sums.
func logSumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// TestNetGaussianMixture: 8 points, 3 components with Dirichlet(1, 2, 1.5)
// weights and N(0, 9) means, noise variance 0.5: enumeration of the 3⁸
// assignments with closed-form evidence equals a brute-force sum written
// here (Dirichlet–multinomial × per-component Gaussian marginals) in log Z,
// the assignment probabilities and the means of weights and means, to 1e-9.
func TestNetGaussianMixture(t *testing.T) {
	ys := []float64{-2.1, -1.7, 0.2, 0.5, -0.1, 2.8, 3.3, 2.5}
	alpha := []float64{1, 2, 1.5}
	const K, m0, v0, s2 = 3, 0.0, 9.0, 0.5
	var n graph.Net
	w := nt.Var(&n, "w", graph.Dirichlet, K)
	nt.Factor(&n, nt.Dirichlet, w, nt.D("alpha", alpha...))
	mus := make([]graph.Edge, K)
	var muv []int
	for k := range mus {
		v := nt.Var(&n, "mu", graph.Gaussian, 1)
		nt.Factor(&n, nt.NormalPrior, v, nt.D("mean", m0), nt.D("var", v0))
		mus[k], muv = nt.V("mean", v), append(muv, v)
	}
	var zs []int
	for _, y := range ys {
		z := nt.Var(&n, "z", graph.Discrete, K)
		nt.Factor(&n, nt.Categorical, z, nt.V("p", w))
		nt.Obs(&n, nt.Normal, y, nt.Select("mean", z, mus...), nt.D("var", s2))
		zs = append(zs, z)
	}
	r := runNet(t, &n, "enumeration")

	N := len(ys)
	total := 1
	for range ys {
		total *= K
	}
	logw := make([]float64, total)
	muMean := make([][]float64, total)
	wMean := make([][]float64, total)
	assign := make([][]int, total)
	sa := 0.0
	for _, a := range alpha {
		sa += a
	}
	for c := 0; c < total; c++ {
		z := make([]int, N)
		for i, cc := N-1, c; i >= 0; i, cc = i-1, cc/K {
			z[i] = cc % K
		}
		assign[c] = z
		l := lg(sa) - lg(sa+float64(N))
		muMean[c], wMean[c] = make([]float64, K), make([]float64, K)
		for k := 0; k < K; k++ {
			var g []float64
			for i, zi := range z {
				if zi == k {
					g = append(g, ys[i])
				}
			}
			nk := float64(len(g))
			l += lg(alpha[k]+nk) - lg(alpha[k])
			ml, pm, _ := gaussGroup(g, m0, v0, s2)
			l += ml
			muMean[c][k] = pm
			wMean[c][k] = (alpha[k] + nk) / (sa + float64(N))
		}
		logw[c] = l
	}
	logZ := logSumExp(logw)
	near(t, "log Z", r.LogZ, logZ, 1e-9)
	for k := 0; k < K; k++ {
		em, ew := 0.0, 0.0
		for c := range logw {
			p := math.Exp(logw[c] - logZ)
			em += p * muMean[c][k]
			ew += p * wMean[c][k]
		}
		near(t, "E[mu_k]", r.Vars[muv[k]].Mean[0], em, 1e-9)
		near(t, "E[w_k]", r.Vars[w].Mean[k], ew, 1e-9)
	}
	for i, z := range zs {
		for k := 0; k < K; k++ {
			p := 0.0
			for c := range logw {
				if assign[c][i] == k {
					p += math.Exp(logw[c] - logZ)
				}
			}
			near(t, "p(z_i = k)", r.Vars[z].Probs[k], p, 1e-9)
		}
	}
}

// hmm builds a two-state HMM z_0 ~ cat(pi0), z_t ~ cat(A[z_{t−1}]) with
// emissions y_t ~ normal(mean[z_t], var[z_t]); means are latent
// N(0, 10) variables when learned, else the data in means.
func hmm(ys []float64, pi0 []float64, A [][]float64, means, vars []float64, learned bool) (*graph.Net, []int, []int) {
	var n graph.Net
	em := make([]graph.Edge, 2)
	ev := []graph.Edge{nt.D("var", vars[0]), nt.D("var", vars[1])}
	var muv []int
	for k := range em {
		if learned {
			v := nt.Var(&n, "mu", graph.Gaussian, 1)
			nt.Factor(&n, nt.NormalPrior, v, nt.D("mean", 0), nt.D("var", 10))
			em[k], muv = nt.V("mean", v), append(muv, v)
		} else {
			em[k] = nt.D("mean", means[k])
		}
	}
	var zs []int
	for t, y := range ys {
		z := nt.Var(&n, "z", graph.Discrete, 2)
		if t == 0 {
			nt.Factor(&n, nt.Categorical, z, nt.D("p", pi0...))
		} else {
			nt.Factor(&n, nt.Categorical, z, nt.Select("p", zs[t-1], nt.D("p", A[0]...), nt.D("p", A[1]...)))
		}
		nt.Obs(&n, nt.Normal, y, nt.Select("mean", z, em...), nt.Select("var", z, ev...))
		zs = append(zs, z)
	}
	return &n, zs, muv
}

// stateOne is p(z_i = 1) from the log weights of the paths c (bit i of c
// is z_i) and their log sum.
func stateOne(logw []float64, logZ float64, i int) float64 {
	p := 0.0
	for c, l := range logw {
		if c>>i&1 == 1 {
			p += math.Exp(l - logZ)
		}
	}
	return p
}

func logNorm(y, m, v float64) float64 { return -0.5*(y-m)*(y-m)/v - 0.5*math.Log(2*math.Pi*v) }

// TestNetForwardBackward: a two-state HMM with known parameters at T = 8:
// forward–backward's log evidence and marginals equal a brute-force sum
// over the 2⁸ paths written here to 1e-10.
func TestNetForwardBackward(t *testing.T) {
	ys := []float64{0.1, 1.9, 2.2, -0.3, 0.4, 2.6, 1.8, 0.0}
	pi0, A := []float64{0.6, 0.4}, [][]float64{{0.8, 0.2}, {0.3, 0.7}}
	means, vars := []float64{0, 2}, []float64{0.5, 0.8}
	n, zs, _ := hmm(ys, pi0, A, means, vars, false)
	r := runNet(t, n, "forward-backward")
	T := len(ys)
	var logw []float64
	for c := 0; c < 1<<T; c++ {
		l := 0.0
		for i := 0; i < T; i++ {
			s := c >> i & 1
			if i == 0 {
				l += math.Log(pi0[s])
			} else {
				l += math.Log(A[c>>(i-1)&1][s])
			}
			l += logNorm(ys[i], means[s], vars[s])
		}
		logw = append(logw, l)
	}
	logZ := logSumExp(logw)
	near(t, "log Z", r.LogZ, logZ, 1e-10)
	for i, z := range zs {
		p := stateOne(logw, logZ, i)
		near(t, "p(z_t = 1)", r.Vars[z].Probs[1], p, 1e-10)
		near(t, "p(z_t = 0)", r.Vars[z].Probs[0], 1-p, 1e-10)
	}
}

// TestNetHMMLearnedMeans: the HMM with N(0, 10) priors on its two
// emission means at T = 10: enumeration of the 2¹⁰ paths with the means
// in closed form equals brute force written here (per path, each state's
// points give a Gaussian marginal, gaussGroup) to 1e-9.
func TestNetHMMLearnedMeans(t *testing.T) {
	ys := []float64{0.1, 1.9, 2.2, -0.3, 0.4, 2.6, 1.8, 0.0, -0.5, 2.1}
	pi0, A := []float64{0.5, 0.5}, [][]float64{{0.9, 0.1}, {0.2, 0.8}}
	vars := []float64{0.5, 0.5}
	n, zs, muv := hmm(ys, pi0, A, nil, vars, true)
	r := runNet(t, n, "enumeration")
	T := len(ys)
	var logw []float64
	var pm [][2]float64
	for c := 0; c < 1<<T; c++ {
		l := 0.0
		var g [2][]float64
		for i := 0; i < T; i++ {
			s := c >> i & 1
			if i == 0 {
				l += math.Log(pi0[s])
			} else {
				l += math.Log(A[c>>(i-1)&1][s])
			}
			g[s] = append(g[s], ys[i])
		}
		var m [2]float64
		for k := range g {
			ml, mk, _ := gaussGroup(g[k], 0, 10, vars[k])
			l += ml
			m[k] = mk
		}
		logw, pm = append(logw, l), append(pm, m)
	}
	logZ := logSumExp(logw)
	near(t, "log Z", r.LogZ, logZ, 1e-9)
	for k, v := range muv {
		e := 0.0
		for c, l := range logw {
			e += math.Exp(l-logZ) * pm[c][k]
		}
		near(t, "E[mu_k]", r.Vars[v].Mean[0], e, 1e-9)
	}
	for i, z := range zs {
		near(t, "p(z_t = 1)", r.Vars[z].Probs[1], stateOne(logw, logZ, i), 1e-9)
	}
}

// TestNetRefusals: a non-conjugate model of more than three coordinates
// (four mean–precision pairs sharing a latent prior mean) and a connected,
// non-chain discrete model above MaxNetConfigs (a star of 21 binary
// variables) are refused by PlanNet, with what to do instead.
func TestNetRefusals(t *testing.T) {
	var n graph.Net
	m0 := nt.Var(&n, "m0", graph.Gaussian, 1)
	nt.Factor(&n, nt.NormalPrior, m0, nt.D("mean", 0), nt.D("var", 10))
	for i := 0; i < 4; i++ {
		mu := nt.Var(&n, "mu", graph.Gaussian, 1)
		tau := nt.Var(&n, "tau", graph.Gamma, 1)
		nt.Factor(&n, nt.NormalPrior, mu, nt.V("mean", m0), nt.D("var", 4))
		nt.Factor(&n, nt.Gamma, tau, nt.D("shape", 2), nt.D("rate", 1))
		nt.Obs(&n, nt.Normal, 1, nt.V("mean", mu), nt.V("prec", tau))
	}
	_, err := PlanNet(&n)
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "use mcmc") {
		t.Errorf("4 mean–precision pairs: err = %v, want a refusal naming mcmc", err)
	}
	var d graph.Net
	var zs []int
	for i := 0; i < 21; i++ {
		z := nt.Var(&d, "z", graph.Discrete, 2)
		nt.Factor(&d, nt.Categorical, z, nt.D("p", 0.5, 0.5))
		zs = append(zs, z)
	}
	for _, z := range zs[1:] { // z[0] selects with every other: a star
		nt.Obs(&d, nt.Normal, 0.5, nt.Select("mean", zs[0], nt.D("mean", 0), nt.Select("mean", z, nt.D("mean", 1), nt.D("mean", 2))), nt.D("var", 1))
	}
	_, err = PlanNet(&d)
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "use mcmc") {
		t.Errorf("2²¹ configurations: err = %v, want a refusal naming mcmc", err)
	}
}

// TestNetIndependentParts: two mean–precision pairs with no factor in
// common are planned and integrated separately (two one-dimensional
// quadratures rather than one of two dimensions), and a coin beside them
// in closed form: log Z is the sum of the three models run alone and each
// variable's marginal is its model's (1e-12).
func TestNetIndependentParts(t *testing.T) {
	pair := func(n *graph.Net, ys []float64) (int, int) {
		mu := nt.Var(n, "mu", graph.Gaussian, 1)
		tau := nt.Var(n, "tau", graph.Gamma, 1)
		nt.Factor(n, nt.NormalPrior, mu, nt.D("mean", 0), nt.D("var", 4))
		nt.Factor(n, nt.Gamma, tau, nt.D("shape", 2), nt.D("rate", 1))
		for _, y := range ys {
			nt.Obs(n, nt.Normal, y, nt.V("mean", mu), nt.V("prec", tau))
		}
		return mu, tau
	}
	coin := func(n *graph.Net) int {
		p := nt.Var(n, "p", graph.Beta, 1)
		nt.Factor(n, nt.Beta, p, nt.D("a", 2), nt.D("b", 3))
		nt.Obs(n, nt.Bernoulli, 1, nt.V("p", p))
		return p
	}
	y1, y2 := []float64{1.2, 0.4, 2.1}, []float64{-0.5, 0.3, -1.1, 0.2}
	var all graph.Net
	mu1, _ := pair(&all, y1)
	p := coin(&all)
	mu2, tau2 := pair(&all, y2)
	r := runNet(t, &all, "quadrature + closed form")
	var a, b, c graph.Net
	pair(&a, y1)
	coin(&b)
	pair(&c, y2)
	ra, rb, rc := runNet(t, &a, "quadrature"), runNet(t, &b, "closed form"), runNet(t, &c, "quadrature")
	near(t, "log Z", r.LogZ, ra.LogZ+rb.LogZ+rc.LogZ, 1e-12)
	near(t, "E[mu1]", r.Vars[mu1].Mean[0], ra.Vars[0].Mean[0], 1e-12)
	near(t, "E[p]", r.Vars[p].Mean[0], rb.Vars[0].Mean[0], 1e-12)
	near(t, "E[mu2]", r.Vars[mu2].Mean[0], rc.Vars[0].Mean[0], 1e-12)
	near(t, "Var[tau2]", r.Vars[tau2].Var[0], rc.Vars[1].Var[0], 1e-12)
	if r.Vars[p].Params == nil {
		t.Errorf("the coin's posterior is a Beta, but has no parameters")
	}
}

// TestNetEnumerationQuadrature: two points from a two-component mixture
// with known weights, N(0, 4) means and a shared Gamma(2, 1) precision:
// in each of the 2² assignments the precision is integrated by quadrature
// and the means in closed form. Log Z, the means' and the precision's
// posterior means and the assignment probabilities equal, to 1e-6, a sum
// over assignments written here of a 2000-node Gauss–Legendre integral
// over log τ ∈ [−12, 8] of the means' Gaussian marginals (gaussGroup).
func TestNetEnumerationQuadrature(t *testing.T) {
	ys := []float64{-0.8, 1.3}
	pw := []float64{0.4, 0.6}
	var n graph.Net
	mu := []int{nt.Var(&n, "mu", graph.Gaussian, 1), nt.Var(&n, "mu", graph.Gaussian, 1)}
	tau := nt.Var(&n, "tau", graph.Gamma, 1)
	for _, v := range mu {
		nt.Factor(&n, nt.NormalPrior, v, nt.D("mean", 0), nt.D("var", 4))
	}
	nt.Factor(&n, nt.Gamma, tau, nt.D("shape", 2), nt.D("rate", 1))
	var zs []int
	for _, y := range ys {
		z := nt.Var(&n, "z", graph.Discrete, 2)
		nt.Factor(&n, nt.Categorical, z, nt.D("p", pw...))
		nt.Obs(&n, nt.Normal, y, nt.Select("mean", z, nt.V("mean", mu[0]), nt.V("mean", mu[1])), nt.V("prec", tau))
		zs = append(zs, z)
	}
	r := runNet(t, &n, "enumeration × quadrature")

	xs, ws := legendre(2000, -12, 8)
	var z, e1, e2, et float64
	pz := make([]float64, 4)
	for c := 0; c < 4; c++ {
		a := []int{c >> 1 & 1, c & 1}
		for l, s := range xs {
			tv := math.Exp(s)
			lj := math.Log(pw[a[0]]) + math.Log(pw[a[1]]) - lg(2) + s - tv + s // Gamma(τ; 2, 1) dτ/ds
			var pm [2]float64
			for k := range pm {
				var g []float64
				for j, y := range ys {
					if a[j] == k {
						g = append(g, y)
					}
				}
				ml, m, _ := gaussGroup(g, 0, 4, 1/tv)
				lj += ml
				pm[k] = m
			}
			f := ws[l] * math.Exp(lj)
			z += f
			pz[c] += f
			e1, e2, et = e1+f*pm[0], e2+f*pm[1], et+f*tv
		}
	}
	near(t, "log Z", r.LogZ, math.Log(z), 1e-6)
	near(t, "E[mu1]", r.Vars[mu[0]].Mean[0], e1/z, 1e-6)
	near(t, "E[mu2]", r.Vars[mu[1]].Mean[0], e2/z, 1e-6)
	near(t, "E[tau]", r.Vars[tau].Mean[0], et/z, 1e-6)
	near(t, "p(z_0 = 1)", r.Vars[zs[0]].Probs[1], (pz[2]+pz[3])/z, 1e-6)
	near(t, "p(z_1 = 1)", r.Vars[zs[1]].Probs[1], (pz[1]+pz[3])/z, 1e-6)
}

// TestNetCanceled: a canceled context ends enumeration with
// infer.Canceled and the context's error.
func TestNetCanceled(t *testing.T) {
	ys := []float64{0.1, 1.9, 2.2, -0.3, 0.4, 2.6, 1.8, 0.0, -0.5, 2.1}
	n, _, _ := hmm(ys, []float64{0.5, 0.5}, [][]float64{{0.9, 0.1}, {0.2, 0.8}}, nil, []float64{0.5, 0.5}, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := RunNet(ctx, n, NetSettings{})
	if err == nil || r == nil || r.Status != infer.Canceled {
		t.Fatalf("result %+v, err %v; want canceled", r, err)
	}
}

// TestNetHierarchicalPoisson: rates rate[j] ~ Gamma(3, β), β ~ Gamma(2, 1),
// four counts per group: exact integrates β by quadrature and every rate
// in closed form. Log Z, E[β] and E[rate[j]] equal a 2000-node
// Gauss–Legendre integral over log β ∈ [−10, 6] written here of the
// Gamma–Poisson marginals Π_j Γ(3 + S_j) β³ / (Γ(3) (β + 4)^{3+S_j} Π y!)
// to 1e-6.
func TestNetHierarchicalPoisson(t *testing.T) {
	ys := [][]float64{{3, 1, 4, 1}, {5, 9, 2, 6}, {0, 1, 0, 2}, {7, 5, 6, 8}, {2, 2, 3, 1}}
	var n graph.Net
	beta := nt.Var(&n, "beta0", graph.Gamma, 1)
	nt.Factor(&n, nt.Gamma, beta, nt.D("shape", 2), nt.D("rate", 1))
	var rates []int
	for _, g := range ys {
		r := nt.Var(&n, "rate", graph.Gamma, 1)
		nt.Factor(&n, nt.Gamma, r, nt.D("shape", 3), nt.V("rate", beta))
		for _, y := range g {
			nt.Obs(&n, nt.Poisson, y, nt.V("rate", r))
		}
		rates = append(rates, r)
	}
	res := runNet(t, &n, "quadrature")
	xs, ws := legendre(2000, -10, 6)
	var z, eb float64
	er := make([]float64, len(ys))
	for i, s := range xs {
		b := math.Exp(s)
		l := -lg(2) + s - b + s // Gamma(β; 2, 1) dβ/ds
		for _, g := range ys {
			S := 0.0
			for _, y := range g {
				S += y
				l -= lg(y + 1)
			}
			l += lg(3+S) - lg(3) + 3*math.Log(b) - (3+S)*math.Log(b+4)
		}
		f := ws[i] * math.Exp(l)
		z += f
		eb += f * b
		for j, g := range ys {
			S := 0.0
			for _, y := range g {
				S += y
			}
			er[j] += f * (3 + S) / (b + 4)
		}
	}
	near(t, "log Z", res.LogZ, math.Log(z), 1e-6)
	near(t, "E[beta0]", res.Vars[beta].Mean[0], eb/z, 1e-6)
	for j, r := range rates {
		near(t, "E[rate_j]", res.Vars[r].Mean[0], er[j]/z, 1e-6)
	}
}
