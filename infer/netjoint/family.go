package netjoint

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fg-infer/fg/graph"
)

// suffStats writes T(θ) into t, the sufficient statistics of the natural
// parameters of families.For:
//
//	Gaussian (x, x²)   Gamma (log τ, τ)   InvGamma (log s, 1/s)
//	Beta (log p, log(1−p))   Dirichlet (log w_1, …, log w_K).
func suffStats(fam graph.Family, th, t []float64) {
	x := th[0]
	switch fam {
	case graph.Gaussian:
		t[0], t[1] = x, x*x
	case graph.Gamma:
		t[0], t[1] = math.Log(x), x
	case graph.InvGamma:
		t[0], t[1] = math.Log(x), 1/x
	case graph.Beta:
		t[0], t[1] = math.Log(x), math.Log1p(-x)
	case graph.Dirichlet:
		for k, w := range th {
			t[k] = math.Log(w)
		}
	}
}

// Draw writes into th a draw of the family with parameters p (the
// Space's Params: mean and variance, shape and rate, shape and scale, a
// and b, α).
func Draw(fam graph.Family, p []float64, rng *rand.Rand, th []float64) {
	switch fam {
	case graph.Gaussian:
		th[0] = p[0] + math.Sqrt(p[1])*rng.NormFloat64()
	case graph.Gamma:
		th[0] = distuv.Gamma{Alpha: p[0], Beta: p[1], Src: rng}.Rand()
	case graph.InvGamma:
		th[0] = 1 / distuv.Gamma{Alpha: p[0], Beta: p[1], Src: rng}.Rand()
	case graph.Beta:
		th[0] = distuv.Beta{Alpha: p[0], Beta: p[1], Src: rng}.Rand()
	case graph.Dirichlet:
		s := 0.0
		for k, a := range p {
			th[k] = distuv.Gamma{Alpha: a, Beta: 1, Src: rng}.Rand()
			s += th[k]
		}
		for k := range th {
			th[k] /= s
		}
	}
}

// UDim is the number of unconstrained coordinates of a variable: K−1 for a
// Dirichlet, 1 for the other continuous families.
func UDim(v graph.NetVar) int {
	if v.Family == graph.Dirichlet {
		return v.Dim - 1
	}
	return 1
}

// FromU maps unconstrained coordinates u to the support and returns the
// log Jacobian log |dθ/du|: θ = u (Gaussian), e^u (Gamma, InvGamma),
// 1/(1+e^−u) (Beta), and the additive logistic map
// w_k = e^{u_k} / (1 + Σ_j e^{u_j}), w_K = 1 / (1 + Σ_j e^{u_j}) for a
// Dirichlet, whose Jacobian is Π_{k=1..K} w_k (Aitchison 1986, §6.2).
func FromU(fam graph.Family, u, th []float64) float64 {
	switch fam {
	case graph.Gaussian:
		th[0] = u[0]
		return 0
	case graph.Gamma, graph.InvGamma:
		th[0] = math.Exp(u[0])
		return u[0]
	case graph.Beta:
		// log p = −log(1+e^−u), log(1−p) = −log(1+e^u)
		th[0] = 1 / (1 + math.Exp(-u[0]))
		return -softplus(-u[0]) - softplus(u[0])
	}
	mx := 0.0
	for _, v := range u {
		mx = math.Max(mx, v)
	}
	s := math.Exp(-mx)
	for _, v := range u {
		s += math.Exp(v - mx)
	}
	lse := mx + math.Log(s)
	logJ := -lse
	th[len(u)] = math.Exp(-lse)
	for k, v := range u {
		th[k] = math.Exp(v - lse)
		logJ += v - lse
	}
	return logJ
}

// ToU is the inverse of FromU.
func ToU(fam graph.Family, th, u []float64) {
	switch fam {
	case graph.Gaussian:
		u[0] = th[0]
	case graph.Gamma, graph.InvGamma:
		u[0] = math.Log(th[0])
	case graph.Beta:
		u[0] = math.Log(th[0]) - math.Log1p(-th[0])
	case graph.Dirichlet:
		last := math.Log(th[len(th)-1])
		for k := range u {
			u[k] = math.Log(th[k]) - last
		}
	}
}

// softplus is log(1 + e^x) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}
