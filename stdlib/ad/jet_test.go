package ad

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// testFuncs exercise every operation; each is smooth at the test points.
var testFuncs = map[string]Func{
	"poly": func(w []Jet) Jet { // w0² w1 + 3 w1 w2 − w2³
		return w[0].Pow(2).Mul(w[1]).Add(w[1].Mul(w[2]).Scale(3)).Sub(w[2].Pow(3))
	},
	"explog": func(w []Jet) Jet { // exp(w0 w1) + log(1 + w2²) − sqrt(2 + w0²)
		a := w[0].Mul(w[1]).Exp()
		b := w[2].Mul(w[2]).AddConst(1).Log()
		c := w[0].Pow(2).AddConst(2).Sqrt()
		return a.Add(b).Sub(c)
	},
	"ratio": func(w []Jet) Jet { // (w0 + 2 w1) / (1 + w2²) + w0^{-1.5}·|w1|
		num := w[0].Add(w[1].Scale(2))
		den := w[2].Pow(2).AddConst(1)
		return num.Div(den).Add(w[0].Abs().Pow(-1.5).Mul(w[1].Abs()))
	},
	"softplus": func(w []Jet) Jet { // Σ_k softplus(x_kᵀw) with cross terms
		x := [][]float64{{1, -2, 0.5}, {0.3, 0.7, -1.1}, {-1, 0, 2}}
		terms := make([]Jet, len(x))
		for k := range x {
			terms[k] = DotConst(x[k], w).Log1pExp()
		}
		return Sum(terms)
	},
	"dotmaxmin": func(w []Jet) Jet { // max(w·w, 0.1) · min(w0, w1 − 5) + neg
		m := Max(Dot(w, w), Const(0.1))
		n := Min(w[0], w[1].AddConst(-5))
		return m.Mul(n).Add(w[2].Neg().Mul(w[0]))
	},
}

func valueAt(f Func, x []float64) float64 { return f(Consts(x)).V }

// TestFiniteDifferences checks the gradient against central differences
// (step 1e-5, tolerance 1e-6 relative) and the diagonal Hessian against
// second central differences (step 1e-4, tolerance 1e-5 relative) at random points.
func TestFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, f := range testFuncs {
		for trial := 0; trial < 20; trial++ {
			x := []float64{0.5 + rng.Float64(), rng.NormFloat64(), rng.NormFloat64()}
			u := f(Vars(x))
			if v := valueAt(f, x); !scalar.EqualWithinAbsOrRel(u.V, v, 1e-14, 1e-14) {
				t.Fatalf("%s: value with derivatives %g, without %g", name, u.V, v)
			}
			for j := range x {
				g, h := fdDerivs(f, x, j)
				if !scalar.EqualWithinAbsOrRel(u.G[j], g, 1e-6, 1e-6) {
					t.Errorf("%s x=%v: G[%d] = %.12g, finite difference %.12g", name, x, j, u.G[j], g)
				}
				if !scalar.EqualWithinAbsOrRel(u.H[j], h, 1e-4, 1e-5) {
					t.Errorf("%s x=%v: H[%d] = %.12g, finite difference %.12g", name, x, j, u.H[j], h)
				}
			}
		}
	}
}

func fdDerivs(f Func, x []float64, j int) (g, h float64) {
	at := func(dx float64) float64 {
		y := append([]float64(nil), x...)
		y[j] += dx
		return valueAt(f, y)
	}
	const hg, hh = 1e-5, 1e-4
	g = (at(hg) - at(-hg)) / (2 * hg)
	h = (at(hh) - 2*at(0) + at(-hh)) / (hh * hh)
	return g, h
}

// TestKinks checks the half-sum convention at non-differentiable points
// against one-sided finite differences.
func TestKinks(t *testing.T) {
	const h = 1e-7
	abs := func(w []Jet) Jet { return w[0].Abs().Scale(3) }
	hinge := func(w []Jet) Jet { return Max(Const(0), Const(1).Sub(w[0])) }
	minf := func(w []Jet) Jet { return Min(w[0].Scale(2), w[0].Scale(-0.5)) }
	for _, c := range []struct {
		name string
		f    Func
		at   float64
	}{{"abs", abs, 0}, {"hinge", hinge, 1}, {"min", minf, 0}} {
		left := (valueAt(c.f, []float64{c.at}) - valueAt(c.f, []float64{c.at - h})) / h
		right := (valueAt(c.f, []float64{c.at + h}) - valueAt(c.f, []float64{c.at})) / h
		u := c.f(Vars([]float64{c.at}))
		if want := (left + right) / 2; !(math.Abs(u.G[0]-want) <= 1e-6) {
			t.Errorf("%s: derivative at kink %g, half sum of one-sided limits %g", c.name, u.G[0], want)
		}
		if u.H[0] != 0 {
			t.Errorf("%s: second derivative at kink %g, want 0", c.name, u.H[0])
		}
	}
}

// TestClosedForm checks a sum of squared projections, whose diagonal
// Hessian is known exactly: f = Σ_k (x_kᵀw)², H_j = 2 Σ_k x_kj².
func TestClosedForm(t *testing.T) {
	x := [][]float64{{1, 2}, {-3, 0.5}, {0.25, -1}}
	f := func(w []Jet) Jet {
		s := make([]Jet, len(x))
		for k := range x {
			s[k] = DotConst(x[k], w).Pow(2)
		}
		return Sum(s)
	}
	w := []float64{0.7, -0.2}
	p := Potential{D: 2, F: f}
	g, h := make([]float64, 2), make([]float64, 2)
	v := p.Derivs(w, g, h)
	var wantV float64
	wantG, wantH := make([]float64, 2), make([]float64, 2)
	for _, xk := range x {
		m := xk[0]*w[0] + xk[1]*w[1]
		wantV += m * m
		for j := range 2 {
			wantG[j] += 2 * m * xk[j]
			wantH[j] += 2 * xk[j] * xk[j]
		}
	}
	if !scalar.EqualWithinAbsOrRel(v, wantV, 1e-14, 1e-14) || !scalar.EqualWithinAbsOrRel(p.LogF(w), wantV, 1e-14, 1e-14) {
		t.Errorf("value %g / %g, want %g", v, p.LogF(w), wantV)
	}
	for j := range 2 {
		if !scalar.EqualWithinAbsOrRel(g[j], wantG[j], 1e-14, 1e-14) || !scalar.EqualWithinAbsOrRel(h[j], wantH[j], 1e-14, 1e-14) {
			t.Errorf("j=%d: got (%g, %g), want (%g, %g)", j, g[j], h[j], wantG[j], wantH[j])
		}
	}
}

// TestSoftplusStable checks softplus and the sigmoid in the far tails, where
// the naive formulas overflow or cancel.
func TestSoftplusStable(t *testing.T) {
	if v := Softplus(800); v != 800 {
		t.Errorf("Softplus(800) = %g", v)
	}
	if v := Softplus(-800); v != 0 {
		t.Errorf("Softplus(-800) = %g", v)
	}
	if v, want := Softplus(-40), math.Exp(-40); !scalar.EqualWithinRel(v, want, 1e-15) {
		t.Errorf("Softplus(-40) = %g, want %g", v, want)
	}
	if s := Sigmoid(-800); s != 0 || math.IsNaN(s) {
		t.Errorf("Sigmoid(-800) = %g", s)
	}
	u := Var(0, 1, -50).Log1pExp()
	if math.IsNaN(u.H[0]) || u.H[0] <= 0 {
		t.Errorf("softplus'' at -50 = %g", u.H[0])
	}
}
