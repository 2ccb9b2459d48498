package mp

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
	"github.com/fg-infer/fg/lang/ast"
)

// A two-state hidden Markov model with known parameters: z[0] ~
// categorical(pi0), z[t] ~ categorical(A[z[t−1]]), y[t] ~ normal(mu[z[t]], s2).
var (
	hmmPi0 = []float64{0.6, 0.4}
	hmmA   = [][]float64{{0.9, 0.1}, {0.2, 0.8}}
	hmmMu  = []float64{-1, 1.5}
	hmmS2  = 0.8
)

func hmmData(T int) []float64 {
	r := rand.New(rand.NewPCG(7, 11))
	y := make([]float64, T)
	z := 0
	if r.Float64() > hmmPi0[0] {
		z = 1
	}
	for t := range y {
		if t > 0 && r.Float64() > hmmA[z][z] {
			z = 1 - z
		}
		y[t] = hmmMu[z] + math.Sqrt(hmmS2)*r.NormFloat64()
	}
	return y
}

func hmmNet(y []float64) (*graph.Net, []int) {
	net := &graph.Net{}
	z := make([]int, len(y))
	for t := range y {
		z[t] = net.AddVar(graph.NetVar{Name: "z", Family: graph.Discrete, Dim: 2})
		if t == 0 {
			net.AddFactor(prior(factor.Categorical{}, graph.VarEdge("x", z[0]), graph.DataEdge("p", hmmPi0...)))
		} else {
			rows := graph.Edge{Name: "p", Selected: true, Sel: z[t-1],
				Branches: []graph.Edge{graph.DataEdge("p", hmmA[0]...), graph.DataEdge("p", hmmA[1]...)}}
			net.AddFactor(prior(factor.Categorical{}, graph.VarEdge("x", z[t]), rows))
		}
		mean := graph.Edge{Name: "mean", Selected: true, Sel: z[t],
			Branches: []graph.Edge{graph.DataEdge("mean", hmmMu[0]), graph.DataEdge("mean", hmmMu[1])}}
		net.AddFactor(obs(factor.Normal{}, y[t], mean, graph.DataEdge("var", hmmS2)))
	}
	return net, z
}

// forwardBackward is the scaled forward–backward recursion (Rabiner 1989):
// the marginals p(z[t] | y) and log p(y).
// scaledForwardBackward is the scaled forward–backward recursion of a
// 2-state chain with initial probabilities hmmPi0, transition (or
// sub-normalised transition) matrix A and emission densities e(t, k):
// α̂_t, β̂_t with α̂_t(k)β̂_t(k) ∝ p(z_t = k | y), the scale factors c_t and
// log Z = Σ log c_t (Bishop 2006, §13.2.4).
func scaledForwardBackward(T int, A [][]float64, e func(t, k int) float64) (alpha, beta [][2]float64, c []float64, logZ float64) {
	alpha, beta, c = make([][2]float64, T), make([][2]float64, T), make([]float64, T)
	for t := range T {
		for k := range 2 {
			if t == 0 {
				alpha[t][k] = hmmPi0[k] * e(t, k)
			} else {
				alpha[t][k] = (alpha[t-1][0]*A[0][k] + alpha[t-1][1]*A[1][k]) * e(t, k)
			}
		}
		c[t] = alpha[t][0] + alpha[t][1]
		alpha[t][0] /= c[t]
		alpha[t][1] /= c[t]
		logZ += math.Log(c[t])
	}
	beta[T-1] = [2]float64{1, 1}
	for t := T - 2; t >= 0; t-- {
		for j := range 2 {
			beta[t][j] = (A[j][0]*e(t+1, 0)*beta[t+1][0] + A[j][1]*e(t+1, 1)*beta[t+1][1]) / c[t+1]
		}
	}
	return alpha, beta, c, logZ
}

func forwardBackward(y []float64) ([][2]float64, float64) {
	T := len(y)
	e := func(t, k int) float64 {
		d := y[t] - hmmMu[k]
		return math.Exp(-d*d/(2*hmmS2)) / math.Sqrt(2*math.Pi*hmmS2)
	}
	alpha, beta, _, logZ := scaledForwardBackward(T, hmmA, e)
	out := make([][2]float64, T)
	for t := range T {
		s := alpha[t][0]*beta[t][0] + alpha[t][1]*beta[t][1]
		out[t] = [2]float64{alpha[t][0] * beta[t][0] / s, alpha[t][1] * beta[t][1] / s}
	}
	return out, logZ
}

