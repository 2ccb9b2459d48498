package ep

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/internal/mathx"
	"gonum.org/v1/gonum/integrate/quad"
)

// brute integrates g(f)·N(f; m, v) over [m − 14√v, m + 14√v] by 100-point
// Gauss–Legendre on 40 panels, with a panel edge at the step discontinuity
// f = 0: an independent check of the closed forms.
func brute(g func(float64) float64, m, v float64) float64 {
	s := math.Sqrt(v)
	lo, hi := m-14*s, m+14*s
	edges := []float64{lo}
	if lo < 0 && hi > 0 {
		edges = append(edges, 0)
	}
	edges = append(edges, hi)
	var total float64
	for e := 0; e+1 < len(edges); e++ {
		a, b := edges[e], edges[e+1]
		const panels = 40
		h := (b - a) / panels
		for k := 0; k < panels; k++ {
			total += quad.Fixed(func(f float64) float64 {
				d := (f - m) / s
				return g(f) * math.Exp(-0.5*d*d) / (s * math.Sqrt(2*math.Pi))
			}, a+float64(k)*h, a+float64(k+1)*h, 100, quad.Legendre{}, 0)
		}
	}
	return total
}

type moments struct{ logZ, mean, vr float64 }

func bruteTilted(l Likelihood, y, m, v, u float64) moments {
	p := func(f float64) float64 {
		switch l := l.(type) {
		case Probit:
			return math.Pow(mathx.Phi(y*f), u)
		case Step:
			if y*f >= 0 {
				return math.Pow(1-l.Eps, u)
			}
			return math.Pow(l.Eps, u)
		case Gaussian:
			d := y - f
			return math.Pow(math.Exp(-0.5*d*d/l.Var)/math.Sqrt(2*math.Pi*l.Var), u)
		}
		panic("unknown likelihood")
	}
	z := brute(p, m, v)
	e1 := brute(func(f float64) float64 { return p(f) * f }, m, v) / z
	e2 := brute(func(f float64) float64 { return p(f) * f * f }, m, v) / z
	return moments{math.Log(z), e1, e2 - e1*e1}
}

// TestTiltedMoments compares log Z, the tilted mean m + v·d1 and variance
// v + v²·d2 of every likelihood, powers 1 and 0.8 (and 1.5), with brute-force
// quadrature. Tolerances: 1e-9 for closed forms, 1e-7 for the Gauss–Hermite
// probit power.
func TestTiltedMoments(t *testing.T) {
	liks := []Likelihood{Probit{}, Step{Eps: 0}, Step{Eps: 0.1}, Step{Eps: 0.25}, Gaussian{Var: 0.4}}
	for _, l := range liks {
		for _, u := range []float64{1, 0.8, 1.5} {
			if _, ok := l.(Step); ok && l.(Step).Eps == 0 && u != 1 {
				continue // 0^u: the pure step is its own power
			}
			for _, c := range [][3]float64{{1, 0.3, 1.2}, {-1, 0.3, 1.2}, {1, -2, 0.5}, {1, 1.5, 4}, {-1, 2.5, 0.3}} {
				y, m, v := c[0], c[1], c[2]
				if _, ok := l.(Gaussian); ok {
					y = 0.7 * y
				}
				lz, d1, d2 := l.Tilted(y, m, v, u)
				want := bruteTilted(l, y, m, v, u)
				tol := 1e-9
				if _, ok := l.(Probit); ok && u != 1 {
					tol = 1e-7
				}
				got := moments{lz, m + v*d1, v + v*v*d2}
				if !(math.Abs(got.logZ-want.logZ) <= tol) || !(math.Abs(got.mean-want.mean) <= tol) || !(math.Abs(got.vr-want.vr) <= tol) {
					t.Errorf("%s u=%g y=%g m=%g v=%g: got %+v, quadrature %+v", l.Name(), u, y, m, v, got, want)
				}
			}
		}
	}
}

