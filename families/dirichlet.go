package families

import (
	"fmt"
	"math"
)

// Dirichlet is the Dirichlet distribution
// Dir(w; α) = Γ(α₀)/Πₖ Γ(αₖ) · Πₖ wₖ^{αₖ−1} (α₀ = Σ αₖ) on the simplex,
// with concentrations Alpha. Sufficient statistics (log w₁, …, log w_K),
// natural parameters η = α − 1; the flat message is α = 1.
type Dirichlet struct {
	Alpha []float64
}

// NewDirichlet is Dir(alpha) for K ≥ 2 finite concentrations > 0.
func NewDirichlet(alpha []float64) (Dirichlet, error) {
	d := Dirichlet{Alpha: append([]float64(nil), alpha...)}
	if len(alpha) < 2 || !d.Proper() {
		return Dirichlet{}, fmt.Errorf("dirichlet: need K ≥ 2 concentrations > 0, got %v", alpha)
	}
	return d, nil
}

// Natural returns η = α − 1.
func (d Dirichlet) Natural() []float64 {
	out := make([]float64, len(d.Alpha))
	for k, a := range d.Alpha {
		out[k] = a - 1
	}
	return out
}

// DirichletOf is the Dirichlet with natural parameters η.
func DirichletOf(eta []float64) Dirichlet {
	a := make([]float64, len(eta))
	for k, e := range eta {
		a[k] = e + 1
	}
	return Dirichlet{Alpha: a}
}

// Proper reports whether every concentration is positive and finite.
func (d Dirichlet) Proper() bool {
	for _, a := range d.Alpha {
		if !(a > 0) || !finite(a) {
			return false
		}
	}
	return true
}

func (d Dirichlet) sum() float64 { return sum(d.Alpha) }

// Mean is αₖ/α₀.
func (d Dirichlet) Mean() []float64 {
	s := d.sum()
	out := make([]float64, len(d.Alpha))
	for k, a := range d.Alpha {
		out[k] = a / s
	}
	return out
}

// Var is αₖ(α₀ − αₖ)/(α₀²(α₀ + 1)).
func (d Dirichlet) Var() []float64 {
	s := d.sum()
	out := make([]float64, len(d.Alpha))
	for k, a := range d.Alpha {
		out[k] = a * (s - a) / (s * s * (s + 1))
	}
	return out
}

// LogNormalizer is A(η) = Σ log Γ(αₖ) − log Γ(α₀).
func (d Dirichlet) LogNormalizer() float64 {
	if !d.Proper() {
		return math.Inf(1)
	}
	var s float64
	for _, a := range d.Alpha {
		l, _ := math.Lgamma(a)
		s += l
	}
	l0, _ := math.Lgamma(d.sum())
	return s - l0
}

// ESS is E log wₖ = ψ(αₖ) − ψ(α₀).
func (d Dirichlet) ESS(out []float64) {
	p0 := digamma(d.sum())
	for k, a := range d.Alpha {
		out[k] = digamma(a) - p0
	}
}

