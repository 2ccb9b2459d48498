package tep

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/fg-infer/fg/factor"
)

// TestTiltMomentsQuadrature checks the one-dimensional tilted moments
// (closed form for step, the package's own quadrature for probit) against
// brute-force quadrature of St(s; ν, m, v) l(s)^p to 1e-8.
func TestTiltMomentsQuadrature(t *testing.T) {
	liks := []Site{{Lik: factor.Step{}}, {Lik: factor.Step{Eps: 0.1}}, {Lik: factor.Step{Eps: 0.02}}, {Lik: factor.Probit{}}}
	for _, base := range liks {
		for _, y := range []float64{1, -1} {
			for _, nu := range []float64{3, 12} {
				for _, p := range []float64{1, 1 + 2/(nu+2)} {
					for _, m := range []float64{-6, -0.7, 0, 0.4, 5} {
						for _, v := range []float64{0.05, 1, 9} {
							s := base
							s.Y = y
							name := fmt.Sprintf("%s %v y=%g nu=%g p=%.3g m=%g v=%g", s.Lik.Name(), s.Lik.Params(), y, nu, p, m, v)
							got := tiltMoments(s, p, nu, m, v)
							lp := likPow(s, p)
							f := func(x float64) float64 { return math.Exp(stLogPdf1(x, nu, m, v)) * lp(x) }
							z, mean, vr := moments1(f, m, math.Sqrt(v), likCuts(s, 1), 400)
							check(t, name+" Z", got.Z, z, 1e-8)
							check(t, name+" mean", got.Mean, mean, 1e-8)
							check(t, name+" var", got.Var, vr, 1e-8)
						}
					}
				}
			}
		}
	}
}

// TestTiltMomentsTail checks a cavity far on the wrong side of a noiseless
// step: finite, positive and equal to quadrature.
func TestTiltMomentsTail(t *testing.T) {
	s := Site{Lik: factor.Step{}, Y: 1}
	for _, m := range []float64{-40, -200} {
		got := tiltMoments(s, 1.1, 12, m, 1)
		f := func(x float64) float64 { return math.Exp(stLogPdf1(x, 12, m, 1)) * likPow(s, 1.1)(x) }
		z, mean, vr := moments1(f, 0, 1, []float64{0}, 400)
		if !(got.Z > 0 && got.Var > 0) {
			t.Fatalf("m=%g: %+v", m, got)
		}
		check(t, "tail Z", got.Z, z, 1e-8)
		check(t, "tail mean", got.Mean, mean, 1e-8)
		check(t, "tail var", got.Var, vr, 1e-8)
	}
}

func check(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !scalar.EqualWithinAbsOrRel(got, want, tol, tol) || math.IsNaN(got) {
		t.Errorf("%s = %.15g, reference %.15g (tol %g)", name, got, want, tol)
	}
}
