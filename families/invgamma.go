package families

import (
	"fmt"
	"math"
)

// InvGamma is the inverse-Gamma distribution
// InvGamma(x; a, b) = bᵃ x^{−a−1} e^{−b/x}/Γ(a) on x > 0 with Shape a and
// Scale b: 1/x is Gamma(a, b). Sufficient statistics (log x, 1/x),
// natural parameters η = (−a − 1, −b); the flat message is Shape −1,
// Scale 0.
type InvGamma struct {
	Shape, Scale float64
}

// NewInvGamma is InvGamma(shape, scale) for finite shape, scale > 0.
func NewInvGamma(shape, scale float64) (InvGamma, error) {
	g := InvGamma{shape, scale}
	if !g.Proper() {
		return InvGamma{}, fmt.Errorf("inv_gamma: need shape > 0 and scale > 0, got InvGamma(%g, %g)", shape, scale)
	}
	return g, nil
}

// Natural returns η = (−Shape − 1, −Scale).
func (g InvGamma) Natural() []float64 { return []float64{-g.Shape - 1, -g.Scale} }

// InvGammaOf is the inverse Gamma with natural parameters η.
func InvGammaOf(eta []float64) InvGamma { return InvGamma{Shape: -eta[0] - 1, Scale: -eta[1]} }

// Proper reports whether shape and scale are positive and finite.
func (g InvGamma) Proper() bool {
	return g.Shape > 0 && g.Scale > 0 && finite(g.Shape) && finite(g.Scale)
}

// Reciprocal is the Gamma distribution of 1/x.
func (g InvGamma) Reciprocal() Gamma { return Gamma{Shape: g.Shape, Rate: g.Scale} }

// MeanInv is E[1/x] = Shape/Scale, the mean of the Gamma 1/x.
func (g InvGamma) MeanInv() float64 { return g.Reciprocal().Mean() }

// Mean is b/(a − 1) (+Inf for a ≤ 1).
func (g InvGamma) Mean() float64 {
	if g.Shape <= 1 {
		return math.Inf(1)
	}
	return g.Scale / (g.Shape - 1)
}

// Var is b²/((a − 1)²(a − 2)) (+Inf for a ≤ 2).
func (g InvGamma) Var() float64 {
	if g.Shape <= 2 {
		return math.Inf(1)
	}
	d := g.Shape - 1
	return g.Scale * g.Scale / (d * d * (g.Shape - 2))
}

// LogNormalizer is A(η) = log Γ(a) − a log b.
func (g InvGamma) LogNormalizer() float64 { return g.Reciprocal().LogNormalizer() }

// ESS is (E log x, E 1/x) = (log b − ψ(a), a/b).
func (g InvGamma) ESS() (elog, einv float64) {
	l, e := g.Reciprocal().ESS()
	return -l, e
}

// ProjectInvGamma is the inverse Gamma with E log x = elog and E 1/x = einv:
// the Gamma projection of 1/x (E log(1/x) = −elog).
func ProjectInvGamma(elog, einv float64) (InvGamma, error) {
	r, err := ProjectGamma(-elog, einv)
	if err != nil {
		return InvGamma{}, fmt.Errorf("inv_gamma projection: %w", err)
	}
	return InvGamma{Shape: r.Shape, Scale: r.Rate}, nil
}

func (g InvGamma) String() string { return fmtParams("InvGamma", []float64{g.Shape, g.Scale}) }

// InvGammaSpace is the inverse-Gamma family as a Space.
type InvGammaSpace struct{}

func (InvGammaSpace) Len() int                            { return 2 }
func (InvGammaSpace) Proper(eta []float64) bool           { return InvGammaOf(eta).Proper() }
func (InvGammaSpace) LogNormalizer(eta []float64) float64 { return InvGammaOf(eta).LogNormalizer() }
func (InvGammaSpace) ESS(eta, out []float64)              { out[0], out[1] = InvGammaOf(eta).ESS() }
func (InvGammaSpace) String(eta []float64) string         { return InvGammaOf(eta).String() }

func (InvGammaSpace) Params(eta []float64) []float64 {
	g := InvGammaOf(eta)
	return []float64{g.Shape, g.Scale}
}

func (InvGammaSpace) Project(ess, out []float64) error {
	g, err := ProjectInvGamma(ess[0], ess[1])
	if err != nil {
		return err
	}
	copy(out, g.Natural())
	return nil
}

func (InvGammaSpace) Moments(eta, mean, variance []float64) {
	g := InvGammaOf(eta)
	mean[0], variance[0] = g.Mean(), g.Var()
}
