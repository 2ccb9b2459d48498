package ep

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fg-infer/fg/stdlib/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestDelayedMatchesRankOne: 3.5 blocks of delayed updates (both signs of
// Δτ, some refused) leave μ and Σ as the same updates applied one by one
// with Dsyr (state.rankOne), to 1e-12.
func TestDelayedMatchesRankOne(t *testing.T) {
	n := 3*delayBlock + delayBlock/2
	K := kernel.SE{Lengthscale: 0.7, Var: 2}.Matrix(randInputs(n, 2, 3))
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func() *state {
		s := &state{mu: make([]float64, n), sigma: mat.NewSymDense(n, nil)}
		s.sigma.CopySym(K)
		return s
	}
	ref, got := mk(), mk()
	d := newDelayed(got)
	col := make([]float64, n)
	refused := 0
	for _, i := range rng.Perm(n) {
		dTau, dNu := 2*rng.Float64()-0.5, rng.NormFloat64()
		if i%17 == 0 {
			dTau = -2 / ref.sigma.At(i, i) // 1 + Δτ Σ_ii < 0: refused
		}
		if v, w := d.variance(i), ref.sigma.At(i, i); !(math.Abs(v-w) <= 1e-12) {
			t.Fatalf("Σ_%d%d = %v, want %v", i, i, v, w)
		}
		a, b := d.update(i, dTau, dNu), ref.rankOne(i, dTau, dNu, col)
		if a != b {
			t.Fatalf("site %d: delayed %v, rank-one %v", i, a, b)
		}
		if !a {
			refused++
		}
	}
	d.flush()
	if refused == 0 {
		t.Fatal("no update was refused")
	}
	for i := 0; i < n; i++ {
		if !(math.Abs(got.mu[i]-ref.mu[i]) <= 1e-12) {
			t.Errorf("μ_%d = %v, want %v", i, got.mu[i], ref.mu[i])
		}
		for j := i; j < n; j++ {
			if !(math.Abs(got.sigma.At(i, j)-ref.sigma.At(i, j)) <= 1e-12) {
				t.Fatalf("Σ_%d,%d = %v, want %v", i, j, got.sigma.At(i, j), ref.sigma.At(i, j))
			}
		}
	}
}
