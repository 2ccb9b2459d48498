package mp

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// A Gaussian mixture with Dirichlet weights and unknown means: w ~
// Dirichlet(α), mu[k] ~ N(m0[k], v0), z[i] ~ categorical(w), y[i] ~
// normal(mu[z[i]], s2), 3 components, 8 points.
var (
	gmY     = []float64{-2.1, -1.7, 0.2, 2.3, 1.9, -0.1, 2.6, -2.4}
	gmAlpha = []float64{1, 1, 1}
	gmM0    = []float64{-2, 0, 2}
	gmV0    = 1.0
	gmS2    = 0.3
)

func gmNet() (net *graph.Net, w int, mu, z []int) {
	net = &graph.Net{}
	K := len(gmM0)
	w = net.AddVar(graph.NetVar{Name: "w", Family: graph.Dirichlet, Dim: K})
	net.AddFactor(prior(factor.Dirichlet{}, graph.VarEdge("x", w), graph.DataEdge("alpha", gmAlpha...)))
	mu = make([]int, K)
	var branches []graph.Edge
	for k := range mu {
		mu[k] = net.AddVar(graph.NetVar{Name: "mu", Family: graph.Gaussian, Elem: k})
		net.AddFactor(prior(factor.NormalPrior{}, graph.VarEdge("x", mu[k]), graph.DataEdge("mean", gmM0[k]), graph.DataEdge("var", gmV0)))
		branches = append(branches, graph.VarEdge("mean", mu[k]))
	}
	for i, y := range gmY {
		z = append(z, net.AddVar(graph.NetVar{Name: "z", Family: graph.Discrete, Dim: K, Elem: i}))
		net.AddFactor(prior(factor.Categorical{}, graph.VarEdge("x", z[i]), graph.VarEdge("p", w)))
		mean := graph.Edge{Name: "mean", Selected: true, Sel: z[i], Branches: branches}
		net.AddFactor(obs(factor.Normal{}, y, mean, graph.DataEdge("var", gmS2)))
	}
	return net, w, mu, z
}

// gmCAVI is mean-field VB for the mixture (Bishop 2006, §10.2, with known
// variance): responsibilities r_ik ∝ exp(E log w_k − ((y_i − m_k)² + v_k)/(2 s2)),
// q(w) = Dir(α + Σ_i r_i), q(mu_k) = N with precision 1/v0 + Σ_i r_ik/s2 and
// mean (m0_k/v0 + Σ_i r_ik y_i/s2)/precision, iterated from the engine's
// start (priors, then the responsibilities) until nothing changes.
func gmCAVI() (alpha, m, v []float64, r [][]float64) {
	K, N := len(gmM0), len(gmY)
	alpha, m, v = append([]float64(nil), gmAlpha...), append([]float64(nil), gmM0...), make([]float64, K)
	for k := range v {
		v[k] = gmV0
	}
	r = make([][]float64, N)
	for range 100000 {
		var a0 float64
		for _, a := range alpha {
			a0 += a
		}
		for i, y := range gmY {
			r[i] = make([]float64, K)
			var s float64
			for k := range K {
				d := y - m[k]
				r[i][k] = math.Exp(families.Digamma(alpha[k]) - families.Digamma(a0) - (d*d+v[k])/(2*gmS2))
				s += r[i][k]
			}
			for k := range K {
				r[i][k] /= s
			}
		}
		changed := false
		for k := range K {
			na, p, h := gmAlpha[k], 1/gmV0, gmM0[k]/gmV0
			for i, y := range gmY {
				na += r[i][k]
				p += r[i][k] / gmS2
				h += r[i][k] * y / gmS2
			}
			if na != alpha[k] || h/p != m[k] || 1/p != v[k] {
				changed = true
			}
			alpha[k], m[k], v[k] = na, h/p, 1/p
		}
		if !changed {
			break
		}
	}
	return alpha, m, v, r
}

