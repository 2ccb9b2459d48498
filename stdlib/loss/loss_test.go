package loss

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/fg-infer/fg/stdlib/ad"
)

// naive values straight from the definitions in roche §3.2.
func naive(l Loss, m float64) float64 {
	switch l := l.(type) {
	case Logistic:
		return math.Log(1 + math.Exp(-m))
	case Hinge:
		return math.Max(0, 1-m)
	case Quasi01:
		switch {
		case m < 0:
			return 1 - l.Eps*m
		case m < l.Eps:
			return 1 - m/l.Eps
		}
		return 0
	}
	panic("unknown loss")
}

var losses = []Loss{Logistic{}, Hinge{}, Quasi01{Eps: 0.1}, Quasi01{Eps: 1}}

// TestValuesAndDerivatives: values against the definitions (1e-14) and
// derivatives against central differences away from kinks (1e-6).
func TestValuesAndDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, l := range losses {
		for range 200 {
			m := 3 * rng.NormFloat64()
			v, d1, d2 := l.Eval(m)
			if want := naive(l, m); !scalar.EqualWithinAbsOrRel(v, want, 1e-14, 1e-14) {
				t.Errorf("%s(%g) = %g, want %g", l.Name(), m, v, want)
			}
			const h = 1e-6
			if nearKink(l, m, 1e-4) {
				continue
			}
			fd1 := (naive(l, m+h) - naive(l, m-h)) / (2 * h)
			_, a, _ := l.Eval(m + h)
			_, b, _ := l.Eval(m - h)
			fd2 := (a - b) / (2 * h)
			if !scalar.EqualWithinAbsOrRel(d1, fd1, 1e-6, 1e-6) || !scalar.EqualWithinAbsOrRel(d2, fd2, 1e-6, 1e-6) {
				t.Errorf("%s at %g: derivs (%g, %g), finite differences (%g, %g)", l.Name(), m, d1, d2, fd1, fd2)
			}
		}
	}
}

func nearKink(l Loss, m, tol float64) bool {
	switch l := l.(type) {
	case Hinge:
		return math.Abs(m-1) < tol
	case Quasi01:
		return math.Abs(m) < tol || math.Abs(m-l.Eps) < tol
	}
	return false
}

// TestKinkHalfSums: at kinks the derivative is the half sum of the one-sided slopes.
func TestKinkHalfSums(t *testing.T) {
	cases := []struct {
		l           Loss
		m, left, rt float64
	}{
		{Hinge{}, 1, -1, 0},
		{Quasi01{Eps: 0.1}, 0, -0.1, -10},
		{Quasi01{Eps: 0.1}, 0.1, -10, 0},
	}
	for _, c := range cases {
		_, d1, _ := c.l.Eval(c.m)
		if want := (c.left + c.rt) / 2; !scalar.EqualWithinAbsOrRel(d1, want, 1e-14, 1e-14) {
			t.Errorf("%s at %g: %g, want %g", c.l.Name(), c.m, d1, want)
		}
	}
	if _, d1, _ := (Quasi01{Eps: 1}).Eval(0); d1 != -1 {
		t.Errorf("quasi01(eps=1) is the hinge: slope at 0 = %g, want -1", d1)
	}
}

// TestLogisticTails: no overflow, and the right asymptotes.
func TestLogisticTails(t *testing.T) {
	if v, d1, d2 := (Logistic{}).Eval(-800); v != 800 || d1 != -1 || d2 != 0 {
		t.Errorf("logistic(-800) = %g %g %g", v, d1, d2)
	}
	if v, _, _ := (Logistic{}).Eval(40); !scalar.EqualWithinRel(v, math.Exp(-40), 1e-15) {
		t.Errorf("logistic(40) = %g, want %g", v, math.Exp(-40))
	}
}

