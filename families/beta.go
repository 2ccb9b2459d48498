package families

import (
	"fmt"
	"math"
)

// Beta is the Beta distribution Beta(x; a, b) = x^{a−1}(1−x)^{b−1}/B(a, b)
// on 0 < x < 1: the two-component Dirichlet of (x, 1 − x). Sufficient
// statistics (log x, log(1 − x)), natural parameters η = (a − 1, b − 1);
// the flat message is a = b = 1.
type Beta struct {
	A, B float64
}

// NewBeta is Beta(a, b) for finite a, b > 0.
func NewBeta(a, b float64) (Beta, error) {
	d := Beta{a, b}
	if !d.Proper() {
		return Beta{}, fmt.Errorf("beta: need a > 0 and b > 0, got Beta(%g, %g)", a, b)
	}
	return d, nil
}

// Natural returns η = (A − 1, B − 1).
func (d Beta) Natural() []float64 { return []float64{d.A - 1, d.B - 1} }

// BetaOf is the Beta with natural parameters η.
func BetaOf(eta []float64) Beta { return Beta{A: eta[0] + 1, B: eta[1] + 1} }

func (d Beta) dirichlet() Dirichlet { return Dirichlet{Alpha: []float64{d.A, d.B}} }

// Proper reports whether a and b are positive and finite.
func (d Beta) Proper() bool { return d.A > 0 && d.B > 0 && finite(d.A) && finite(d.B) }

func (d Beta) Mean() float64 { return d.A / (d.A + d.B) }

func (d Beta) Var() float64 {
	s := d.A + d.B
	return d.A * d.B / (s * s * (s + 1))
}

// LogNormalizer is log B(a, b).
func (d Beta) LogNormalizer() float64 {
	if !d.Proper() {
		return math.Inf(1)
	}
	return d.dirichlet().LogNormalizer()
}

// ESS is (E log x, E log(1 − x)) = (ψ(a) − ψ(a + b), ψ(b) − ψ(a + b)).
func (d Beta) ESS() (elog, elog1m float64) {
	p0 := digamma(d.A + d.B)
	return digamma(d.A) - p0, digamma(d.B) - p0
}

// ProjectBeta is the Beta with E log x = elog and E log(1 − x) = elog1m:
// the Dirichlet projection with K = 2 (ProjectDirichlet).
func ProjectBeta(elog, elog1m float64) (Beta, error) {
	d, err := ProjectDirichlet([]float64{elog, elog1m})
	if err != nil {
		return Beta{}, fmt.Errorf("beta projection: %w", err)
	}
	return Beta{A: d.Alpha[0], B: d.Alpha[1]}, nil
}

func (d Beta) String() string { return fmtParams("Beta", []float64{d.A, d.B}) }

// BetaSpace is the Beta family as a Space.
type BetaSpace struct{}

func (BetaSpace) Len() int                            { return 2 }
func (BetaSpace) Proper(eta []float64) bool           { return BetaOf(eta).Proper() }
func (BetaSpace) LogNormalizer(eta []float64) float64 { return BetaOf(eta).LogNormalizer() }
func (BetaSpace) ESS(eta, out []float64)              { out[0], out[1] = BetaOf(eta).ESS() }
func (BetaSpace) String(eta []float64) string         { return BetaOf(eta).String() }

func (BetaSpace) Params(eta []float64) []float64 {
	d := BetaOf(eta)
	return []float64{d.A, d.B}
}

func (BetaSpace) Project(ess, out []float64) error {
	d, err := ProjectBeta(ess[0], ess[1])
	if err != nil {
		return err
	}
	copy(out, d.Natural())
	return nil
}

func (BetaSpace) Moments(eta, mean, variance []float64) {
	d := BetaOf(eta)
	mean[0], variance[0] = d.Mean(), d.Var()
}