// gmExact enumerates the 3⁸ assignments: for each, the Dirichlet–multinomial
// evidence of the counts times each component's Gaussian evidence with its
// mean integrated out; it returns log Z and the posterior mean and variance
// of each mu[k] (a mixture over the assignments of Gaussians).
func gmExact() (logZ float64, mean, variance []float64) {
	K, N := len(gmM0), len(gmY)
	logB := func(a []float64) float64 {
		var s, a0 float64
		for _, x := range a {
			s += lgamma(x)
			a0 += x
		}
		return s - lgamma(a0)
	}
	var terms []float64
	var m1, m2 [][]float64
	z := make([]int, N)
	for c := 0; c < int(math.Pow(float64(K), float64(N))); c++ {
		x := c
		for i := range z {
			z[i] = x % K
			x /= K
		}
		counts := append([]float64(nil), gmAlpha...)
		l := -logB(gmAlpha)
		e1, e2 := make([]float64, K), make([]float64, K)
		for k := range K {
			p, h, n := 1/gmV0, gmM0[k]/gmV0, 0.0
			var syy float64
			for i, y := range gmY {
				if z[i] == k {
					p += 1 / gmS2
					h += y / gmS2
					syy += y * y
					n++
				}
			}
			counts[k] += n
			// log ∫ N(mu; m0, v0) Π N(y; mu, s2) dmu
			l += -0.5*math.Log(2*math.Pi*gmV0) - n/2*math.Log(2*math.Pi*gmS2) - gmM0[k]*gmM0[k]/(2*gmV0) - syy/(2*gmS2) +
				h*h/(2*p) + 0.5*math.Log(2*math.Pi/p)
			e1[k], e2[k] = h/p, h*h/(p*p)+1/p
		}
		l += logB(counts)
		terms = append(terms, l)
		m1, m2 = append(m1, e1), append(m2, e2)
	}
	mx := math.Inf(-1)
	for _, l := range terms {
		mx = max(mx, l)
	}
	var s float64
	mean, variance = make([]float64, K), make([]float64, K)
	for j, l := range terms {
		wj := math.Exp(l - mx)
		s += wj
		for k := range K {
			mean[k] += wj * m1[j][k]
			variance[k] += wj * m2[j][k]
		}
	}
	for k := range K {
		mean[k] /= s
		variance[k] = variance[k]/s - mean[k]*mean[k]
	}
	return mx + math.Log(s), mean, variance
}

// TestMixtureVMP: alpha(0) on the gated mixture equals the
// coordinate-ascent fixed point written above (1e-8), and its ELBO is below
// the exact log evidence by enumeration.
func TestMixtureVMP(t *testing.T) {
	net, w, mu, z := gmNet()
	res := run(t, net, 0)
	alpha, m, v, r := gmCAVI()
	got := families.DirichletOf(res.Beliefs[w]).Alpha
	for k := range alpha {
		near(t, "α of q(w)", got[k], alpha[k], 1e-8)
		g := families.GaussianOf(res.Beliefs[mu[k]])
		near(t, "mean of q(mu)", g.Mean(), m[k], 1e-8)
		near(t, "var of q(mu)", g.Var(), v[k], 1e-8)
	}
	p := make([]float64, 3)
	for i := range z {
		families.Discrete{LogP: res.Beliefs[z[i]]}.Probs(p)
		for k := range p {
			near(t, "q(z)", p[k], r[i][k], 1e-8)
		}
	}
	logZ, _, _ := gmExact()
	if !(res.LogEvidence < logZ) {
		t.Errorf("ELBO %g not below log Z %g", res.LogEvidence, logZ)
	}
}

// TestMixtureEP: EP on the gated mixture (mixtures of Gaussian and
// Dirichlet tilted distributions projected) lands on the main mode: the
// component means within 0.05 of the enumeration's (measured 0.044, 0.009,
// 0.037) and log Z within 0.1 (−16.905 vs −16.855). Its variances are those
// of the main mode, 48–56% of the exact ones, which include the other
// assignments' spread (0.099 vs 0.177, 0.160 vs 0.331, 0.096 vs 0.166): the
// test asserts only that they are smaller and within a factor of three.
func TestMixtureEP(t *testing.T) {
	net, _, mu, _ := gmNet()
	res := run(t, net, 1)
	logZ, mean, variance := gmExact()
	for k := range mean {
		g := families.GaussianOf(res.Beliefs[mu[k]])
		t.Logf("mu[%d]: ep %.5g ± %.4g, exact %.5g ± %.4g", k, g.Mean(), math.Sqrt(g.Var()), mean[k], math.Sqrt(variance[k]))
		if !(math.Abs(g.Mean()-mean[k]) <= 0.05 && g.Var() < variance[k] && 3*g.Var() > variance[k]) {
			t.Errorf("mu[%d]: ep %g (var %g), exact %g (var %g)", k, g.Mean(), g.Var(), mean[k], variance[k])
		}
	}
	t.Logf("log Z: ep %.6g, exact %.6g", res.LogEvidence, logZ)
	if !(math.Abs(res.LogEvidence-logZ) <= 0.1) {
		t.Errorf("log Z_EP %g, exact %g", res.LogEvidence, logZ)
	}
}
