package tfam

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"
)

// integrate returns ∫_a^b f(z) dz (a, b may be infinite) by Gauss–Legendre
// quadrature in θ = atan z; the reference for the closed forms below.
func integrate(f func(float64) float64, a, b float64, n int) float64 {
	g := func(th float64) float64 {
		c := math.Cos(th)
		if c == 0 {
			return 0
		}
		return f(math.Tan(th)) / (c * c)
	}
	return quad.Fixed(g, math.Atan(a), math.Atan(b), n, quad.Legendre{}, 0)
}

func TestExpLnLimitAndInverse(t *testing.T) {
	for _, x := range []float64{-3, -0.5, 0, 0.7, 2} {
		// t → 1: closed form vs exp/log (reference: math.Exp, math.Log).
		if got := ExpT(x, 1+1e-10); !scalar.EqualWithinAbsOrRel(got, math.Exp(x), 1e-8, 1e-8) {
			t.Errorf("ExpT(%g, 1+1e-10) = %g, want exp = %g", x, got, math.Exp(x))
		}
		if y := math.Exp(x); !scalar.EqualWithinAbsOrRel(LnT(y, 1-1e-10), x, 1e-8, 1e-8) {
			t.Errorf("LnT(exp %g, 1−1e-10) = %g", x, LnT(y, 1-1e-10))
		}
		for _, q := range []float64{0.5, 1.1, 1.5} {
			// x in the domain where exp_q is finite and positive.
			if 1+(1-q)*x <= 0 {
				continue
			}
			if got := LnT(ExpT(x, q), q); !scalar.EqualWithinAbsOrRel(got, x, 1e-13, 1e-13) {
				t.Errorf("ln_%g(exp_%g(%g)) = %g", q, q, x, got)
			}
			// Definition (futami eq. 2) written out directly.
			want := math.Pow(1+(1-q)*x, 1/(1-q))
			if got := ExpT(x, q); !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-13) {
				t.Errorf("ExpT(%g,%g) = %g, want %g", x, q, got, want)
			}
		}
	}
}

func TestQAlgebraIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		q := 0.3 + 1.4*rng.Float64()
		a, b := rng.NormFloat64(), rng.NormFloat64()
		ea, eb, eab := ExpT(a, q), ExpT(b, q), ExpT(a+b, q)
		if eab == 0 || math.IsInf(eab, 0) || ea == 0 || eb == 0 || math.IsInf(ea, 0) || math.IsInf(eb, 0) {
			continue
		}
		// eq. 23: exp_q(a) ⊗_q exp_q(b) = exp_q(a+b).
		if got := QProduct(ea, eb, q); !scalar.EqualWithinAbsOrRel(got, eab, 1e-12, 1e-11) {
			t.Fatalf("q=%g a=%g b=%g: exp⊗exp = %g, exp(a+b) = %g", q, a, b, got, eab)
		}
		// eq. 27: exp_q(a) ⊘_q exp_q(b) = exp_q(a−b).
		if ed := ExpT(a-b, q); ed > 0 && !math.IsInf(ed, 0) {
			if got := QDivide(ea, eb, q); !scalar.EqualWithinAbsOrRel(got, ed, 1e-12, 1e-11) {
				t.Fatalf("q=%g: exp⊘exp = %g, exp(a−b) = %g", q, got, ed)
			}
		}
		// eq. 22: ln_q(x ⊗ y) = ln_q x + ln_q y; ⊘ inverts ⊗.
		x, y := 0.1+rng.Float64(), 0.1+rng.Float64()
		if p := QProduct(x, y, q); p > 0 {
			if got := LnT(p, q); !scalar.EqualWithinAbsOrRel(got, LnT(x, q)+LnT(y, q), 1e-12, 1e-11) {
				t.Fatalf("ln(x⊗y) = %g", got)
			}
			if got := QDivide(p, y, q); !scalar.EqualWithinAbsOrRel(got, x, 1e-12, 1e-11) {
				t.Fatalf("(x⊗y)⊘y = %g, want %g", got, x)
			}
		}
	}
	if QProduct(2, 3, 1) != 6 || QDivide(6, 3, 1) != 2 {
		t.Error("q = 1 must be the ordinary product/quotient")
	}
}

