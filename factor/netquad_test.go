package factor

import (
	"math"
	"testing"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/graph"
)

// grid2 integrates exp(lw(s, t)) over s ∈ [s0, s1], t ∈ [t0, t1] on an
// n×n trapezoid grid and returns log ∫ and the expectations of g's values.
func grid2(lw func(s, t float64) float64, s0, s1, t0, t1 float64, n int, g func(s, t float64) []float64) (float64, []float64) {
	hs, ht := (s1-s0)/float64(n), (t1-t0)/float64(n)
	mx := math.Inf(-1)
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			mx = max(mx, lw(s0+float64(i)*hs, t0+float64(j)*ht))
		}
	}
	var z float64
	var e []float64
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			s, t := s0+float64(i)*hs, t0+float64(j)*ht
			w := math.Exp(lw(s, t) - mx)
			if i == 0 || i == n {
				w /= 2
			}
			if j == 0 || j == n {
				w /= 2
			}
			v := g(s, t)
			if e == nil {
				e = make([]float64, len(v))
			}
			for k := range v {
				e[k] += w * v[k]
			}
			z += w
		}
	}
	for k := range e {
		e[k] /= z
	}
	return mx + math.Log(z*hs*ht), e
}

func gammaIn(name string, g families.Gamma) In {
	in := In{Name: name, Fam: graph.Gamma, Nat: g.Natural(), ESS: make([]float64, 2)}
	families.GammaSpace{}.ESS(in.Nat, in.ESS)
	return in
}

func closeTo(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
		t.Errorf("%s = %.12g, want %.12g (tol %g)", what, got, want, tol)
	}
}

// TestGammaGammaEP: the gamma factor with a gamma x and a gamma rate
// (logQuad in log x, the rate in closed form) against a 2-D trapezoid in
// (log x, log r) of Gamma(x; a, r)^u times the unnormalised cavities:
// log Z and the four expected sufficient statistics (1e-7), at u = 1 and
// u = 0.6 (power EP).
func TestGammaGammaEP(t *testing.T) {
	qx, qr := families.Gamma{Shape: 2.5, Rate: 1.5}, families.Gamma{Shape: 4, Rate: 3}
	const a = 3.0
	for _, u := range []float64{1, 0.6} {
		in := []In{gammaIn("x", qx), {Name: "shape", Data: []float64{a}}, gammaIn("rate", qr)}
		out := make([]Out, 3)
		logZ, err := Gamma{}.EP(nil, in, u, out)
		if err != nil {
			t.Fatal(err)
		}
		lw := func(s, tt float64) float64 {
			x, r := math.Exp(s), math.Exp(tt)
			return (qx.Shape-1)*s - qx.Rate*x + s + (qr.Shape-1)*tt - qr.Rate*r + tt + u*logGamma(x, a, r)
		}
		want, e := grid2(lw, -12, 5, -10, 5, 1500, func(s, tt float64) []float64 {
			return []float64{s, math.Exp(s), tt, math.Exp(tt)}
		})
		closeTo(t, "log Z", logZ, want, 1e-7)
		closeTo(t, "E log x", out[0].ESS[0], e[0], 1e-7)
		closeTo(t, "E x", out[0].ESS[1], e[1], 1e-7)
		closeTo(t, "E log r", out[2].ESS[0], e[2], 1e-7)
		closeTo(t, "E r", out[2].ESS[1], e[3], 1e-7)
	}
}

// TestNormalLatentVarianceEP: the normal likelihood y ~ normal(mu, s2) with
// a Gaussian mu and an inverse-Gamma s2 (logQuad in log s², mu in closed
// form) against a 2-D trapezoid in (mu, log s²): log Z, E mu, E mu²,
// E log s², E 1/s² (1e-7), at u = 1 and u = 0.7.
func TestNormalLatentVarianceEP(t *testing.T) {
	const y, m, v = 1.3, 0.2, 0.8
	qs := families.InvGamma{Shape: 3, Scale: 2}
	g, _ := families.NewGaussian(m, v)
	for _, u := range []float64{1, 0.7} {
		sIn := In{Name: "var", Fam: graph.InvGamma, Nat: qs.Natural(), ESS: make([]float64, 2)}
		families.InvGammaSpace{}.ESS(sIn.Nat, sIn.ESS)
		mIn := In{Name: "mean", Fam: graph.Gaussian, Nat: g.Natural(), ESS: []float64{m, m*m + v}}
		out := make([]Out, 2)
		logZ, err := Normal{}.EP([]float64{y}, []In{mIn, sIn}, u, out)
		if err != nil {
			t.Fatal(err)
		}
		lw := func(mu, ls float64) float64 {
			s2 := math.Exp(ls)
			d := y - mu
			return -mu*mu/(2*v) + mu*m/v + sIn.Nat[0]*ls + sIn.Nat[1]/s2 + ls + u*(-0.5*math.Log(2*math.Pi*s2)-d*d/(2*s2))
		}
		want, e := grid2(lw, -6, 7, -6, 6, 1500, func(mu, ls float64) []float64 {
			return []float64{mu, mu * mu, ls, math.Exp(-ls)}
		})
		closeTo(t, "log Z", logZ, want, 1e-7)
		closeTo(t, "E mu", out[0].ESS[0], e[0], 1e-7)
		closeTo(t, "E mu²", out[0].ESS[1], e[1], 1e-7)
		closeTo(t, "E log s²", out[1].ESS[0], e[2], 1e-7)
		closeTo(t, "E 1/s²", out[1].ESS[1], e[3], 1e-7)
	}
}
