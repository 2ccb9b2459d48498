package tep

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/fg-infer/fg/factor"
	"github.com/fg-infer/fg/families/tfam"
	"github.com/fg-infer/fg/internal/mathx"
)

// Brute-force references for the tests: tensor Gauss–Legendre quadrature on
// the real line mapped by x = c + h·tan θ, cut at the likelihood's
// discontinuity or transition so that every piece is smooth. They use only
// the densities and the likelihood, none of the moment formulas under test.

// nodes returns points and weights of a rule for ∫_ℝ f(x) dx: pieces between
// the sorted finite cuts, each mapped by x = c + h·tan θ, n-point
// Gauss–Legendre in θ.
func nodes(c, h float64, cuts []float64, n int) (xs, ws []float64) {
	th := []float64{-math.Pi / 2}
	cs := append([]float64(nil), cuts...)
	sort.Float64s(cs)
	for _, x := range cs {
		th = append(th, math.Atan((x-c)/h))
	}
	th = append(th, math.Pi/2)
	x, w := make([]float64, n), make([]float64, n)
	for i := 0; i+1 < len(th); i++ {
		if th[i+1] <= th[i] {
			continue
		}
		quad.Legendre{}.FixedLocations(x, w, th[i], th[i+1])
		for q := range x {
			co := math.Cos(x[q])
			if co < 1e-300 {
				continue
			}
			xs = append(xs, c+h*math.Tan(x[q]))
			ws = append(ws, w[q]*h/(co*co))
		}
	}
	return xs, ws
}

// moments1 returns ∫f, and the mean and variance of the normalised f.
func moments1(f func(float64) float64, c, h float64, cuts []float64, n int) (z, mean, vr float64) {
	xs, ws := nodes(c, h, cuts, n)
	var s0, s1, s2 float64
	for i, x := range xs {
		v := ws[i] * f(x)
		s0 += v
		s1 += v * (x - c)
		s2 += v * (x - c) * (x - c)
	}
	d := s1 / s0
	return s0, c + d, s2/s0 - d*d
}

// likPow returns l(y | s)^p for the site's likelihood, written out here
// (not through the kind's rules) as the reference.
func likPow(s Site, p float64) func(x float64) float64 {
	switch l := s.Lik.(type) {
	case factor.Probit:
		return func(x float64) float64 { return math.Exp(p * mathx.LogPhi(s.Y*x)) }
	case factor.Step:
		return func(x float64) float64 {
			if s.Y*x > 0 {
				return math.Pow(1-l.Eps, p)
			}
			return math.Pow(l.Eps, p)
		}
	}
	panic(fmt.Sprintf("no reference for %s", s.Lik.Name()))
}

// likCuts returns the points in s = aᵀw where the likelihood is not smooth
// or changes fast, for a projection of norm an.
func likCuts(s Site, an float64) []float64 {
	if _, ok := s.Lik.(factor.Probit); ok {
		return []float64{-8 / an, 0, 8 / an}
	}
	return []float64{0}
}

// stLogPdf1 is log St(x; ν, m, v) in one dimension (v = scale²).
func stLogPdf1(x, nu, m, v float64) float64 {
	g1, _ := math.Lgamma((nu + 1) / 2)
	g0, _ := math.Lgamma(nu / 2)
	z := (x - m) * (x - m) / v
	return g1 - g0 - 0.5*math.Log(math.Pi*nu*v) - (nu+1)/2*math.Log1p(z/nu)
}

// cavityInW maps a whitened cavity back to w coordinates as a Student-t.
func cavityInW(t *testing.T, st *state, c *cavity) tfam.StudentT {
	t.Helper()
	cu, ok := tfam.FromNatural(st.nu, c.h, c.P)
	if !ok {
		t.Fatal("cavity not a Student-t")
	}
	mu := mat.NewVecDense(st.k, nil)
	mu.MulVec(&st.l0, mat.NewVecDense(st.k, cu.Mu))
	var ls mat.Dense
	ls.Mul(&st.l0, cu.Sigma)
	sig := mat.NewSymDense(st.k, nil)
	var full mat.Dense
	full.Mul(&ls, st.l0.T())
	for i := 0; i < st.k; i++ {
		for j := i; j < st.k; j++ {
			sig.SetSym(i, j, 0.5*(full.At(i, j)+full.At(j, i)))
		}
	}
	out, ok := tfam.NewStudentT(st.nu, mu.RawVector().Data, sig)
	if !ok {
		t.Fatal("cavity scale not PD")
	}
	return out
}
