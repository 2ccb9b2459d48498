package factor

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// clutterMix is Minka's clutter likelihood ½ N(y; f, 1) + ½ N(y; 0, 10)
// at y (the constant component's log-density evaluated as compile does).
func clutterMix(y float64) Mixture {
	c, _, _ := Normal{Var: 10}.LogLik(y, 0)
	return Mixture{W: []float64{0.5, 0.5}, Comps: []Site{Normal{Var: 1}, nil}, LogC: []float64{0, c}}
}

// TestMixtureTiltedQuadrature: the mixture's tilted moments (closed form at
// u = 1, composite Gauss–Legendre at u ≠ 1 and for E[log p]) against Simpson's rule on the cavity ± 40 sd:
// to 1e-8 for the closed form and for the composite Gauss–Legendre quadrature of power EP.
func TestMixtureTiltedQuadrature(t *testing.T) {
	probitNormal := Mixture{W: []float64{0.3, 0.7}, Comps: []Site{Probit{}, Normal{Var: 2}}, LogC: []float64{0, 0}}
	stepClutter := Mixture{W: []float64{0.9, 0.1}, Comps: []Site{Step{Eps: 0.05}, nil}, LogC: []float64{0, math.Log(0.5)}}
	for _, c := range []tiltedCase{
		{clutterMix(3), 3, 0, 100, 1}, {clutterMix(-4), -4, 2, 0.1, 1}, {clutterMix(12), 12, 1.5, 0.5, 1},
		{probitNormal, 1, 0.4, 1.5, 1},
	} {
		lo, hi := c.m-40*math.Sqrt(c.v), c.m+40*math.Sqrt(c.v)
		checkTilted(t, c, lo, hi, 1e-8)
	}
	for _, c := range []tiltedCase{{clutterMix(3), 3, 2, 0.5, 0.5}, {clutterMix(-4), -4, 0, 100, 0.5}, {probitNormal, 1, 0.4, 1.5, 0.7}} {
		checkTilted(t, c, c.m-40*math.Sqrt(c.v), c.m+40*math.Sqrt(c.v), 1e-8)
	}
	// A step component jumps at f = 0: Simpson's rule on each side of the
	// jump (one-sided limits at 0) keeps its fourth-order accuracy.
	y, m, v := -1.0, 0.3, 2.0
	lz, d1, d2 := stepClutter.Tilted(y, m, v, 1)
	side := func(lo, hi, at float64) (z, e1, e2 float64) {
		logp := func(f float64) float64 {
			if f == 0 {
				f = at
			}
			s, _, _ := stepClutter.LogLik(y, f)
			return s
		}
		l, mean, vr, _ := simpsonTilted(logp, m, v, 1, lo, hi, 100000)
		return math.Exp(l), math.Exp(l) * mean, math.Exp(l) * (vr + mean*mean)
	}
	za, a1, a2 := side(m-40*math.Sqrt(v), 0, -1e-300)
	zb, b1, b2 := side(0, m+40*math.Sqrt(v), 1e-300)
	z, mean := za+zb, (a1+b1)/(za+zb)
	if wv := (a2+b2)/z - mean*mean; !(math.Abs(lz-math.Log(z)) <= 1e-8) || !(math.Abs(m+v*d1-mean) <= 1e-8) || !(math.Abs(v+v*v*d2-wv) <= 1e-8) {
		t.Errorf("step mixture: log Z %.12g mean %.12g var %.12g; quadrature %.12g %.12g %.12g", lz, m+v*d1, v+v*v*d2, math.Log(z), mean, wv)
	}
}

// TestMixtureLogLikDerivatives: g and h of LogLik against central
// differences of its value.
func TestMixtureLogLikDerivatives(t *testing.T) {
	m := clutterMix(2.5)
	const h = 1e-4
	for _, f := range []float64{-3, 0, 2.4, 7} {
		_, g, hh := m.LogLik(2.5, f)
		vp, gp, _ := m.LogLik(2.5, f+h)
		vm, gm, _ := m.LogLik(2.5, f-h)
		if !scalar.EqualWithinAbsOrRel(g, (vp-vm)/(2*h), 1e-7, 1e-7) || !scalar.EqualWithinAbsOrRel(hh, (gp-gm)/(2*h), 1e-7, 1e-7) {
			t.Errorf("f = %g: g %g h %g, differences %g %g", f, g, hh, (vp-vm)/(2*h), (gp-gm)/(2*h))
		}
	}
}

// TestCheckWeights: negative, non-finite and unnormalised weights fail.
func TestCheckWeights(t *testing.T) {
	for _, w := range [][]float64{{0.5, 0.6}, {1.5, -0.5}, {math.NaN(), 1}, {1 + 2e-9}} {
		if CheckWeights(w) == nil {
			t.Errorf("%v accepted", w)
		}
	}
	if err := CheckWeights([]float64{0.25, 0.75, 0}); err != nil {
		t.Error(err)
	}
}