// TestTiltedTails: in the far tail (z ≈ −40 and beyond) the closed forms stay
// finite and follow the asymptotics d1 ≈ −m/v·…, via the stable inverse Mills ratio.
func TestTiltedTails(t *testing.T) {
	for _, l := range []Likelihood{Probit{}, Step{Eps: 0}, Step{Eps: 1e-3}} {
		for _, m := range []float64{-40, -200, -1e4} {
			lz, d1, d2 := l.Tilted(1, m, 1, 1)
			if !finite(lz, d1, d2) {
				t.Errorf("%s m=%g: non-finite (%g, %g, %g)", l.Name(), m, lz, d1, d2)
			}
			vh := 1 + d2
			if !(vh > 0 && vh < 1) && l.(interface{ Name() string }).Name() != "step" {
				t.Errorf("%s m=%g: tilted variance %g outside (0, 1)", l.Name(), m, vh)
			}
		}
	}
	// Probit, z = m/√(1+v) = −40/√2: compare with the asymptotic d1 = r/√(1+v).
	_, d1, _ := Probit{}.Tilted(1, -40, 1, 1)
	if want := mathx.InvMills(-40/math.Sqrt2) / math.Sqrt2; !(math.Abs(d1-want) <= 1e-13*want) {
		t.Errorf("probit tail d1 = %g, want %g", d1, want)
	}
}

// TestExpLogLik compares E[log p(y|f)] under the tilted distribution with
// quadrature.
func TestExpLogLik(t *testing.T) {
	for _, l := range []Likelihood{Probit{}, Step{Eps: 0.1}, Step{Eps: 0.3}, Gaussian{Var: 0.5}} {
		for _, c := range [][3]float64{{1, 0.3, 1.2}, {-1, 0.8, 2}, {1, -1.5, 0.7}} {
			y, m, v := c[0], c[1], c[2]
			lz, _, _ := l.Tilted(y, m, v, 1)
			var logp func(float64) float64
			switch l := l.(type) {
			case Probit:
				logp = func(f float64) float64 { return mathx.LogPhi(y * f) }
			case Step:
				logp = func(f float64) float64 {
					if y*f >= 0 {
						return math.Log(1 - l.Eps)
					}
					return math.Log(l.Eps)
				}
			case Gaussian:
				logp = func(f float64) float64 { return -0.5*math.Log(2*math.Pi*l.Var) - 0.5*(y-f)*(y-f)/l.Var }
			}
			want := brute(func(f float64) float64 { return math.Exp(logp(f)) * logp(f) }, m, v) / math.Exp(lz)
			if got := l.ExpLogLik(y, m, v); !(math.Abs(got-want) <= 1e-8) {
				t.Errorf("%s y=%g m=%g v=%g: E log p = %.12g, quadrature %.12g", l.Name(), y, m, v, got, want)
			}
		}
	}
}

// TestRelaxedCost compares Q(b) − c b = KL(P_b ‖ N(m̂, v̂)) with the
// Kullback–Leibler divergence integrated by quadrature,
// ∫ P log(P/N(m̂, v̂)), P ∝ p(y|f) N(f; h̃, λ̃).
func TestRelaxedCost(t *testing.T) {
	s := Site{Lik: Step{Eps: 0.2}, Y: 1}
	tc, nc, mOld := 0.4, -0.9, -0.5
	for _, b := range []float64{0, 0.05, 0.7, 3} {
		got := relaxedCost(s, mOld, tc, nc, b)
		tt, nn := tc+b, nc+b*mOld
		h, lam := nn/tt, 1/tt
		mo := bruteTilted(s.Lik, 1, h, lam, 1)
		Z := math.Exp(mo.logZ)
		p := func(f float64) float64 {
			if f >= 0 {
				return 0.8
			}
			return 0.2
		}
		want := brute(func(f float64) float64 {
			lq := -0.5*math.Log(2*math.Pi*mo.vr) - 0.5*(f-mo.mean)*(f-mo.mean)/mo.vr
			lc := -0.5*math.Log(2*math.Pi*lam) - 0.5*(f-h)*(f-h)/lam
			return p(f) / Z * (math.Log(p(f)/Z) + lc - lq)
		}, h, lam)
		if !(math.Abs(got-want) <= 1e-9) {
			t.Errorf("b=%g: KL = %.12g, quadrature %.12g", b, got, want)
		}
	}
}