// ProjectDirichlet is the Dirichlet with E log wₖ = elog[k] (the KL
// projection; maximum likelihood from the mean log-probabilities). It
// maximises the concave L(α) = log Γ(α₀) − Σ log Γ(αₖ) + Σ αₖ elogₖ
// (Minka 2000, "Estimating a Dirichlet distribution"): from αₖ = s·mₖ with
// mₖ ∝ exp(elogₖ) and s = (K − 1)/(−2 log Σ exp(elogₖ)) (the approximation
// ψ(x) ≈ log x − 1/(2x)), a few steps of the fixed point
// αₖ ← ψ⁻¹(ψ(α₀) + elogₖ) (his eq. 9, which increases L from any start
// and brings tiny concentrations into range), then Newton's method, whose
// Hessian diag(−ψ'(αₖ)) + ψ'(α₀)·11ᵀ inverts in O(K) (his §3), halving a
// step until α stays positive and L does not decrease. An error when
// Σ exp(elogₖ) ≥ 1 (no distribution on the simplex has these statistics).
func ProjectDirichlet(elog []float64) (Dirichlet, error) {
	K := len(elog)
	var S float64
	for _, e := range elog {
		S += math.Exp(e)
	}
	if !(S < 1) || !(S > 0) || K < 2 {
		return Dirichlet{}, fmt.Errorf("dirichlet projection: Σ exp(E log w) = %g: %w", S, ErrImproper)
	}
	s := float64(K-1) / (-2 * math.Log(S))
	alpha := make([]float64, K)
	for k, e := range elog {
		alpha[k] = s * math.Exp(e) / S
	}
	for range 20 {
		p0 := digamma(sum(alpha))
		for k, e := range elog {
			alpha[k] = invDigamma(p0 + e)
		}
	}
	g, q, step, next := make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	for range 500 {
		a0 := sum(alpha)
		z, p0 := trigamma(a0), digamma(a0)
		var gq, iq float64
		for k, a := range alpha {
			g[k] = p0 - digamma(a) + elog[k]
			q[k] = -trigamma(a)
			gq += g[k] / q[k]
			iq += 1 / q[k]
		}
		b := gq / (1/z + iq)
		done := true
		for k := range alpha {
			step[k] = (g[k] - b) / q[k]
			if !(math.Abs(step[k]) <= 1e-9*alpha[k]) { // quadratic convergence: this step makes α exact to ~1e-18
				done = false
			}
		}
		l0 := dirichletLik(alpha, elog)
		for t := 1.0; t > 1e-30; t /= 2 {
			ok := true
			for k := range alpha {
				next[k] = alpha[k] - t*step[k]
				ok = ok && next[k] > 0
			}
			if ok && (done || dirichletLik(next, elog) >= l0-1e-13*(1+math.Abs(l0))) { // near the optimum L changes below rounding
				break
			}
		}
		copy(alpha, next)
		if done {
			return Dirichlet{Alpha: alpha}, nil
		}
	}
	return Dirichlet{}, fmt.Errorf("dirichlet projection from E log w = %v did not converge", elog)
}

// dirichletLik is L(α) = log Γ(α₀) − Σ log Γ(αₖ) + Σ αₖ elogₖ.
func dirichletLik(alpha, elog []float64) float64 {
	l, _ := math.Lgamma(sum(alpha))
	for k, a := range alpha {
		la, _ := math.Lgamma(a)
		l += a*elog[k] - la
	}
	return l
}

func sum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

// invDigamma is ψ⁻¹(y): Newton's method from Minka's starting point
// (exp(y) + ½ for y ≥ −2.22, else −1/(y + γ)).
func invDigamma(y float64) float64 {
	x := math.Exp(y) + 0.5
	if y < -2.22 {
		x = -1 / (y - digamma(1))
	}
	for range 6 {
		x -= (digamma(x) - y) / trigamma(x)
	}
	return x
}

func (d Dirichlet) String() string { return fmtParams("Dirichlet", d.Alpha) }

// DirichletSpace is the K-component Dirichlet family as a Space.
type DirichletSpace struct{ K int }

func (s DirichletSpace) Len() int                          { return s.K }
func (DirichletSpace) Proper(eta []float64) bool           { return DirichletOf(eta).Proper() }
func (DirichletSpace) LogNormalizer(eta []float64) float64 { return DirichletOf(eta).LogNormalizer() }
func (DirichletSpace) ESS(eta, out []float64)              { DirichletOf(eta).ESS(out) }
func (DirichletSpace) String(eta []float64) string         { return DirichletOf(eta).String() }
func (DirichletSpace) Params(eta []float64) []float64      { return DirichletOf(eta).Alpha }

func (DirichletSpace) Project(ess, out []float64) error {
	d, err := ProjectDirichlet(ess)
	if err != nil {
		return err
	}
	copy(out, d.Natural())
	return nil
}

func (DirichletSpace) Moments(eta, mean, variance []float64) {
	d := DirichletOf(eta)
	copy(mean, d.Mean())
	copy(variance, d.Var())
}
