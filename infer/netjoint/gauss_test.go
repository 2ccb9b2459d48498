package netjoint

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !scalar.EqualWithinAbsOrRel(got, want, tol, tol) {
		t.Errorf("%s = %.15g, want %.15g (tolerance %g)", what, got, want, tol)
	}
}

// TestGaussBlockBand: a banded block (n = 40, half-width 3, random
// diagonally dominant P) integrates to the dense block's log Z, means and
// variances (gonum's Cholesky and inverse) to 1e-10, and both blocks'
// draws have the posterior mean and variance within 4 standard errors.
func TestGaussBlockBand(t *testing.T) {
	const n, k = 40, 3
	rng := rand.New(rand.NewPCG(3, 4))
	band, dense := NewGaussBlock(n, k), NewGaussBlock(n, -1)
	if band.Dense() || !dense.Dense() {
		t.Fatal("storage not as asked")
	}
	for i := 0; i < n; i++ {
		b := rng.NormFloat64()
		band.B[i], dense.B[i] = b, b
		for j := i; j <= min(i+k, n-1); j++ {
			v := rng.Float64() - 0.5
			if j == i {
				v = 3 + rng.Float64()
			}
			band.Add(i, j, v)
			dense.Add(i, j, v)
		}
	}
	lb, mb, vb, err := band.Integrate()
	if err != nil {
		t.Fatal(err)
	}
	ld, md, vd, err := dense.Integrate()
	if err != nil {
		t.Fatal(err)
	}
	near(t, "log Z", lb, ld, 1e-10)
	for i := range mb {
		near(t, "mean", mb[i], md[i], 1e-10)
		near(t, "var", vb[i], vd[i], 1e-10)
	}
	bad := NewGaussBlock(n, k)
	bad.Add(0, 0, -1)
	if _, _, _, err := bad.Integrate(); err == nil {
		t.Error("a precision that is not positive definite integrated")
	}
	// a draw's mean and covariance: x̄ → P⁻¹B, per coordinate Var → diag P⁻¹
	const draws = 20000
	for _, g := range []*GaussBlock{band, dense} {
		_, mean, vr, _ := g.Integrate()
		var s1, s2 float64
		for d := 0; d < draws; d++ {
			x := append([]float64(nil), mean...)
			if err := g.Draw(rng, x); err != nil {
				t.Fatal(err)
			}
			s1 += x[7]
			s2 += (x[7] - mean[7]) * (x[7] - mean[7])
		}
		se := math.Sqrt(vr[7] / draws)
		if d := math.Abs(s1/draws - mean[7]); !(d <= 4*se) {
			t.Errorf("dense %v: draws' mean %v, want %v ± %v", g.Dense(), s1/draws, mean[7], se)
		}
		if d := math.Abs(s2/draws/vr[7] - 1); !(d <= 4*math.Sqrt(2.0/draws)) {
			t.Errorf("dense %v: draws' variance %v, want %v", g.Dense(), s2/draws, vr[7])
		}
	}
}