// TestBatchMatchesJets: the hand-written Batch potential equals the ad
// evaluation of the same expression −β Σ ℓ(y_k x_kᵀw) to rounding.
func TestBatchMatchesJets(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d, s = 5, 7
	x := make([][]float64, s)
	y := make([]float64, s)
	for k := range x {
		x[k] = make([]float64, d)
		for j := range x[k] {
			x[k][j] = rng.NormFloat64()
		}
		y[k] = float64(2*rng.IntN(2) - 1)
	}
	for _, l := range losses {
		b := &Batch{X: x, Y: y, Beta: 1.5, Loss: l}
		p := ad.Potential{D: d, F: func(w []ad.Jet) ad.Jet {
			terms := make([]ad.Jet, s)
			for k := range x {
				terms[k] = OfJet(l, ad.DotConst(x[k], w).Scale(y[k]))
			}
			return ad.Sum(terms).Scale(-1.5)
		}}
		w := make([]float64, d)
		for j := range w {
			w[j] = rng.NormFloat64()
		}
		g1, h1, g2, h2 := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		v1, v2 := b.Derivs(w, g1, h1), p.Derivs(w, g2, h2)
		if !scalar.EqualWithinAbsOrRel(v1, v2, 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(b.LogF(w), v1, 1e-12, 1e-12) {
			t.Errorf("%s: value %g vs jets %g", l.Name(), v1, v2)
		}
		for j := range d {
			if !scalar.EqualWithinAbsOrRel(g1[j], g2[j], 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(h1[j], h2[j], 1e-12, 1e-12) {
				t.Errorf("%s j=%d: (%g, %g) vs jets (%g, %g)", l.Name(), j, g1[j], h1[j], g2[j], h2[j])
			}
		}
	}
}

func TestByName(t *testing.T) {
	for _, n := range []string{"logistic", "logistic_loss", "hinge", "quasi01"} {
		if _, err := ByName(n, 0.1); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := ByName("quasi01", 0); err == nil {
		t.Error("quasi01 with eps = 0 accepted")
	}
	if _, err := ByName("squared", 0); err == nil {
		t.Error("unknown loss accepted")
	}
}

// TestLogFAxes: the shifted-margin evaluation equals LogF at each of the
// 2d+1 points, and Value equals Eval's value.
func TestLogFAxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d, s = 6, 9
	b := &Batch{Beta: 0.7, X: make([][]float64, s), Y: make([]float64, s)}
	for k := range s {
		b.X[k] = make([]float64, d)
		for j := range d {
			b.X[k][j] = rng.NormFloat64()
		}
		b.X[k][2] = 0
		b.Y[k] = float64(2*rng.IntN(2) - 1)
	}
	w, step := make([]float64, d), make([]float64, d)
	for i := range d {
		w[i], step[i] = rng.NormFloat64(), rng.Float64()
	}
	for _, l := range losses {
		b.Loss = l
		lp, lm := make([]float64, d), make([]float64, d)
		l0 := b.LogFAxes(w, step, lp, lm)
		if !scalar.EqualWithinAbsOrRel(l0, b.LogF(w), 1e-13, 1e-13) {
			t.Errorf("%s: centre %g vs %g", l.Name(), l0, b.LogF(w))
		}
		for i := range d {
			x := append([]float64(nil), w...)
			x[i] = w[i] + step[i]
			p := b.LogF(x)
			x[i] = w[i] - step[i]
			m := b.LogF(x)
			if !scalar.EqualWithinAbsOrRel(lp[i], p, 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(lm[i], m, 1e-12, 1e-12) {
				t.Errorf("%s coord %d: (%g, %g), LogF (%g, %g)", l.Name(), i, lp[i], lm[i], p, m)
			}
		}
		for _, m := range []float64{-3, -0.05, 0, 0.05, 0.1, 1, 2} {
			if v, _, _ := l.Eval(m); v != l.Value(m) {
				t.Errorf("%s(%g): Value %g, Eval %g", l.Name(), m, l.Value(m), v)
			}
		}
	}
}