func randSPD(rng *rand.Rand, k int) *mat.SymDense {
	a := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	s := mat.NewSymDense(k, nil)
	s.SymOuterK(1, a)
	for i := 0; i < k; i++ {
		s.SetSym(i, i, s.At(i, i)+0.5)
	}
	return s
}

func randVec(rng *rand.Rand, k int) []float64 {
	v := make([]float64, k)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func TestDensityAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 2, 4} {
		for _, nu := range []float64{1, 3.5, 10} {
			sig, mu := randSPD(rng, k), randVec(rng, k)
			st, ok := NewStudentT(nu, mu, sig)
			ref, ok2 := distmv.NewStudentsT(mu, sig, nu, nil)
			if !ok || !ok2 {
				t.Fatal("constructor failed")
			}
			for r := 0; r < 5; r++ {
				x := randVec(rng, k)
				if got, want := st.LogProb(x), ref.LogProb(x); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
					t.Errorf("k=%d nu=%g: LogProb %g, distmv %g", k, nu, got, want)
				}
				// exp_t(⟨Φ(x),θ⟩ − g_t(θ)) is the density (futami eq. 10).
				if got := ExpT(st.Inner(x)-st.LogPartition(), st.T()); !scalar.EqualWithinAbsOrRel(got, st.Prob(x), 1e-12, 1e-10) {
					t.Errorf("k=%d nu=%g: exp_t form %g, density %g", k, nu, got, st.Prob(x))
				}
				if k == 1 {
					u := distuv.StudentsT{Mu: mu[0], Sigma: math.Sqrt(sig.At(0, 0)), Nu: nu}
					if got, want := st.LogProb(x), u.LogProb(x[0]); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
						t.Errorf("nu=%g: LogProb %g, distuv %g", nu, got, want)
					}
				}
			}
		}
	}
}

func TestGaussianLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	k := 3
	sig, mu := randSPD(rng, k), randVec(rng, k)
	st, _ := NewStudentT(1e9, mu, sig)
	g, _ := distmv.NewNormal(mu, sig, nil)
	for r := 0; r < 5; r++ {
		x := randVec(rng, k)
		if got, want := st.LogProb(x), g.LogProb(x); !scalar.EqualWithinAbsOrRel(got, want, 1e-7, 1e-7) {
			t.Errorf("LogProb %g, Gaussian %g", got, want)
		}
	}
	// g_t → ½ log|2πΣ| + ½ μᵀΣ⁻¹μ; P → Σ⁻¹.
	var ch mat.Cholesky
	ch.Factorize(sig)
	want := 0.5*(float64(k)*math.Log(2*math.Pi)+ch.LogDet()) + 0.5*st.Mahalanobis(make([]float64, k))
	if got := st.LogPartition(); !scalar.EqualWithinAbsOrRel(got, want, 1e-6, 1e-6) {
		t.Errorf("g_t %g, Gaussian log-partition %g", got, want)
	}
}

