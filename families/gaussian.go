package families

import (
	"fmt"
	"math"
)

// Gaussian is the scalar Gaussian N(m, v) held by its natural parameters:
// Shift = m/v and Prec = 1/v (sufficient statistics (x, x²), natural
// parameters η = (Shift, −Prec/2)). Prec = 0, Shift = 0 is the flat
// message; a message may have Prec < 0, a belief may not.
type Gaussian struct {
	Shift, Prec float64
}

// NewGaussian is N(mean, variance) for a finite mean and 0 < variance < ∞.
func NewGaussian(mean, variance float64) (Gaussian, error) {
	if !finite(mean) || !(variance > 0) || math.IsInf(variance, 1) {
		return Gaussian{}, fmt.Errorf("gaussian: need a finite mean and a variance in (0, ∞), got N(%g, %g)", mean, variance)
	}
	return Gaussian{Shift: mean / variance, Prec: 1 / variance}, nil
}

// Natural returns η = (Shift, −Prec/2).
func (g Gaussian) Natural() []float64 { return []float64{g.Shift, -g.Prec / 2} }

// GaussianOf is the Gaussian with natural parameters η.
func GaussianOf(eta []float64) Gaussian { return Gaussian{Shift: eta[0], Prec: -2 * eta[1]} }

func (g Gaussian) Mul(h Gaussian) Gaussian { return Gaussian{g.Shift + h.Shift, g.Prec + h.Prec} }
func (g Gaussian) Div(h Gaussian) Gaussian { return Gaussian{g.Shift - h.Shift, g.Prec - h.Prec} }
func (g Gaussian) Pow(u float64) Gaussian  { return Gaussian{u * g.Shift, u * g.Prec} }

// Proper reports whether the precision is positive and finite.
func (g Gaussian) Proper() bool { return g.Prec > 0 && finite(g.Prec) && finite(g.Shift) }

// Mean is Shift/Prec.
func (g Gaussian) Mean() float64 { return g.Shift / g.Prec }

// Var is 1/Prec.
func (g Gaussian) Var() float64 { return 1 / g.Prec }

// LogNormalizer is A(η) = m²/(2v) + ½ log(2πv).
func (g Gaussian) LogNormalizer() float64 {
	if !g.Proper() {
		return math.Inf(1)
	}
	return 0.5*g.Shift*g.Shift/g.Prec + 0.5*math.Log(2*math.Pi/g.Prec)
}

// Entropy is ½ log(2πe v).
func (g Gaussian) Entropy() float64 { return 0.5 * math.Log(2*math.Pi*math.E/g.Prec) }

// ESS is (E x, E x²) = (m, m² + v).
func (g Gaussian) ESS() (ex, ex2 float64) {
	m := g.Mean()
	return m, m*m + 1/g.Prec
}

// ProjectGaussian is the Gaussian with E x = ex and E x² = ex2 (the KL
// projection: mean and variance matched); an error when ex2 ≤ ex².
func ProjectGaussian(ex, ex2 float64) (Gaussian, error) {
	v := ex2 - ex*ex
	if !(v > 0) || !finite(v) || !finite(ex) {
		return Gaussian{}, fmt.Errorf("gaussian projection: variance %g: %w", v, ErrImproper)
	}
	return Gaussian{Shift: ex / v, Prec: 1 / v}, nil
}

func (g Gaussian) String() string { return fmt.Sprintf("N(%.6g, %.6g)", g.Mean(), g.Var()) }

// GaussianSpace is the scalar Gaussian family as a Space.
type GaussianSpace struct{}

func (GaussianSpace) Len() int                            { return 2 }
func (GaussianSpace) Proper(eta []float64) bool           { return GaussianOf(eta).Proper() }
func (GaussianSpace) LogNormalizer(eta []float64) float64 { return GaussianOf(eta).LogNormalizer() }
func (GaussianSpace) ESS(eta, out []float64)              { out[0], out[1] = GaussianOf(eta).ESS() }
func (GaussianSpace) String(eta []float64) string         { return GaussianOf(eta).String() }

func (GaussianSpace) Params(eta []float64) []float64 {
	g := GaussianOf(eta)
	return []float64{g.Mean(), g.Var()}
}

func (GaussianSpace) Project(ess, out []float64) error {
	g, err := ProjectGaussian(ess[0], ess[1])
	if err != nil {
		return err
	}
	copy(out, g.Natural())
	return nil
}

func (GaussianSpace) Moments(eta, mean, variance []float64) {
	g := GaussianOf(eta)
	mean[0], variance[0] = g.Mean(), g.Var()
}
