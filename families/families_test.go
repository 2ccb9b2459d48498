package families

import (
	"math"
	"testing"
)

// trapezoid integrates f over u ∈ [lo, hi] with n cells: spectrally
// accurate for the smooth, rapidly decaying integrands below (log or
// logit coordinates).
func trapezoid(f func(u float64) float64, lo, hi float64, n int) float64 {
	h := (hi - lo) / float64(n)
	s := 0.5 * (f(lo) + f(hi))
	for i := 1; i < n; i++ {
		s += f(lo + float64(i)*h)
	}
	return s * h
}

func close(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
		t.Errorf("%s = %.17g, want %.17g (tol %g)", what, got, want, tol)
	}
}

func TestLogMinusDigamma(t *testing.T) {
	// ψ(1) = −γ, ψ(½) = −γ − 2 log 2, ψ'(1) = π²/6, ψ'(½) = π²/2
	const euler = 0.57721566490153286060651209
	close(t, "ψ(1)", digamma(1), -euler, 1e-15)
	close(t, "ψ(1/2)", digamma(0.5), -euler-2*math.Ln2, 1e-15)
	close(t, "ψ(101)", digamma(101), -euler+harmonic(100), 1e-15)
	close(t, "ψ'(1)", trigamma(1), math.Pi*math.Pi/6, 1e-15)
	close(t, "ψ'(1/2)", trigamma(0.5), math.Pi*math.Pi/2, 1e-15)
	close(t, "ψ'(0.01)", trigamma(0.01), 1e4+trigamma(1.01), 1e-15)
	// far out the series' two leading terms are the value to rounding
	for _, x := range []float64{1e6, 1e9} {
		close(t, "log x − ψ(x) large", logMinusDigamma(x)*x, 0.5+1/(12*x), 1e-14)
	}
}

// TestGammaAgainstQuadrature: A(η) and E[T] of Gamma(a, b) against a
// trapezoid in log x (1e-10), and the entropy against its closed form.
func TestGammaAgainstQuadrature(t *testing.T) {
	for _, g := range []Gamma{{0.7, 2}, {2.5, 1.3}, {40, 0.25}} {
		eta := g.Natural()
		dens := func(u float64) float64 { x := math.Exp(u); return math.Exp(eta[0]*u-eta[1]*-x) * x }
		_ = dens
		w := func(u float64, f func(x float64) float64) float64 {
			x := math.Exp(u)
			return f(x) * math.Exp(eta[0]*math.Log(x)+eta[1]*x) * x
		}
		lo, hi := -60.0, 8.0
		z := trapezoid(func(u float64) float64 { return w(u, func(float64) float64 { return 1 }) }, lo, hi, 20000)
		close(t, "A(η)", g.LogNormalizer(), math.Log(z), 1e-10)
		elog := trapezoid(func(u float64) float64 { return w(u, math.Log) }, lo, hi, 20000) / z
		ex := trapezoid(func(u float64) float64 { return w(u, func(x float64) float64 { return x }) }, lo, hi, 20000) / z
		l, e := g.ESS()
		close(t, "E log x", l, elog, 1e-10)
		close(t, "E x", e, ex, 1e-10)
		close(t, "entropy", Entropy(GammaSpace{}, eta), g.Entropy(), 1e-12)
	}
}

// TestProjectRoundTrip: projecting a member's own E[T] returns it (1e-10
// relative), across shapes from 1e-2 to 1e5.
func TestProjectRoundTrip(t *testing.T) {
	for _, a := range []float64{0.01, 0.3, 1, 3.7, 250, 1e5} {
		g := Gamma{a, 2.5}
		p, err := ProjectGamma(g.ESS())
		if err != nil {
			t.Fatal(err)
		}
		// (E log x, E x) determine a through log a − ψ(a) ≈ 1/(2a), a
		// difference of numbers near log a: its rounding moves a by about
		// 2a·log(a)·1e-16 relative, 5e-10 at a = 1e5.
		tol := max(1e-12, 4e-16*a*math.Log(a)*2)
		close(t, "gamma shape", p.Shape/a, 1, tol)
		close(t, "gamma rate", p.Rate/2.5, 1, tol)
		ig := InvGamma{a, 0.4}
		q, err := ProjectInvGamma(ig.ESS())
		if err != nil {
			t.Fatal(err)
		}
		close(t, "inv_gamma shape", q.Shape/a, 1, tol)
		close(t, "inv_gamma scale", q.Scale/0.4, 1, tol)
		b := Beta{a, 3}
		r, err := ProjectBeta(b.ESS())
		if err != nil {
			t.Fatal(err)
		}
		close(t, "beta a", r.A/a, 1, max(1e-10, tol))
		close(t, "beta b", r.B/3, 1, max(1e-10, tol))
	}
	for _, alpha := range [][]float64{{1, 1, 1}, {0.1, 5, 20, 0.7}, {300, 200, 100}} {
		d := Dirichlet{alpha}
		ess := make([]float64, len(alpha))
		d.ESS(ess)
		p, err := ProjectDirichlet(ess)
		if err != nil {
			t.Fatal(err)
		}
		for k := range alpha {
			close(t, "dirichlet α", p.Alpha[k]/alpha[k], 1, 1e-9)
		}
	}
	if _, err := ProjectGamma(1, math.E); err == nil { // log E x = E log x: a point mass
		t.Error("gamma projection of a point mass: no error")
	}
	if _, err := ProjectDirichlet([]float64{-0.1, -0.1}); err == nil {
		t.Error("dirichlet projection with Σ exp(E log w) > 1: no error")
	}
}

