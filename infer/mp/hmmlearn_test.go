package mp

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// An HMM whose transition rows are learned: A[j] ~ Dirichlet(hlAlpha[j]),
// z[0] ~ categorical(pi0), z[t] ~ categorical(A[z[t−1]]), y[t] ~
// normal(mu[z[t]], s2) with known emissions.
var hlAlpha = [][]float64{{2, 1}, {1, 3}}

func hmmLearnNet(y []float64) (net *graph.Net, A, z []int) {
	net = &graph.Net{}
	for j := range hlAlpha {
		A = append(A, net.AddVar(graph.NetVar{Name: "A", Family: graph.Dirichlet, Dim: 2, Elem: j}))
		net.AddFactor(prior(factor.Dirichlet{}, graph.VarEdge("x", A[j]), graph.DataEdge("alpha", hlAlpha[j]...)))
	}
	for t := range y {
		z = append(z, net.AddVar(graph.NetVar{Name: "z", Family: graph.Discrete, Dim: 2, Elem: t}))
		if t == 0 {
			net.AddFactor(prior(factor.Categorical{}, graph.VarEdge("x", z[0]), graph.DataEdge("p", hmmPi0...)))
		} else {
			rows := graph.Edge{Name: "p", Selected: true, Sel: z[t-1], Branches: []graph.Edge{graph.VarEdge("p", A[0]), graph.VarEdge("p", A[1])}}
			net.AddFactor(prior(factor.Categorical{}, graph.VarEdge("x", z[t]), rows))
		}
		mean := graph.Edge{Name: "mean", Selected: true, Sel: z[t],
			Branches: []graph.Edge{graph.DataEdge("mean", hmmMu[0]), graph.DataEdge("mean", hmmMu[1])}}
		net.AddFactor(obs(factor.Normal{}, y[t], mean, graph.DataEdge("var", hmmS2)))
	}
	return net, A, z
}

// structuredVB is variational Bayes for the HMM with Dirichlet rows (Beal
// 2003, ch. 3; MacKay 1997): forward–backward on the sub-normalised
// transitions exp(E log A), then q(A[j]) = Dirichlet(α_j + Σ_t ξ_t(j, ·)),
// until the parameters change by less than 1e-14 relative; the ELBO is log Z̃ − Σ_j KL(q(A[j]) ‖ p(A[j])).
func structuredVB(y []float64) (a [][]float64, gamma [][2]float64, elbo float64) {
	T := len(y)
	a = [][]float64{append([]float64(nil), hlAlpha[0]...), append([]float64(nil), hlAlpha[1]...)}
	e := func(t, k int) float64 {
		d := y[t] - hmmMu[k]
		return math.Exp(-d*d/(2*hmmS2)) / math.Sqrt(2*math.Pi*hmmS2)
	}
	var logZ float64
	for range 100000 {
		var At [2][2]float64
		for j := range 2 {
			for k := range 2 {
				At[j][k] = math.Exp(families.Digamma(a[j][k]) - families.Digamma(a[j][0]+a[j][1]))
			}
		}
		AtRows := [][]float64{At[0][:], At[1][:]}
		var alpha, beta [][2]float64
		var c []float64
		alpha, beta, c, logZ = scaledForwardBackward(T, AtRows, e)
		gamma = make([][2]float64, T)
		next := [][]float64{append([]float64(nil), hlAlpha[0]...), append([]float64(nil), hlAlpha[1]...)}
		for t := range T {
			for k := range 2 {
				gamma[t][k] = alpha[t][k] * beta[t][k]
			}
			if t > 0 {
				for j := range 2 {
					for k := range 2 {
						next[j][k] += alpha[t-1][j] * At[j][k] * e(t, k) * beta[t][k] / c[t]
					}
				}
			}
		}
		same := true
		for j := range 2 {
			for k := range 2 {
				same = same && math.Abs(next[j][k]-a[j][k]) <= 1e-14*a[j][k]
			}
		}
		a = next
		if same {
			break
		}
	}
	elbo = logZ
	logB := func(x []float64) float64 { return lgamma(x[0]) + lgamma(x[1]) - lgamma(x[0]+x[1]) }
	for j := range 2 {
		kl := logB(hlAlpha[j]) - logB(a[j])
		for k := range 2 {
			kl += (a[j][k] - hlAlpha[j][k]) * (families.Digamma(a[j][k]) - families.Digamma(a[j][0]+a[j][1]))
		}
		elbo -= kl
	}
	return a, gamma, elbo
}

// TestHMMLearnedTransitionsVMP: alpha(0) on the HMM with Dirichlet rows is
// structured VB: the rows' Dirichlet parameters, the state marginals and
// the ELBO equal structuredVB's to 1e-8.
func TestHMMLearnedTransitionsVMP(t *testing.T) {
	y := hmmData(60)
	net, A, z := hmmLearnNet(y)
	res := run(t, net, 0)
	a, gamma, elbo := structuredVB(y)
	for j := range A {
		got := families.DirichletOf(res.Beliefs[A[j]]).Alpha
		for k := range got {
			near(t, "q(A) α", got[k], a[j][k], 1e-8)
		}
	}
	p := make([]float64, 2)
	for tt, v := range z {
		families.Discrete{LogP: res.Beliefs[v]}.Probs(p)
		near(t, "q(z = 1)", p[1], gamma[tt][1], 1e-8)
	}
	near(t, "ELBO", res.LogEvidence, elbo, 1e-8)
}

// TestHMMLearnedTransitionsEP: EP on the same model converges, and its
// log Z is within 0.05 of the exact evidence by enumeration of the 2¹⁰
// paths of a 10-step chain with the rows integrated (Dirichlet–multinomial
// transition counts).
func TestHMMLearnedTransitionsEP(t *testing.T) {
	y := hmmData(10)
	net, _, _ := hmmLearnNet(y)
	res := run(t, net, 1)
	T := len(y)
	logB := func(x []float64) float64 { return lgamma(x[0]) + lgamma(x[1]) - lgamma(x[0]+x[1]) }
	var terms []float64
	for path := range 1 << T {
		st := func(t int) int { return path >> t & 1 }
		l := math.Log(hmmPi0[st(0)])
		counts := [][]float64{append([]float64(nil), hlAlpha[0]...), append([]float64(nil), hlAlpha[1]...)}
		for tt := range T {
			d := y[tt] - hmmMu[st(tt)]
			l += -d*d/(2*hmmS2) - 0.5*math.Log(2*math.Pi*hmmS2)
			if tt > 0 {
				counts[st(tt-1)][st(tt)]++
			}
		}
		for j := range 2 {
			l += logB(counts[j]) - logB(hlAlpha[j])
		}
		terms = append(terms, l)
	}
	mx := math.Inf(-1)
	for _, l := range terms {
		mx = max(mx, l)
	}
	var s float64
	for _, l := range terms {
		s += math.Exp(l - mx)
	}
	logZ := mx + math.Log(s)
	t.Logf("log Z: ep %.6g, exact %.6g", res.LogEvidence, logZ)
	if !(math.Abs(res.LogEvidence-logZ) <= 0.05) {
		t.Errorf("log Z_EP %g, exact %g", res.LogEvidence, logZ)
	}
}
