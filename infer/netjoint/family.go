package netjoint

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fg-infer/fg/graph"
)

// StatDim is the number of sufficient statistics of a continuous family
// with dim components: 2 for the scalar families, K for a Dirichlet.
func StatDim(fam graph.Family, dim int) int {
	if fam == graph.Dirichlet {
		return dim
	}
	return 2
}

// suffStats writes T(θ) into t:
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

// Params are the family's usual parameters for natural parameters η in
// the coordinates of suffStats, and whether they are proper:
//
//	Gaussian (mean, var) = (−η₁/2η₂, −1/2η₂)   Gamma (shape, rate) = (η₁+1, −η₂)
//	InvGamma (shape, scale) = (−η₁−1, −η₂)   Beta (a, b) = (η₁+1, η₂+1)
//	Dirichlet α_k = η_k + 1.
func Params(fam graph.Family, eta []float64) ([]float64, bool) {
	var p []float64
	switch fam {
	case graph.Gaussian:
		if !(eta[1] < 0) {
			return nil, false
		}
		return []float64{-eta[0] / (2 * eta[1]), -1 / (2 * eta[1])}, finite(eta)
	case graph.Gamma:
		p = []float64{eta[0] + 1, -eta[1]}
	case graph.InvGamma:
		p = []float64{-eta[0] - 1, -eta[1]}
	case graph.Beta:
		p = []float64{eta[0] + 1, eta[1] + 1}
	case graph.Dirichlet:
		p = make([]float64, len(eta))
		for k, e := range eta {
			p[k] = e + 1
		}
	}
	for _, v := range p {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	return p, true
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// LogNormaliser is A(η) = log ∫ exp⟨η, T(θ)⟩ dθ (Lebesgue measure on the
// support; on the simplex over its first K−1 coordinates), the log
// evidence of a conjugate update. ok is false for an improper η.
func LogNormaliser(fam graph.Family, eta []float64) (float64, bool) {
	p, ok := Params(fam, eta)
	if !ok {
		return 0, false
	}
	switch fam {
	case graph.Gaussian:
		return p[0]*p[0]/(2*p[1]) + 0.5*math.Log(2*math.Pi*p[1]), true
	case graph.Gamma, graph.InvGamma:
		lg, _ := math.Lgamma(p[0])
		return lg - p[0]*math.Log(p[1]), true
	case graph.Beta:
		return mathext.Lbeta(p[0], p[1]), true
	}
	s, sum := 0.0, 0.0
	for _, a := range p {
		lg, _ := math.Lgamma(a)
		s += lg
		sum += a
	}
	lg, _ := math.Lgamma(sum)
	return s - lg, true
}

// Moments are the mean and variance of each coordinate of the family
// with parameters p (Params).
func Moments(fam graph.Family, p []float64) (mean, vr []float64) {
	a, b := p[0], 0.0
	if len(p) > 1 {
		b = p[1]
	}
	switch fam {
	case graph.Gaussian:
		return []float64{a}, []float64{b}
	case graph.Gamma:
		return []float64{a / b}, []float64{a / (b * b)}
	case graph.InvGamma:
		if a <= 2 {
			m := math.Inf(1)
			if a > 1 {
				m = b / (a - 1)
			}
			return []float64{m}, []float64{math.Inf(1)}
		}
		return []float64{b / (a - 1)}, []float64{b * b / ((a - 1) * (a - 1) * (a - 2))}
	case graph.Beta:
		s := a + b
		return []float64{a / s}, []float64{a * b / (s * s * (s + 1))}
	}
	s := 0.0
	for _, v := range p {
		s += v
	}
	mean, vr = make([]float64, len(p)), make([]float64, len(p))
	for k, v := range p {
		mean[k] = v / s
		vr[k] = mean[k] * (1 - mean[k]) / (s + 1)
	}
	return mean, vr
}

// Draw writes a draw of the family with parameters p into th.
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
