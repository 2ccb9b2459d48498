package families

import (
	"fmt"
	"math"
)

// Gamma is the Gamma distribution Gamma(x; a, b) = bᵃ x^{a−1} e^{−bx}/Γ(a)
// on x > 0 with Shape a and Rate b (mean a/b). Sufficient statistics
// (log x, x), natural parameters η = (a − 1, −b); the flat message is
// Shape 1, Rate 0. Products add naturals: Gamma(a₁, b₁)·Gamma(a₂, b₂) ∝
// Gamma(a₁ + a₂ − 1, b₁ + b₂).
type Gamma struct {
	Shape, Rate float64
}

// NewGamma is Gamma(shape, rate) for finite shape, rate > 0.
func NewGamma(shape, rate float64) (Gamma, error) {
	g := Gamma{shape, rate}
	if !g.Proper() {
		return Gamma{}, fmt.Errorf("gamma: need shape > 0 and rate > 0, got Gamma(%g, %g)", shape, rate)
	}
	return g, nil
}

// Natural returns η = (Shape − 1, −Rate).
func (g Gamma) Natural() []float64 { return []float64{g.Shape - 1, -g.Rate} }

// GammaOf is the Gamma with natural parameters η.
func GammaOf(eta []float64) Gamma { return Gamma{Shape: eta[0] + 1, Rate: -eta[1]} }

// Proper reports whether shape and rate are positive and finite.
func (g Gamma) Proper() bool {
	return g.Shape > 0 && g.Rate > 0 && finite(g.Shape) && finite(g.Rate)
}

func (g Gamma) Mean() float64 { return g.Shape / g.Rate }
func (g Gamma) Var() float64  { return g.Shape / (g.Rate * g.Rate) }

// MeanInv is E[1/x] = Rate/(Shape − 1), +Inf when Shape ≤ 1 (the integral
// diverges at 0): the variance E[1/τ] of a Gaussian with a Gamma
// precision τ.
func (g Gamma) MeanInv() float64 {
	if g.Shape <= 1 {
		return math.Inf(1)
	}
	return g.Rate / (g.Shape - 1)
}

// LogNormalizer is A(η) = log Γ(a) − a log b.
func (g Gamma) LogNormalizer() float64 {
	if !g.Proper() {
		return math.Inf(1)
	}
	la, _ := math.Lgamma(g.Shape)
	return la - g.Shape*math.Log(g.Rate)
}

// ESS is (E log x, E x) = (ψ(a) − log b, a/b).
func (g Gamma) ESS() (elog, ex float64) {
	return digamma(g.Shape) - math.Log(g.Rate), g.Shape / g.Rate
}

// Entropy is a − log b + log Γ(a) + (1 − a) ψ(a).
func (g Gamma) Entropy() float64 {
	la, _ := math.Lgamma(g.Shape)
	return g.Shape - math.Log(g.Rate) + la + (1-g.Shape)*digamma(g.Shape)
}

// ProjectGamma is the Gamma with E log x = elog and E x = ex (the KL
// projection): the shape solves log a − ψ(a) = log ex − elog by Newton's
// method, which converges monotonically from a₀ = 1/(2s) since the left
// side is convex, decreasing and above 1/(2a) (Minka 2002); the rate is
// a/ex. An error when log ex ≤ elog (Jensen's inequality fails).
func ProjectGamma(elog, ex float64) (Gamma, error) {
	s := math.Log(ex) - elog
	if !(s > 0) || !finite(s) || !(ex > 0) {
		return Gamma{}, fmt.Errorf("gamma projection: E log x = %g, E x = %g: %w", elog, ex, ErrImproper)
	}
	a, err := solveShape(s)
	if err != nil {
		return Gamma{}, err
	}
	return Gamma{Shape: a, Rate: a / ex}, nil
}

// solveShape solves log a − ψ(a) = s > 0 for a.
func solveShape(s float64) (float64, error) {
	a := 0.5 / s
	for range 200 {
		g := logMinusDigamma(a) - s
		step := g / (1/a - trigamma(a))
		next := a - step
		if !(next > 0) {
			next = a / 2
		}
		if math.Abs(next-a) <= 1e-9*a { // quadratic convergence: next is exact to ~1e-18
			return next, nil
		}
		a = next
	}
	if math.Abs(logMinusDigamma(a)-s) <= 1e-12*s {
		return a, nil
	}
	return 0, fmt.Errorf("gamma projection: shape for log a − ψ(a) = %g did not converge", s)
}

func (g Gamma) String() string { return fmtParams("Gamma", []float64{g.Shape, g.Rate}) }

// GammaSpace is the Gamma family as a Space.
type GammaSpace struct{}

func (GammaSpace) Len() int                            { return 2 }
func (GammaSpace) Proper(eta []float64) bool           { return GammaOf(eta).Proper() }
func (GammaSpace) LogNormalizer(eta []float64) float64 { return GammaOf(eta).LogNormalizer() }
func (GammaSpace) ESS(eta, out []float64)              { out[0], out[1] = GammaOf(eta).ESS() }
func (GammaSpace) String(eta []float64) string         { return GammaOf(eta).String() }

func (GammaSpace) Params(eta []float64) []float64 {
	g := GammaOf(eta)
	return []float64{g.Shape, g.Rate}
}

func (GammaSpace) Project(ess, out []float64) error {
	g, err := ProjectGamma(ess[0], ess[1])
	if err != nil {
		return err
	}
	copy(out, g.Natural())
	return nil
}

func (GammaSpace) Moments(eta, mean, variance []float64) {
	g := GammaOf(eta)
	mean[0], variance[0] = g.Mean(), g.Var()
}