// TestBetaAgainstQuadrature: A(η), E log x, E log(1 − x) and the entropy
// of Beta(a, b) against a trapezoid in logit coordinates (1e-10) and the
// closed-form entropy.
func TestBetaAgainstQuadrature(t *testing.T) {
	for _, b := range []Beta{{0.5, 0.5}, {2, 7}, {30, 4}} {
		w := func(u float64, f func(x float64) float64) float64 {
			lx, l1x := -math.Log1p(math.Exp(-u)), -math.Log1p(math.Exp(u))
			return f(math.Exp(lx)) * math.Exp(b.A*lx+b.B*l1x)
		}
		lo, hi := -80.0, 80.0
		z := trapezoid(func(u float64) float64 { return w(u, func(float64) float64 { return 1 }) }, lo, hi, 40000)
		close(t, "A(η)", b.LogNormalizer(), math.Log(z), 1e-10)
		elog := trapezoid(func(u float64) float64 { return w(u, math.Log) }, lo, hi, 40000) / z
		l, _ := b.ESS()
		close(t, "E log x", l, elog, 1e-9)
		s := b.A + b.B
		h := b.LogNormalizer() - (b.A-1)*digamma(b.A) - (b.B-1)*digamma(b.B) + (s-2)*digamma(s)
		close(t, "entropy", Entropy(BetaSpace{}, b.Natural()), h, 1e-12)
	}
}

// TestInvGammaMoments: the mean and variance of InvGamma(a, b) against a
// trapezoid in log x (1e-9).
func TestInvGammaMoments(t *testing.T) {
	g := InvGamma{4.5, 2}
	w := func(u float64, f func(x float64) float64) float64 {
		x := math.Exp(u)
		return f(x) * math.Exp(-(g.Shape+1)*u-g.Scale/x) * x
	}
	lo, hi := -10.0, 40.0
	z := trapezoid(func(u float64) float64 { return w(u, func(float64) float64 { return 1 }) }, lo, hi, 40000)
	m := trapezoid(func(u float64) float64 { return w(u, func(x float64) float64 { return x }) }, lo, hi, 40000) / z
	m2 := trapezoid(func(u float64) float64 { return w(u, func(x float64) float64 { return x * x }) }, lo, hi, 40000) / z
	close(t, "A(η)", g.LogNormalizer(), math.Log(z), 1e-10)
	close(t, "mean", g.Mean(), m, 1e-9)
	close(t, "var", g.Var(), m2-m*m, 1e-8)
}

// TestAlgebra: products, quotients, powers and damping in natural
// parameters against the families' closed forms.
func TestAlgebra(t *testing.T) {
	out := make([]float64, 2)
	Mul(out, Gamma{2, 1}.Natural(), Gamma{3, 2}.Natural())
	if g := GammaOf(out); g != (Gamma{4, 3}) {
		t.Errorf("Gamma(2,1)·Gamma(3,2) = %v, want Gamma(4, 3)", g)
	}
	Div(out, Beta{5, 4}.Natural(), Beta{2, 2}.Natural())
	if b := BetaOf(out); b != (Beta{4, 3}) {
		t.Errorf("Beta(5,4)/Beta(2,2) = %v, want Beta(4, 3)", b)
	}
	g1, _ := NewGaussian(1, 2)
	g2, _ := NewGaussian(3, 0.5)
	p := g1.Mul(g2)
	close(t, "product mean", p.Mean(), (1/2.0+3/0.5)/(1/2.0+1/0.5), 1e-15)
	Pow(out, g1.Natural(), 0.5)
	close(t, "power variance", GaussianOf(out).Var(), 4, 1e-15)
	Damp(out, Gamma{2, 1}.Natural(), Gamma{4, 3}.Natural(), 0.25)
	if g := GammaOf(out); !(math.Abs(g.Shape-2.5) <= 1e-15 && math.Abs(g.Rate-1.5) <= 1e-15) {
		t.Errorf("damped step = %v, want Gamma(2.5, 1.5)", g)
	}
	if _, err := NewGamma(-1, 1); err == nil {
		t.Error("NewGamma(-1, 1): no error")
	}
	if _, err := NewBeta(0, 1); err == nil {
		t.Error("NewBeta(0, 1): no error")
	}
	if _, err := NewDirichlet([]float64{1, 0}); err == nil {
		t.Error("NewDirichlet with a zero entry: no error")
	}
	d, _ := NewDiscrete([]float64{0.2, 0.8, 0})
	probs := make([]float64, 3)
	d.Probs(probs)
	close(t, "discrete p", probs[1], 0.8, 1e-15)
}

func harmonic(n int) float64 {
	var s float64
	for k := n; k >= 1; k-- {
		s += 1 / float64(k)
	}
	return s
}