// TestHMMForwardBackward: EP and VMP on the HMM with known parameters are
// forward–backward: marginals and log evidence equal the recursion's to
// 1e-10, after one sweep (the second changes nothing).
func TestHMMForwardBackward(t *testing.T) {
	y := hmmData(200)
	net, z := hmmNet(y)
	want, logZ := forwardBackward(y)
	for _, d := range []struct {
		name  string
		alpha float64
	}{{"kl", 1}, {"alpha(0)", 0}} {
		res := run(t, net, d.alpha)
		if res.Iterations != 2 {
			t.Errorf("%s: %d sweeps, want 2 (exact after one)", d.name, res.Iterations)
		}
		p := make([]float64, 2)
		for tt, v := range z {
			families.Discrete{LogP: res.Beliefs[v]}.Probs(p)
			near(t, d.name+" p(z[t] = 1)", p[1], want[tt][1], 1e-10)
		}
		near(t, d.name+" log evidence", res.LogEvidence, logZ, 1e-10)
	}
}

// BenchmarkHMM: one run (two sweeps) on the HMM at T = 10⁴ and 10⁵; the
// time per step is constant (O(T)).
func BenchmarkHMM(b *testing.B) {
	for _, T := range []int{10_000, 100_000} {
		y := hmmData(T)
		b.Run(map[int]string{10_000: "T=1e4", 100_000: "T=1e5"}[T], func(b *testing.B) {
			for b.Loop() {
				net, _ := hmmNet(y)
				res, err := Run(context.Background(), net, Options{Alpha: 1, Tol: 1e-9})
				if err != nil || res.Status.String() != "converged" {
					b.Fatal(err, res.Message)
				}
			}
		})
	}
}

// poissonGammaNet is the hierarchical Poisson–gamma model with G groups of
// three counts: beta0 ~ gamma(2, 1), rate[j] ~ gamma(3, beta0),
// y ~ poisson(rate[j]).
func poissonGammaNet(G int) *graph.Net {
	r := rand.New(rand.NewPCG(3, 5))
	net := &graph.Net{}
	b := net.AddVar(graph.NetVar{Name: "beta0", Family: graph.Gamma})
	net.AddFactor(prior(factor.Gamma{}, graph.VarEdge("x", b), graph.DataEdge("shape", 2), graph.DataEdge("rate", 1)))
	for j := range G {
		rate := net.AddVar(graph.NetVar{Name: "rate", Family: graph.Gamma, Elem: j})
		net.AddFactor(prior(factor.Gamma{}, graph.VarEdge("x", rate), graph.DataEdge("shape", 3), graph.VarEdge("rate", b)))
		for range 3 {
			net.AddFactor(obs(factor.Poisson{}, float64(r.IntN(8)), graph.VarEdge("rate", rate)))
		}
	}
	return net
}

// BenchmarkPoissonGamma: EP on the hierarchical Poisson–gamma model with
// 10³ and 10⁴ groups (quadrature on every gamma–gamma factor); the time
// per group is constant (O(groups)).
func BenchmarkPoissonGamma(b *testing.B) {
	for _, G := range []int{1000, 10_000} {
		net := poissonGammaNet(G)
		b.Run(map[int]string{1000: "G=1e3", 10_000: "G=1e4"}[G], func(b *testing.B) {
			for b.Loop() {
				res, err := Run(context.Background(), net, Options{Alpha: 1})
				if err != nil || res.Status.String() != "converged" {
					b.Fatal(err, res.Status, res.Message)
				}
			}
		})
	}
}

// TestCanceled: a canceled context ends the run as canceled, without numbers.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	net, _ := hmmNet(hmmData(1000))
	res, err := Run(ctx, net, Options{Alpha: 1})
	if err != nil || res.Status.String() != "canceled" || res.Beliefs != nil {
		t.Fatalf("err %v, status %v, beliefs %v", err, res.Status, res.Beliefs != nil)
	}
}

// TestSupports: a kind without the divergence's rule and a variable on two
// edges of one factor are refused with the factor's position.
func TestSupports(t *testing.T) {
	net := &graph.Net{Fset: ast.NewFileSet()}
	file := net.Fset.AddFile("m.fg", []byte(strings.Repeat("\n", 10)))
	x := net.AddVar(graph.NetVar{Name: "x", Family: graph.Gaussian})
	f := obs(factor.Normal{}, 1, graph.VarEdge("mean", x), graph.DataEdge("var", 1))
	f.Pos = file.Pos(6)
	net.AddFactor(f)
	g := prior(factor.NormalPrior{}, graph.VarEdge("x", x), graph.VarEdge("mean", x), graph.DataEdge("var", 1))
	g.Pos = file.Pos(8)
	net.AddFactor(g)
	d := Supports(net, Options{Alpha: 1})
	if len(d) != 1 || d[0].Pos.Line != 9 {
		t.Fatalf("diagnostics %v", d)
	}
	if d := Supports(net, Options{Alpha: 1.5}); len(d) != 1 {
		t.Fatalf("alpha 1.5: %v", d)
	}
}