func TestEscort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range []int{1, 2, 3} {
		nu := 4.5
		sig, mu := randSPD(rng, k), randVec(rng, k)
		st, _ := NewStudentT(nu, mu, sig)
		es := st.Escort()
		if es.Nu != nu+2 {
			t.Fatalf("escort nu = %g", es.Nu)
		}
		// p^t / escort must be constant in x.
		var c0 float64
		for r := 0; r < 6; r++ {
			x := randVec(rng, k)
			c := st.T()*st.LogProb(x) - es.LogProb(x)
			if r == 0 {
				c0 = c
			} else if !scalar.EqualWithinAbsOrRel(c, c0, 1e-11, 1e-11) {
				t.Errorf("k=%d: log p^t − log escort not constant: %g vs %g", k, c, c0)
			}
		}
		// The escort covariance is Σ: (ν+2)/ν · νΣ/(ν+2).
		cov, _ := es.Covariance()
		if !mat.EqualApprox(cov, sig, 1e-12) {
			t.Errorf("escort covariance ≠ Σ")
		}
		if k == 1 {
			// ∫ p^t by quadrature equals exp(c0).
			z := integrate(func(x float64) float64 { return math.Exp(st.T() * st.LogProb([]float64{x})) }, math.Inf(-1), math.Inf(1), 400)
			if !scalar.EqualWithinAbsOrRel(math.Log(z), c0, 1e-9, 1e-9) {
				t.Errorf("∫p^t = %g, want %g", z, math.Exp(c0))
			}
		}
	}
}

func TestNaturalRoundTripAndGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	k, nu := 3, 6.0
	sig, mu := randSPD(rng, k), randVec(rng, k)
	st, _ := NewStudentT(nu, mu, sig)
	h, P := st.Natural()
	back, ok := FromNatural(nu, h, P)
	if !ok || !mat.EqualApprox(back.Sigma, sig, 1e-10) {
		t.Fatalf("round trip Σ: ok=%v", ok)
	}
	for i := range mu {
		if !scalar.EqualWithinAbsOrRel(back.Mu[i], mu[i], 1e-10, 1e-10) {
			t.Fatalf("round trip μ")
		}
	}
	// ∇_θ g_t = E_escort[Φ(x)] (futami eq. 3): with ⟨Φ,θ⟩ = hᵀx − ½xᵀPx,
	// ∂g/∂h_i = μ_i and ∂g/∂P_ii = −½(Σ_ii + μ_i²) (escort mean μ, covariance Σ).
	g := func(h []float64, P *mat.SymDense) float64 {
		s, ok := FromNatural(nu, h, P)
		if !ok {
			t.Fatal("FromNatural failed")
		}
		return s.LogPartition()
	}
	const eps = 1e-5
	for i := 0; i < k; i++ {
		hp, hm := append([]float64(nil), h...), append([]float64(nil), h...)
		hp[i] += eps
		hm[i] -= eps
		if d := (g(hp, P) - g(hm, P)) / (2 * eps); !scalar.EqualWithinAbsOrRel(d, mu[i], 1e-6, 1e-6) {
			t.Errorf("∂g/∂h_%d = %g, want μ = %g", i, d, mu[i])
		}
		Pp, Pm := mat.NewSymDense(k, nil), mat.NewSymDense(k, nil)
		Pp.CopySym(P)
		Pm.CopySym(P)
		Pp.SetSym(i, i, P.At(i, i)+eps)
		Pm.SetSym(i, i, P.At(i, i)-eps)
		want := -0.5 * (sig.At(i, i) + mu[i]*mu[i])
		if d := (g(h, Pp) - g(h, Pm)) / (2 * eps); !scalar.EqualWithinAbsOrRel(d, want, 1e-6, 1e-6) {
			t.Errorf("∂g/∂P_%d%d = %g, want %g", i, i, d, want)
		}
	}
}

func TestStdTail(t *testing.T) {
	for _, nu := range []float64{3, 7.5, 12} {
		d := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}
		for _, z0 := range []float64{-6, -1.3, 0, 0.4, 3, 20} {
			m0, m1, m2 := StdTail(nu, z0)
			for p, got := range []float64{m0, m1, m2} {
				want := integrate(func(z float64) float64 { return math.Pow(z, float64(p)) * d.Prob(z) }, z0, math.Inf(1), 2000)
				if !scalar.EqualWithinAbsOrRel(got, want, 1e-10, 1e-9) {
					t.Errorf("nu=%g z0=%g M%d = %.15g, quadrature %.15g", nu, z0, p, got, want)
				}
			}
		}
	}
}
